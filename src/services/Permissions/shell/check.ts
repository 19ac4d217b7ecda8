/**
 * The Bash permission check (shell-security §3.1 step 5; claude-code-spec §1.4–§1.6, §1.11,
 * §1.12). Decision order: deny (rules on every visible unit and the whole text, a raw-text scan
 * when parsing failed, Read/Edit path denials) → critical paths → too complex → ask rules →
 * guards → allow only if every unit is allowed by a rule, read-only or approved by the mode →
 * otherwise ask.
 */
import { Effect } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import type { DecisionReason, PermissionRule, SubcommandVerdict } from "../../../Permission.js"
import { analyzeSync } from "./analyze.js"
import {
  allowMatchesUnit,
  compileRules,
  hasOnlySafeEnv,
  literalReach,
  matchesText,
  rawTextMayMatch,
  rawTokens,
  strictMatchesUnit,
  type CompiledRule
} from "./bashRules.js"
import { criticalRemoval, type CriticalContext } from "./critical.js"
import { unitGuards } from "./guards.js"
import { escapeForDisplay } from "./hygiene.js"
import { ensureShellParser } from "./parser.js"
import { ACCEPT_EDITS_COMMANDS, FILE_WRITERS, filePaths } from "./pathArgs.js"
import { globBase, resolvePathWord, type Dirs } from "./paths.js"
import { readOnlyVerdict, readPathOperands } from "./readOnly.js"
import { suggestRules } from "./suggest.js"
import type { BashCheckContext, BashVerdict, PathVerdict } from "./types.js"
import type { Analysis, Unit } from "./units.js"
import { redirectIsFdDup } from "./units.js"
import type { RedirectFacts } from "./walk.js"
import type { WordFacts } from "./words.js"
import { commandKey } from "./wrappers.js"

export const DEFAULT_ASK_MESSAGE = "Claude requested permissions to use Bash, but you haven't granted it yet."

export const denyMessage = (command: string): string => `Permission to use Bash with command ${escapeForDisplay(command)} has been denied.`

export const askRuleMessage = (rule: PermissionRule): string => `Permission rule '${rule.raw}' from ${rule.source} requires approval for this Bash command`

export const compoundMessage = (parts: ReadonlyArray<string>): string =>
  `This Bash command contains multiple operations. The following part${parts.length === 1 ? "" : "s"} require${parts.length === 1 ? "s" : ""} approval: ${parts.map(escapeForDisplay).join(", ")}`

type Approval =
  | { readonly kind: "rule"; readonly rule: PermissionRule }
  | { readonly kind: "readOnly"; readonly detail: string }
  | { readonly kind: "mode"; readonly detail: string }
  | { readonly kind: "structure"; readonly detail: string }

interface Ask {
  /** Lower is shown first. */
  readonly priority: number
  readonly message: string
  readonly reason: DecisionReason
  /** Survives bypassPermissions too (ask rules, critical paths). */
  readonly always: boolean
  readonly unit?: number
}

interface Deny {
  readonly message: string
  readonly reason: DecisionReason
  readonly unit?: number
}

// Which ask is reported when several apply: critical paths, then shell-security §3.1 step 5 order.
const PRIORITY = { critical: 0, complex: 1, askRule: 2, guard: 3, path: 4, plan: 5 } as const

/** Output redirection ops; `<` reads, heredocs and herestrings are inputs. */
const isOutputRedirect = (op: string): boolean => op !== "<" && op !== "<<" && op !== "<<-" && op !== "<<<" && op !== "<&"
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty"])

/** The trailing word xargs and find -exec add for their run-time arguments (not a shell value). */
const RUNTIME_ARGS_WORD = (unit: Unit): WordFacts | undefined => (unit.runtimeArgs === true ? unit.words[unit.words.length - 1] : undefined)

const keyOf = (unit: Unit): string => (typeof unit.argv[0] === "string" ? commandKey(unit.argv[0]) : "")

const isCd = (unit: Unit): boolean => {
  const key = keyOf(unit)
  return key === "cd" || key === "pushd" || key === "popd"
}

/** Where a cd goes: an absolute path, or null when only known at run time. */
const cdTarget = (unit: Unit, cwd: string, home: string): string | null => {
  if (keyOf(unit) !== "cd") return null
  const operands = unit.words.slice(1).filter((w) => w.value !== "-L" && w.value !== "-P" && w.value !== "-e" && w.value !== "-@" && w.value !== "--")
  if (operands.length === 0) return home
  if (operands.length > 1) return null
  const word = operands[0]!
  if (word.value === "-") return null
  const resolved = resolvePathWord(word, [cwd], home)
  return resolved.ok ? resolved.paths[0]! : null
}

export const checkBashCommand = (command: string, ctx: BashCheckContext): Effect.Effect<BashVerdict> =>
  Effect.flatMap(ensureShellParser, () => Effect.sync(() => decideBash(command, ctx)))

/** The verdict for one command; synchronous, the parser must be loaded (`ensureShellParser`). */
export const decideBash = (command: string, ctx: BashCheckContext): BashVerdict => {
  const analysis = analyzeSync(command)
  const rules = compileRules(ctx.rules)
  const denyRules = rules.filter((r) => r.rule.behavior === "deny")
  const askRules = rules.filter((r) => r.rule.behavior === "ask")
  const allowRules = rules.filter((r) => r.rule.behavior === "allow")
  const units = analysis.units
  const home = os.homedir()
  const cwd = path.resolve(ctx.cwd)
  const workingDirs = ctx.workingDirectories.length > 0 ? ctx.workingDirectories.map((d) => path.resolve(d)) : [cwd]
  const bypass = ctx.mode === "bypassPermissions"

  // ---- a. deny ------------------------------------------------------------------------------
  // The first deny decides; the rest of the evaluation still runs so that every subcommand gets
  // its own verdict for the explainer.
  let deny: Deny | undefined = findRuleDeny(command, analysis, denyRules)

  const asks: Array<Ask> = []
  const unitAsks = new Map<number, Array<string>>()
  const noteUnitAsk = (index: number | undefined, text: string) => {
    if (index === undefined) return
    const list = unitAsks.get(index) ?? []
    if (!list.includes(text)) list.push(text)
    unitAsks.set(index, list)
  }
  const addAsk = (ask: Ask) => {
    asks.push(ask)
    noteUnitAsk(ask.unit, ask.message)
  }

  // A deny or ask rule that a value only known at run time could make match: ask.
  const denyAndAsk = [...denyRules, ...askRules]
  units.forEach((unit, index) => {
    for (const { rule, pattern } of denyAndAsk) {
      const match = strictMatchesUnit(pattern, unit)
      if (match === "possible" || (match === "match" && rule.behavior === "ask")) {
        addAsk({ priority: PRIORITY.askRule, message: askRuleMessage(rule), reason: { type: "rule", rule }, always: true, unit: index })
        return
      }
    }
  })
  for (const { rule, pattern } of askRules) {
    if (matchesText(pattern, command)) {
      addAsk({ priority: PRIORITY.askRule, message: askRuleMessage(rule), reason: { type: "rule", rule }, always: true })
      break
    }
  }

  // cd: where relative paths of later commands point.
  const cdUnits = units.filter(isCd)
  const dirsFor = (unit: Unit): Dirs => {
    const dirs: Array<string | null> = [cwd]
    for (const cd of cdUnits) if (cd.order < unit.order) dirs.push(cdTarget(cd, cwd, home))
    return dirs
  }

  // Path checks, cached per call.
  const writeCache = new Map<string, PathVerdict>()
  const readCache = new Map<string, PathVerdict>()
  const checkWrite = (abs: string): PathVerdict => {
    let verdict = writeCache.get(abs)
    if (verdict === undefined) writeCache.set(abs, (verdict = ctx.checkWritePath(abs)))
    return verdict
  }
  const checkRead = (abs: string): PathVerdict => {
    let verdict = readCache.get(abs)
    if (verdict === undefined) readCache.set(abs, (verdict = ctx.checkReadPath(abs)))
    return verdict
  }
  const withinRead: Within = (abs) => checkRead(abs).within

  const planWriters = new Set<number>()
  // Per unit: the verdicts of its write paths (for acceptEdits), undefined when not all were checkable.
  const writeVerdicts = new Map<number, ReadonlyArray<PathVerdict> | undefined>()

  for (let index = 0; index < units.length; index++) {
    const unit = units[index]!
    const dirs = dirsFor(unit)
    // Redirections.
    for (const redirect of unit.redirects as ReadonlyArray<RedirectFacts>) {
      if (redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<" || redirectIsFdDup(redirect)) continue
      const output = isOutputRedirect(redirect.op)
      const facts = redirect.facts
      const target = facts.value
      if (typeof target === "string" && (HARMLESS_TARGETS.has(target) || /^\/dev\/fd\/\d+$/.test(target))) continue
      if (typeof target === "string" && /^\/dev\/(?:tcp|udp)\//.test(target)) {
        addAsk({ priority: PRIORITY.guard, message: guardMessage(`a network connection through ${target}`), reason: safety(`network redirect ${target}`), always: false, unit: index })
        continue
      }
      if (output && ctx.mode === "plan") planWriters.add(index)
      const problem =
        typeof target !== "string"
          ? `a redirection to ${facts.raw}, only known at run time`
          : facts.tilde || target.startsWith("~")
            ? `a redirection to ${target} (a path starting with ~)`
            : facts.unquotedGlob
              ? `a redirection to ${target} (a glob)`
              : undefined
      if (problem !== undefined) {
        if (output) addAsk({ priority: PRIORITY.guard, message: guardMessage(problem), reason: safety(problem), always: false, unit: index })
        continue
      }
      const resolved = resolvePathWord(facts, dirs, home)
      if (!resolved.ok) {
        if (output) addAsk({ priority: PRIORITY.guard, message: guardMessage(`a redirection after a change of directory (${resolved.reason})`), reason: safety(resolved.reason), always: false, unit: index })
        continue
      }
      for (const abs of resolved.paths) {
        const verdict = output ? checkWrite(abs) : checkRead(abs)
        if (verdict.behavior === "deny") deny ??= pathDeny(abs, output, verdict, index)
        if (verdict.behavior === "ask" && (output || verdict.rule !== undefined)) {
          addAsk({
            priority: PRIORITY.path,
            message: output ? `Claude requested permissions to write to ${abs}, but you haven't granted it yet.` : `Claude requested permissions to read from ${abs}, but you haven't granted it yet.`,
            reason: verdict.rule !== undefined ? { type: "rule", rule: verdict.rule } : { type: "workingDirectory", detail: verdict.reason },
            always: verdict.rule !== undefined && verdict.rule.behavior === "ask",
            unit: index
          })
        }
      }
    }
    // Path arguments of file commands.
    const files = filePaths(unit)
    const ro = readOnlyVerdict(unit)
    const readArgs = readPathOperands(unit) ?? []
    const reads: Array<WordFacts> = [...(files?.reads ?? []), ...readArgs, ...(ro.readOnly ? ro.paths.filter((p) => !(files?.writes ?? []).includes(p)) : [])]
    for (const word of reads) {
      if (typeof word.value !== "string" || word.procSub) continue
      const resolved = resolvePathWord(word, dirs, home)
      if (!resolved.ok) continue
      for (const abs of resolved.paths) {
        const verdict = checkRead(abs)
        if (verdict.behavior === "deny") deny ??= pathDeny(abs, false, verdict, index)
        if (verdict.behavior === "ask" && verdict.rule !== undefined) {
          addAsk({ priority: PRIORITY.askRule, message: askRuleMessage(verdict.rule), reason: { type: "rule", rule: verdict.rule }, always: true, unit: index })
        }
      }
    }
    {
      // A file path only known when the command runs escapes the Read/Edit deny rules.
      const unknown = [...reads, ...(files?.writes ?? [])].find((w) => typeof w.value !== "string" && !w.procSub && w !== RUNTIME_ARGS_WORD(unit))
      if (unknown !== undefined) {
        addAsk({ priority: PRIORITY.guard, message: guardMessage(`the file path ${unknown.raw}, only known at run time`), reason: safety("a dynamic file path"), always: false, unit: index })
      }
    }
    if (files !== undefined && files.writes.length > 0) {
      if (ctx.mode === "plan") planWriters.add(index)
      const verdicts: Array<PathVerdict> = []
      let checkable = true
      for (const word of files.writes) {
        const resolved = resolvePathWord(word, dirs, home)
        if (!resolved.ok) {
          checkable = false
          continue
        }
        for (const abs of resolved.paths) {
          // Shell file commands may only write inside the working directories, never protected paths:
          // judged on every name of the path (symlinks resolved), the stricter wins.
          const verdict = checkWrite(abs)
          const scope = word.unquotedGlob ? checkWrite(globBase(abs)?.base ?? abs) : verdict
          const sensitive =
            verdict.protectedName !== undefined
              ? `${abs} is protected (${verdict.protectedName})`
              : scope.within
                ? undefined
                : `${abs} is outside the working directories`
          if (sensitive !== undefined) {
            addAsk({ priority: PRIORITY.path, message: guardMessage(`${keyOf(unit)} writes ${sensitive.replace(`${abs} is `, `${abs}, which is `)}`), reason: safety(sensitive), always: false, unit: index })
          }
          if (verdict.behavior === "deny") deny ??= pathDeny(abs, true, verdict, index)
          if (verdict.behavior === "ask" && verdict.rule !== undefined) {
            addAsk({ priority: PRIORITY.askRule, message: askRuleMessage(verdict.rule), reason: { type: "rule", rule: verdict.rule }, always: true, unit: index })
          }
          verdicts.push(verdict)
        }
      }
      writeVerdicts.set(index, checkable ? verdicts : undefined)
    } else if (ctx.mode === "plan" && FILE_WRITERS.has(keyOf(unit))) {
      planWriters.add(index)
    }
  }

  // ---- b. critical paths (every mode; only a deny rule is stronger) --------------------------
  const criticalCtx: CriticalContext = { home, cwd, workingDirs }
  units.forEach((unit, index) => {
    const found = criticalRemoval(unit, dirsFor(unit), criticalCtx)
    if (found !== undefined) {
      addAsk({
        priority: PRIORITY.critical,
        message: `This command removes a critical path: ${escapeForDisplay(found)}. It always requires approval.`,
        reason: safety(`critical path ${found}`),
        always: true,
        unit: index
      })
    }
  })
  if (analysis.complexReasons.length > 0 && rawTokens(command).some((t) => t === "rm" || t === "rmdir" || t.endsWith("/rm") || t.endsWith("/rmdir"))) {
    addAsk({
      priority: PRIORITY.critical,
      message: "This command could not be fully analysed and may remove files. It always requires approval.",
      reason: safety("an unanalysable command that may run rm"),
      always: true
    })
  }

  // ---- c. too complex ------------------------------------------------------------------------
  if (analysis.complexReasons.length > 0) {
    const detail = analysis.complexReasons.join("; ")
    addAsk({
      priority: PRIORITY.complex,
      message: `This Bash command requires approval because it could not be fully analysed: ${escapeForDisplay(detail)}.`,
      reason: safety(`too complex: ${detail}`),
      always: false
    })
  } else if (units.length === 0) {
    addAsk({ priority: PRIORITY.complex, message: DEFAULT_ASK_MESSAGE, reason: { type: "default", detail: "the command runs nothing that could be checked" }, always: false })
  }

  // ---- d. guards -----------------------------------------------------------------------------
  const guardsByUnit = units.map((unit) => unitGuards(unit))
  if (cdUnits.length > 1) addAsk({ priority: PRIORITY.guard, message: guardMessage("more than one change of directory"), reason: safety("more than one cd"), always: false })
  if (cdUnits.length > 0 && units.some((u) => keyOf(u) === "git")) {
    const elsewhere = cdUnits.some((cd) => cdTarget(cd, cwd, home) !== cwd)
    if (elsewhere) addAsk({ priority: PRIORITY.guard, message: guardMessage("a change of directory combined with git (a repository there can run programs)"), reason: safety("cd + git"), always: false })
  }

  // ---- e. approvals --------------------------------------------------------------------------
  const approvals = new Map<number, Approval>()
  const envGuardWaived = new Set<number>()
  const findAllow = (unit: Unit, withEnv: boolean): CompiledRule | undefined => allowRules.find(({ pattern }) => allowMatchesUnit(pattern, unit, withEnv))

  const approve = (index: number): Approval | undefined => {
    const known = approvals.get(index)
    if (known !== undefined) return known
    const unit = units[index]!
    let approval: Approval | undefined
    const direct = findAllow(unit, false)
    if (direct !== undefined && hasOnlySafeEnv(unit)) approval = { kind: "rule", rule: direct.rule }
    if (approval === undefined && unit.env.length > 0) {
      const spelled = findAllow(unit, true)
      if (spelled !== undefined) {
        approval = { kind: "rule", rule: spelled.rule }
        envGuardWaived.add(index)
      }
    }
    if (approval === undefined && unit.parent !== undefined) {
      const parentApproval = approve(unit.parent)
      if (parentApproval?.kind === "rule") {
        const parent = units[unit.parent]!
        const pattern = allowRules.find((r) => r.rule === parentApproval.rule)?.pattern
        // An exact rule approved the whole wrapper text; a prefix rule must reach into the inner command.
        const offset = pattern?.kind === "exact" ? 0 : innerOffset(parent, unit)
        if (pattern !== undefined && offset !== undefined && literalReach(pattern) > offset) approval = parentApproval
      }
    }
    if (approval !== undefined) approvals.set(index, approval)
    return approval
  }

  for (let index = 0; index < units.length; index++) {
    const unit = units[index]!
    if (unit.role === "transparent" || unit.role === "nested-shell" || unit.role === "assignment" || unit.role === "redirect-only" || unit.role === "test") {
      approvals.set(index, { kind: "structure", detail: structureDetail(unit) })
      continue
    }
    if (approve(index) !== undefined) continue
    const guards = guardsByUnit[index]!
    if (hasOnlySafeEnv(unit) && guards.length === 0) {
      const ro = readOnlyVerdict(unit)
      if (ro.readOnly) {
        // Files read through `<` count as read paths too (`cat < ~/.ssh/id_rsa`).
        const inputs = (unit.redirects as ReadonlyArray<RedirectFacts>).filter((r) => r.op === "<" || r.op === "<>").map((r) => r.facts)
        const paths = ro.isCd === true ? [cdOperand(unit)] : [...ro.paths, ...inputs]
        const inside = readOnlyPathsInside(paths, dirsFor(unit), home, withinRead, ro.isCd === true)
        if (inside) {
          approvals.set(index, { kind: "readOnly", detail: ro.isCd === true ? "cd inside the working directories" : `${keyOf(unit)} is a read-only command` })
          continue
        }
      }
      if (ctx.mode === "acceptEdits" && acceptEditsApproves(unit, writeVerdicts.get(index), dirsFor(unit), home, withinRead)) {
        approvals.set(index, { kind: "mode", detail: `${unit.argv[0] as string} inside the working directories` })
      }
    }
  }

  units.forEach((unit, index) => {
    for (const guard of guardsByUnit[index]!) {
      if (envGuardWaived.has(index) && guard.startsWith("the environment variable")) continue
      addAsk({ priority: PRIORITY.guard, message: guardMessage(guard), reason: safety(guard), always: false, unit: index })
    }
  })

  for (const index of planWriters) {
    addAsk({
      priority: PRIORITY.plan,
      message: "This Bash command writes files, which requires approval in plan mode.",
      reason: { type: "mode", mode: "plan", detail: "shell writes prompt in plan mode" },
      always: false,
      unit: index
    })
  }

  return finish(analysis, deny, asks, approvals, bypass, unitAsks)
}

// ---------------------------------------------------------------------------------------------

const safety = (detail: string): DecisionReason => ({ type: "safetyCheck", detail })

const guardMessage = (detail: string): string => `This Bash command requires approval: ${escapeForDisplay(detail)}.`

const structureDetail = (unit: Unit): string => {
  switch (unit.role) {
    case "transparent":
      return "a wrapper; the command inside is checked on its own"
    case "nested-shell":
      return "a nested shell; its commands are checked on their own"
    case "assignment":
      return "a variable assignment"
    case "redirect-only":
      return "redirections only"
    default:
      return "a test expression"
  }
}

const findRuleDeny = (command: string, analysis: Analysis, denyRules: ReadonlyArray<CompiledRule>): Deny | undefined => {
  for (let index = 0; index < analysis.units.length; index++) {
    const unit = analysis.units[index]!
    for (const { rule, pattern } of denyRules) {
      if (strictMatchesUnit(pattern, unit) === "match") return { message: denyMessage(command), reason: { type: "rule", rule }, unit: index }
    }
  }
  for (const { rule, pattern } of denyRules) {
    if (matchesText(pattern, command)) return { message: denyMessage(command), reason: { type: "rule", rule } }
  }
  if (analysis.rawScan) {
    const tokens = rawTokens(command)
    for (const { rule, pattern } of denyRules) {
      if (rawTextMayMatch(pattern, tokens)) return { message: denyMessage(command), reason: { type: "rule", rule } }
    }
  }
  return undefined
}

const pathDeny = (abs: string, write: boolean, verdict: PathVerdict, unit: number): Deny => ({
  message: write ? `Permission to edit ${abs} has been denied.` : `Permission to read ${abs} has been denied.`,
  reason: verdict.rule !== undefined ? { type: "rule", rule: verdict.rule } : safety(verdict.reason),
  unit
})

/** Where the inner command starts in its wrapper's argv (undefined: not a plain suffix, e.g. a nested shell). */
const innerOffset = (parent: Unit, inner: Unit): number | undefined => {
  if (inner.origin !== "wrapper-inner") return undefined
  const innerLength = inner.argv.length - (inner.runtimeArgs === true && parent.runtimeArgs !== true ? 1 : 0)
  const offset = parent.argv.length - innerLength
  if (offset <= 0) return undefined
  for (let i = 0; i < innerLength; i++) if (parent.words[offset + i]?.raw !== inner.words[i]?.raw) return undefined
  return offset
}

const cdOperand = (unit: Unit): WordFacts => {
  const operands = unit.words.slice(1).filter((w) => w.value !== "-L" && w.value !== "-P" && w.value !== "--")
  return operands[0] ?? { ...unit.words[0]!, value: "~", raw: "~", tilde: true }
}

/** Is every name of the path (symlinks resolved) inside the working directories? */
type Within = (absolutePath: string) => boolean

const readOnlyPathsInside = (paths: ReadonlyArray<WordFacts>, dirs: Dirs, home: string, within: Within, cd: boolean): boolean => {
  for (const word of paths) {
    if (word.procSub) continue
    if (typeof word.value !== "string") return false
    if (word.value === "-") {
      if (cd) return false
      continue
    }
    const resolved = resolvePathWord(word, dirs, home)
    if (!resolved.ok) return false
    for (const abs of resolved.paths) {
      const target = word.unquotedGlob ? (globBase(abs)?.base ?? abs) : abs
      if (!within(target)) return false
    }
  }
  return true
}

/** acceptEdits: the command is one of the listed file commands and every path it writes was allowed. */
const acceptEditsApproves = (
  unit: Unit,
  verdicts: ReadonlyArray<PathVerdict> | undefined,
  dirs: Dirs,
  home: string,
  within: Within
): boolean => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string" || !ACCEPT_EDITS_COMMANDS.has(argv0)) return false
  if (verdicts === undefined || verdicts.length === 0) return false
  const files = filePaths(unit)
  if (files === undefined) return false
  const key = argv0
  for (const word of [...files.writes, ...files.reads]) {
    if (typeof word.value !== "string" || word.tilde) return false
    if (word.unquotedGlob) {
      // A glob may only stand in the last component of rm/rmdir/touch/mkdir operands.
      if (key !== "rm" && key !== "rmdir" && key !== "touch" && key !== "mkdir") return false
      const lastSlash = word.value.lastIndexOf("/")
      if (/[*?[]/.test(word.value.slice(0, lastSlash + 1))) return false
    }
  }
  // Sources of cp are reads: they must be inside the working directories as well.
  if (!readOnlyPathsInside(files.reads, dirs, home, within, false)) return false
  return verdicts.every((v) => v.behavior === "allow")
}

const finish = (
  analysis: Analysis,
  deny: Deny | undefined,
  asks: ReadonlyArray<Ask>,
  approvals: ReadonlyMap<number, Approval>,
  bypass: boolean,
  unitAsks: ReadonlyMap<number, ReadonlyArray<string>> = new Map()
): BashVerdict => {
  const units = analysis.units
  const subcommands: Array<SubcommandVerdict> = units.map((unit, index) => {
    if (deny !== undefined && deny.unit === index) {
      return deny.reason.type === "rule"
        ? { command: unit.text, behavior: "deny", reason: deny.message, rule: deny.reason.rule }
        : { command: unit.text, behavior: "deny", reason: deny.message }
    }
    const own = unitAsks.get(index)
    if (own !== undefined && own.length > 0) return { command: unit.text, behavior: "ask", reason: own.join(" ") }
    const approval = approvals.get(index)
    if (approval === undefined) return { command: unit.text, behavior: "ask", reason: "no rule allows it, it is not read-only and the mode does not approve it" }
    switch (approval.kind) {
      case "rule":
        return { command: unit.text, behavior: "allow", reason: `allowed by ${approval.rule.raw} from ${approval.rule.source}`, rule: approval.rule }
      case "readOnly":
        return { command: unit.text, behavior: "allow", reason: approval.detail }
      case "mode":
        return { command: unit.text, behavior: "allow", reason: `acceptEdits: ${approval.detail}` }
      case "structure":
        return { command: unit.text, behavior: "allow", reason: approval.detail }
    }
  })

  if (deny !== undefined) {
    return { behavior: "deny", message: deny.message, reason: deny.reason, forced: false, subcommands, suggestions: [] }
  }

  if (asks.length > 0) {
    const first = [...asks].sort((a, b) => a.priority - b.priority)[0]!
    const forced = asks.some((a) => a.always) || !bypass
    return { behavior: "ask", message: first.message, reason: first.reason, forced, subcommands, suggestions: [] }
  }

  const unapproved = units.map((u, i) => [u, i] as const).filter(([, i]) => !approvals.has(i))
  if (unapproved.length > 0) {
    const parts = unapproved.map(([u]) => u.text)
    const commandUnits = units.filter((u) => u.argv.length > 0 && (u.role === "plain" || u.role === "exec"))
    const message = commandUnits.length > 1 ? compoundMessage(parts) : DEFAULT_ASK_MESSAGE
    return {
      behavior: "ask",
      message,
      reason: { type: "default", detail: `no rule allows ${parts.map(escapeForDisplay).join(", ")}` },
      forced: false,
      subcommands,
      suggestions: suggestRules(unapproved.map(([u]) => u))
    }
  }

  const values = [...approvals.values()]
  const byRule = values.find((a) => a.kind === "rule")
  const byMode = values.find((a) => a.kind === "mode")
  const reason: DecisionReason =
    byRule?.kind === "rule"
      ? { type: "rule", rule: byRule.rule }
      : byMode?.kind === "mode"
        ? { type: "mode", mode: "acceptEdits", detail: byMode.detail }
        : { type: "readOnly", detail: values.find((a) => a.kind === "readOnly")?.detail ?? "nothing in the command needs approval" }
  return { behavior: "allow", message: "", reason, forced: false, subcommands, suggestions: [] }
}
