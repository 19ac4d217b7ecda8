/**
 * The Bash permission check (rules, read-only commands,
 * modes, critical paths). Decision order: deny (rules on every visible unit and the whole text, a raw-text scan
 * when parsing failed, Read/Edit path denials) → critical paths → too complex → ask rules →
 * guards → allow only if every unit is allowed by a rule, read-only or approved by the mode →
 * otherwise ask.
 */
import * as os from "node:os"
import * as path from "node:path"
import * as Permission from "../../Permission.js"
import type { DecisionReason, PermissionRule, SubcommandVerdict } from "../../Permission.js"
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
import * as M from "./messages.js"
import { leavesExpansionOpen } from "./unterminated.js"
import { escapedWhitespace } from "./escapedWhitespace.js"
import { BACKGROUND_RANK, SYNTAX_ERROR } from "./walk.js"
import { isAgentConfigPath } from "../../ProtectedPaths.js"
import { AWK_SYSTEM, unitGuards } from "./guards.js"
import { escapeForDisplay } from "./hygiene.js"
import { ACCEPT_EDITS_COMMANDS, FILE_WRITERS, filePaths } from "./pathArgs.js"
import { globBase, globMatches, resolvePathWord, TREE_CHANGED, type Dirs } from "./paths.js"
import { repositoryTrust } from "./gitRepository.js"
import { firstFindAction } from "./options/find.js"
import { jqReading } from "./options/jq.js"
import { mattersOnlyUnderDenyRules } from "./options/paths.js"
import { readsRecursively } from "./recursiveReads.js"
import { optionLikeGlobs, readOnlyVerdict, readPathOperands } from "./readOnly.js"
import { parseSedArgs } from "./sedScript.js"
import { suggestRules } from "./suggest.js"
import type { BashCheckContext, PathVerdict } from "./types.js"
import type { Analysis, Unit } from "./units.js"
import { redirectIsFdDup } from "./units.js"
import type { RedirectFacts } from "./walk.js"
import type { WordFacts } from "./words.js"
import { commandKey, runsCommandText } from "./wrappers.js"

type Approval =
  | { readonly kind: "rule"; readonly rule: PermissionRule }
  | { readonly kind: "readOnly"; readonly detail: string }
  | { readonly kind: "mode"; readonly detail: string }
  | { readonly kind: "structure"; readonly detail: string }

/**
 * How strong an ask is: `always` survives everything but a deny (ask rules, critical paths);
 * `protected` survives a tool-wide Bash allow rule but not bypassPermissions; `guarded` yields
 * to a tool-wide Bash allow rule and bypassPermissions, never to a hook's allow.
 */
type AskLevel = "always" | "protected" | "guarded"

interface Ask {
  /** Lower is shown first. */
  readonly priority: number
  readonly level: AskLevel
  /** Claude Code's text for this concern. */
  readonly message: string
  /** Our own words, for the explainer. */
  readonly detail: string
  readonly reason: DecisionReason
  readonly unit?: number
  /** The message names this unit's own concern (a path, an option); otherwise it is generic. */
  readonly specific?: boolean
}

interface Deny {
  readonly message: string
  readonly reason: DecisionReason
  readonly unit?: number
}

// Which ask is reported when several apply: critical paths, then the order of the checks below.
const PRIORITY = { critical: 0, askRule: 1, protected: 2, complex: 3, guard: 4, path: 5 } as const

/** File commands Claude Code names with their path when they need approval. */
const NAMED_WRITERS: ReadonlySet<string> = new Set(["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed", "tee"])

/** A path as Claude Code shows it: absolute as written, relative resolved (`~` expanded). */
const shownPath = (word: WordFacts, resolved: string): string =>
  typeof word.value === "string" && word.value.startsWith("/") && !word.tilde ? word.value : resolved

/** The first argument that does not look like an option: the path Claude Code names. */
const naiveOperand = (unit: Unit): WordFacts | undefined =>
  unit.words.slice(1).find((w) => typeof w.value === "string" && w.value !== "" && !w.value.startsWith("-"))

/** Output redirection ops; `<` reads, heredocs and herestrings are inputs. */
const isOutputRedirect = (op: string): boolean =>
  op !== "<" && op !== "<<" && op !== "<<-" && op !== "<<<" && op !== "<&"
const HARMLESS_TARGETS = new Set(["/dev/null"])

/** The trailing word xargs and find -exec add for their run-time arguments (not a shell value). */
const RUNTIME_ARGS_WORD = (
  unit: Unit
): WordFacts | undefined => (unit.runtimeArgs === true ? unit.words[unit.words.length - 1] : undefined)

const keyOf = (unit: Unit): string => (typeof unit.argv[0] === "string" ? commandKey(unit.argv[0]) : "")

/** Commands that write but can neither make a link nor move a path: a path through the tree stays where it led. */
const CANNOT_LINK: ReadonlySet<string> = new Set([
  "mkdir",
  "touch",
  "rm",
  "rmdir",
  "unlink",
  "tee",
  "truncate",
  "chmod",
  "chgrp",
  "chown",
  "sed",
  "shred"
])

/**
 * May this part change the file tree? Anything that is not a read-only command, a cd, a wrapper
 * or a plain structure (an assignment, a test, redirections alone) might make a symlink or
 * rename a directory that a path of another part goes through.
 */
const mayChangeTree = (unit: Unit): boolean => {
  if (unit.argv.length === 0 || unit.role !== "plain" || isCd(unit)) return false
  if (CANNOT_LINK.has(keyOf(unit))) return false
  if (unit.runtimeArgs === true) {
    // xargs/find -exec: judged without the arguments they add (file names, not options, for this question).
    const { runtimeArgs: _, ...rest } = unit
    return !readOnlyVerdict({ ...rest, argv: unit.argv.slice(0, -1), words: unit.words.slice(0, -1) }).readOnly
  }
  return !readOnlyVerdict(unit).readOnly
}

const isCd = (unit: Unit): boolean => {
  const key = keyOf(unit)
  return key === "cd" || key === "pushd" || key === "popd"
}

/** Where a cd goes: an absolute path, or null when only known at run time. */
const cdTarget = (unit: Unit, cwd: string, home: string): string | null => {
  if (keyOf(unit) !== "cd") return null
  const operands = unit.words.slice(1).filter((w) =>
    w.value !== "-L" && w.value !== "-P" && w.value !== "-e" && w.value !== "-@" && w.value !== "--"
  )
  if (operands.length === 0) return home
  if (operands.length > 1) return null
  const word = operands[0]!
  if (word.value === "-") return null
  const resolved = resolvePathWord(word, [cwd], home)
  return resolved.ok ? resolved.paths[0]! : null
}

/** The verdict for one analysed command (see analyze.ts). */
export const decideBash = (analysis: Analysis, ctx: BashCheckContext): Permission.Decision => {
  const command = analysis.command
  const rules = compileRules(ctx.rules)
  const denyRules = rules.filter((r) => r.rule.behavior === "deny")
  const askRules = rules.filter((r) => r.rule.behavior === "ask")
  const allowRules = rules.filter((r) => r.rule.behavior === "allow")
  const units = analysis.units
  const home = os.homedir()
  const cwd = path.resolve(ctx.cwd)
  const workingDirs = ctx.workingDirectories.length > 0 ? ctx.workingDirectories.map((d) => path.resolve(d)) : [cwd]

  // ---- a. deny ------------------------------------------------------------------------------
  // The first deny decides; the rest of the evaluation still runs so that every subcommand gets
  // its own verdict for the explainer.
  let deny: Deny | undefined = findRuleDeny(command, analysis, denyRules)

  const asks: Array<Ask> = []
  const unitAsks = new Map<number, Array<string>>()
  const addAsk = (ask: Ask) => {
    asks.push(ask)
    if (ask.unit === undefined) return
    const list = unitAsks.get(ask.unit) ?? []
    if (!list.includes(ask.detail)) list.push(ask.detail)
    unitAsks.set(ask.unit, list)
  }
  const ruleAsk = (rule: PermissionRule, unit?: number): Ask => ({
    priority: PRIORITY.askRule,
    level: "always",
    message: M.TOOL_ASK,
    detail: `ask rule '${rule.raw}' from ${rule.source}`,
    reason: { type: "rule", rule },
    ...(unit === undefined ? {} : { unit })
  })
  /** An ask a tool-wide Bash allow rule or bypassPermissions may skip (a hook allow may not). */
  const guarded = (priority: number, message: string, detail: string, unit?: number, specific = true): Ask => ({
    priority,
    level: "guarded",
    message,
    detail,
    reason: safety(detail),
    specific,
    ...(unit === undefined ? {} : { unit })
  })

  // A deny or ask rule that a value only known at run time could make match: ask.
  const denyAndAsk = [...denyRules, ...askRules]
  units.forEach((unit, index) => {
    // A shell or runner given command text only known at run time could run anything a rule names.
    const hidden = typeof unit.argv[0] === "string" && runsCommandText(commandKey(unit.argv[0])) &&
      unit.words.slice(1).some((w) => typeof w.value !== "string" && !w.procSub)
    for (const { rule, pattern } of denyAndAsk) {
      const match = hidden ? "possible" : strictMatchesUnit(pattern, unit)
      if (match === "possible" || (match === "match" && rule.behavior === "ask")) {
        addAsk(ruleAsk(rule, index))
        return
      }
    }
  })
  for (const { rule, pattern } of askRules) {
    if (matchesText(pattern, command)) {
      addAsk(ruleAsk(rule))
      break
    }
  }

  // cd: where relative paths of later commands point.
  const cdUnits = units.filter(isCd)
  // Parts that may change the file tree (a symlink made, a directory renamed) before or while another runs.
  const changers = units.filter(mayChangeTree)
  const concurrent = /(?:^|[^&|>])&(?![&>])/.test(command)
  const dirsFor = (unit: Unit): Dirs => {
    const dirs: Array<string | null | typeof TREE_CHANGED> = [cwd]
    for (const cd of cdUnits) if (cd.order < unit.order) dirs.push(cdTarget(cd, cwd, home))
    const changed = changers.some((c) =>
      c !== unit && c.parent !== units.indexOf(unit) &&
      (c.order < unit.order || concurrent || (c.piped === true && unit.piped === true))
    )
    if (changed) dirs.push(TREE_CHANGED)
    return dirs
  }

  // Path checks, cached per call.
  const writeCache = new Map<string, PathVerdict>()
  const readCache = new Map<string, PathVerdict>()
  const checkWrite = (abs: string): PathVerdict => {
    let verdict = writeCache.get(abs)
    if (verdict === undefined) writeCache.set(abs, verdict = ctx.checkWritePath(abs))
    return verdict
  }
  const checkRead = (abs: string): PathVerdict => {
    let verdict = readCache.get(abs)
    if (verdict === undefined) readCache.set(abs, verdict = ctx.checkReadPath(abs))
    return verdict
  }
  const withinRead: Within = (abs) => checkRead(abs).within
  /** A write to a protected path: only bypassPermissions skips it (a tool-wide allow does not). */
  const protectedAsk = (abs: string, verdict: PathVerdict, unit: number): Ask => ({
    priority: PRIORITY.protected,
    level: "protected",
    message: isAgentConfigPath(abs) ? M.writeTo(abs) : M.sensitiveFile(abs),
    detail: `${abs} is protected (${verdict.protectedName})`,
    reason: safety(`${abs} is protected (${verdict.protectedName})`),
    unit
  })

  const strictPaths = ctx.pathDenyRules === true
  const dotglob = /dotglob|GLOBIGNORE/.test(command)
  /** A path that cannot be checked while Read/Edit deny rules exist: nothing but a person may approve it. */
  const unchecked = (detail: string, unit: number): Ask => ({
    priority: PRIORITY.guard,
    level: "always",
    message: M.expansionAsk(expansionReasons(analysis)) ?? M.GENERIC_ASK,
    detail: `${detail}, while deny rules name paths`,
    reason: safety(`${detail}: a deny rule could cover it`),
    unit
  })
  /** Every file a path word names: itself, or the existing files its glob matches (a glob over directories asks under deny rules). */
  const namesOf = (word: WordFacts, abs: string, unit: number): ReadonlyArray<string> => {
    if (!word.unquotedGlob) return [abs]
    const matches = globMatches(abs, dotglob)
    if (matches === undefined && strictPaths) addAsk(unchecked(`the glob ${word.raw} over directories`, unit))
    return [abs, ...(matches ?? [])]
  }

  // Per unit: the verdicts of its write paths (for acceptEdits), undefined when not all were checkable.
  const writeVerdicts = new Map<number, ReadonlyArray<PathVerdict> | undefined>()
  // Per unit: what to say when it is the one part that needs approval and nothing more specific applies.
  const unitMessages = new Map<number, string>()
  let writes = false

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
      if (output) writes = true
      if (typeof target === "string" && /^\/dev\/(?:tcp|udp)\//.test(target)) {
        addAsk(guarded(PRIORITY.guard, M.GENERIC_ASK, `a network connection through ${target}`, index, false))
        continue
      }
      if (typeof target !== "string") {
        if (output) {
          addAsk(
            guarded(
              PRIORITY.guard,
              M.expansionAsk(expansionReasons(analysis)) ?? M.GENERIC_ASK,
              `a redirection to ${facts.raw}, only known at run time`,
              index
            )
          )
        }
        continue
      }
      if (facts.tilde || target.startsWith("~")) {
        if (output) {
          addAsk(
            guarded(
              PRIORITY.guard,
              M.SHELL_EXPANSION_IN_PATH,
              `a redirection to ${target} (a path starting with ~)`,
              index
            )
          )
        }
        continue
      }
      if (facts.unquotedGlob) {
        if (output) addAsk(guarded(PRIORITY.guard, M.GENERIC_ASK, `a redirection to ${target} (a glob)`, index, false))
        continue
      }
      const resolved = resolvePathWord(facts, dirs, home)
      if (!resolved.ok) {
        if (output) {
          addAsk(
            guarded(
              PRIORITY.guard,
              M.CD_AND_WRITE,
              `a redirection after a change of directory (${resolved.reason})`,
              index
            )
          )
        }
        continue
      }
      for (const abs of resolved.paths) {
        const verdict = output ? checkWrite(abs) : checkRead(abs)
        if (verdict.behavior === "deny") deny ??= pathDeny(command, verdict, index)
        if (verdict.behavior !== "ask") continue
        if (verdict.rule !== undefined) addAsk(ruleAsk(verdict.rule, index))
        else if (output && verdict.protectedName !== undefined) addAsk(protectedAsk(abs, verdict, index))
        else if (output) {
          addAsk(guarded(PRIORITY.path, M.outputRedirection(abs, verdict.within, workingDirs), verdict.reason, index))
        }
      }
    }
    // Path arguments of file commands.
    const files = filePaths(unit)
    const ro = readOnlyVerdict(unit)
    const readArgs = readPathOperands(unit) ?? []
    const reads: Array<WordFacts> = [
      ...(files?.reads ?? []),
      ...readArgs,
      ...(ro.readOnly ? ro.paths.filter((p) => !(files?.writes ?? []).includes(p)) : [])
    ]
    for (const word of reads) {
      if (typeof word.value !== "string" || word.procSub) continue
      const resolved = resolvePathWord(word, dirs, home)
      if (!resolved.ok) {
        if (strictPaths) addAsk(unchecked(`the file path ${word.raw} (${resolved.reason})`, index))
        continue
      }
      for (const abs of resolved.paths) {
        for (const named of namesOf(word, abs, index)) {
          const verdict = checkRead(named)
          if (verdict.behavior === "deny") deny ??= pathDeny(command, verdict, index)
          if (verdict.behavior === "ask" && verdict.rule !== undefined) addAsk(ruleAsk(verdict.rule, index))
        }
      }
    }
    if (strictPaths && readsRecursively(unit)) {
      addAsk(unchecked(`${unit.text} reads every file under a directory`, index))
    }
    {
      // A file path only known when the command runs escapes the Read/Edit deny rules.
      // Run-time arguments (xargs) and pathspec globs reach files only a Read/Edit deny rule could care about.
      const unknown = [...reads, ...(files?.writes ?? [])].find(
        (w) =>
          typeof w.value !== "string" && !w.procSub &&
          (strictPaths || (w !== RUNTIME_ARGS_WORD(unit) && !mattersOnlyUnderDenyRules(w)))
      )
      if (unknown !== undefined) {
        const detail = `the file path ${unknown.raw}, only known at run time`
        addAsk(
          strictPaths
            ? unchecked(detail, index)
            : guarded(PRIORITY.guard, M.expansionAsk(expansionReasons(analysis)) ?? M.GENERIC_ASK, detail, index)
        )
      }
    }
    // A glob that expands to a name starting with `-` hands the program an option (a file named `--from-file=.env`).
    for (const glob of optionLikeGlobs(unit)) {
      // Only the first component can start the word with `-` (`*/x` gives `-f.env/x` only for a directory named so).
      const first = (glob.value as string).split("/")[0]!
      const resolved = resolvePathWord({ ...glob, value: first }, dirs, home)
      const names = resolved.ok ? resolved.paths.map((abs) => globMatches(abs, dotglob)) : [undefined]
      if (names.some((matches) => matches === undefined || matches.some((m) => path.basename(m).startsWith("-")))) {
        addAsk(
          guarded(
            PRIORITY.guard,
            M.GENERIC_ASK,
            `the glob ${glob.raw} expands to a name the program reads as an option`,
            index,
            false
          )
        )
      }
    }
    const key = keyOf(unit)
    if (files !== undefined && files.writes.length > 0) {
      writes = true
      const verdicts: Array<PathVerdict> = []
      let checkable = true
      let outside: string | undefined
      let globbed = false
      for (const word of files.writes) {
        const resolved = resolvePathWord(word, dirs, home)
        if (!resolved.ok) {
          checkable = false
          continue
        }
        if (word.unquotedGlob) globbed = true
        for (const abs of resolved.paths) {
          // Shell file commands may only write inside the working directories, never protected paths:
          // judged on every name of the path (symlinks resolved), the stricter wins.
          const verdict = checkWrite(abs)
          const scope = word.unquotedGlob ? checkWrite(globBase(abs)?.base ?? abs) : verdict
          if (verdict.behavior === "deny") deny ??= pathDeny(command, verdict, index)
          if (word.unquotedGlob) {
            for (const named of namesOf(word, abs, index)) {
              const matched = checkWrite(named)
              if (matched.behavior === "deny") deny ??= pathDeny(command, matched, index)
            }
          }
          if (verdict.protectedName !== undefined) addAsk(protectedAsk(abs, verdict, index))
          else if (!scope.within) outside ??= shownPath(word, abs)
          if (verdict.behavior === "ask" && verdict.rule !== undefined) addAsk(ruleAsk(verdict.rule, index))
          verdicts.push(verdict)
        }
      }
      if (outside !== undefined) {
        const named = NAMED_WRITERS.has(key) ? M.fileCommand(key, outside, false, workingDirs) : M.GENERIC_ASK
        addAsk(
          guarded(
            PRIORITY.path,
            named,
            `${key} writes ${outside}, which is outside the working directories`,
            index,
            NAMED_WRITERS.has(key)
          )
        )
      }
      writeVerdicts.set(index, checkable ? verdicts : undefined)
      if (
        (key === "cp" || key === "mv") &&
        unit.words.slice(1).some((w) => typeof w.value === "string" && w.value.startsWith("-"))
      ) {
        addAsk(guarded(PRIORITY.path, M.withFlags(key), `${key} with options is only approved by a rule`, index))
      }
      // Claude Code names the first operand (as it reads them) when a file command needs approval.
      const first = key === "sed" ? sedFile(unit) : naiveOperand(unit)
      if (globbed && NAMED_WRITERS.has(key)) unitMessages.set(index, M.GLOB_IN_WRITE)
      else if (NAMED_WRITERS.has(key) && first !== undefined) {
        const resolved = resolvePathWord(first, dirs, home)
        if (resolved.ok) {
          unitMessages.set(
            index,
            M.fileCommand(key, shownPath(first, resolved.paths[0]!), checkWrite(resolved.paths[0]!).within, workingDirs)
          )
        }
      }
    } else if (FILE_WRITERS.has(key)) {
      writes = true
    }
  }

  // ---- b. critical paths (every mode; only a deny rule is stronger) --------------------------
  const criticalCtx: CriticalContext = { home, cwd, workingDirs }
  units.forEach((unit, index) => {
    const found = criticalRemoval(unit, dirsFor(unit), criticalCtx)
    if (found === undefined) return
    addAsk({
      priority: PRIORITY.critical,
      level: "always",
      message: found.kind === "dynamic"
        ? (M.expansionAsk(expansionReasons(analysis)) ?? runtimeArgsWrapper(unit, units) ?? M.GENERIC_ASK)
        : M.dangerousRemoval(keyOf(unit) === "rmdir" ? "rmdir" : "rm", found.path, found.kind === "workspace"),
      detail: `removes a critical path: ${found.detail}`,
      reason: safety(`critical path ${found.detail}`),
      unit: index
    })
  })
  if (leavesExpansionOpen(command)) {
    addAsk({
      priority: PRIORITY.critical,
      level: "always",
      message: M.UNSURE_READING,
      detail: "leaves a $ expansion open",
      reason: safety("a $ expansion left open: how the shell reads it is unsure")
    })
  }
  if (
    analysis.complexReasons.length > 0 &&
    rawTokens(command).some((t) => t === "rm" || t === "rmdir" || t.endsWith("/rm") || t.endsWith("/rmdir"))
  ) {
    addAsk({
      priority: PRIORITY.critical,
      level: "always",
      message: M.expansionAsk(expansionReasons(analysis)) ?? M.GENERIC_ASK,
      detail: "could not be fully analysed and may remove files",
      reason: safety("an unanalysable command that may run rm")
    })
  }

  // ---- c. text Claude Code will not read before it runs (bash reads it well) -------------------
  const reading = readingConcern(command, analysis)
  if (reading !== undefined) addAsk(guarded(PRIORITY.complex, reading, "text Claude Code does not read statically"))

  // ---- d. too complex ------------------------------------------------------------------------
  if (analysis.complexReasons.length > 0) {
    const detail = analysis.complexReasons.join("; ")
    addAsk(guarded(PRIORITY.complex, complexMessage(analysis, units, allowRules), `too complex: ${detail}`))
  } else if (units.length === 0) {
    addAsk(guarded(PRIORITY.complex, M.TOOL_ASK, "the command runs nothing that could be checked"))
  }

  // ---- e. guards -----------------------------------------------------------------------------
  const guardsByUnit = units.map((unit) => unitGuards(unit))
  if (cdUnits.length > 0 && writes) {
    addAsk(guarded(PRIORITY.guard, M.CD_AND_WRITE, "a change of directory combined with writes"))
  }
  if (cdUnits.length > 1) addAsk(guarded(PRIORITY.guard, M.GENERIC_ASK, "more than one change of directory"))
  const gitUnit = units.findIndex((u) => keyOf(u) === "git")
  if (gitUnit !== -1) {
    const trust = repositoryTrust(cwd)
    if (!trust.trusted) {
      addAsk(
        guarded(
          PRIORITY.guard,
          M.GENERIC_ASK,
          `a repository whose configuration can run programs: ${trust.reason}`,
          gitUnit,
          false
        )
      )
    }
  }
  if (cdUnits.length > 0 && units.some((u) => keyOf(u) === "git")) {
    const elsewhere = cdUnits.some((cd) => cdTarget(cd, cwd, home) !== cwd)
    if (elsewhere) {
      addAsk(
        guarded(
          PRIORITY.guard,
          M.GENERIC_ASK,
          "a change of directory combined with git (a repository there can run programs)"
        )
      )
    }
  }

  // ---- f. approvals --------------------------------------------------------------------------
  const approvals = new Map<number, Approval>()
  const envGuardWaived = new Set<number>()
  const findAllow = (unit: Unit, withEnv: boolean): CompiledRule | undefined =>
    allowRules.find(({ pattern }) => allowMatchesUnit(pattern, unit, withEnv))

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
    if (
      unit.role === "transparent" || unit.role === "nested-shell" || unit.role === "assignment" ||
      unit.role === "redirect-only" || unit.role === "test"
    ) {
      // Files read through `<` (`$(< f)`, `done < f`) count as reads, as for a read-only command.
      const inputs = inputsOf(unit)
      const outside = inputs.length === 0 ? undefined : firstOutside(inputs, dirsFor(unit), home, withinRead, false)
      if (outside === undefined) approvals.set(index, { kind: "structure", detail: structureDetail(unit) })
      else if (typeof outside === "string") unitMessages.set(index, M.GENERIC_ASK)
      continue
    }
    if (approve(index) !== undefined) continue
    const guards = guardsByUnit[index]!
    if (hasOnlySafeEnv(unit) && guards.length === 0) {
      const ro = readOnlyVerdict(unit)
      // Claude Code approves no command by itself behind a wrapper (`nice ls`, `timeout 5 cat f`).
      if (ro.readOnly && (unit.origin !== "wrapper-inner" || parentIs(units, unit, "builtin"))) {
        // Files read through `<` count as read paths too (`cat < ~/.ssh/id_rsa`).
        const inputs = inputsOf(unit)
        const paths = ro.isCd === true ? [cdOperand(unit)] : [...ro.paths, ...inputs]
        const outside = firstOutside(paths, dirsFor(unit), home, withinRead, ro.isCd === true)
        if (outside === undefined) {
          approvals.set(index, {
            kind: "readOnly",
            detail: ro.isCd === true ? "cd inside the working directories" : `${keyOf(unit)} is a read-only command`
          })
          continue
        }
        // Claude Code names a file read through `<` as an input redirection.
        const fromInput = ro.isCd !== true && typeof outside === "string" &&
          firstOutside(ro.paths, dirsFor(unit), home, withinRead, false) === undefined
        const blocked = typeof outside !== "string"
          ? undefined
          : fromInput
          ? M.inputOutside(outside, workingDirs)
          : M.readOutside(keyOf(unit), outside, workingDirs)
        if (blocked !== undefined) unitMessages.set(index, blocked)
      }
      if (
        ctx.mode === "acceptEdits" &&
        acceptEditsApproves(unit, writeVerdicts.get(index), dirsFor(unit), home, withinRead)
      ) {
        approvals.set(index, { kind: "mode", detail: `${unit.argv[0] as string} inside the working directories` })
      }
    }
    if (!approvals.has(index) && guardsByUnit[index]!.includes(AWK_SYSTEM)) {
      unitMessages.set(index, "awk program contains system() which executes arbitrary commands")
    }
    if (!approvals.has(index) && keyOf(unit) === "jq" && jqReading(unit.words).loadsCode) {
      unitMessages.set(index, "jq command contains dangerous flags that could execute code or read arbitrary files")
    }
    if (!approvals.has(index) && keyOf(unit) === "find") {
      const action = firstFindAction(unit.words)
      if (action !== undefined) {
        unitMessages.set(
          index,
          `find with '${action}' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule`
        )
      }
    }
    if (!approvals.has(index) && keyOf(unit) === "sed" && (!unitMessages.has(index) || ctx.mode === "acceptEdits")) {
      const message = sedMessage(unit, ctx.mode, dirsFor(unit), home, checkWrite, workingDirs)
      if (message !== undefined) unitMessages.set(index, message)
    }
  }

  units.forEach((unit, index) => {
    for (const guard of guardsByUnit[index]!) {
      if (envGuardWaived.has(index) && guard.startsWith("the environment variable")) continue
      addAsk(guarded(PRIORITY.guard, M.GENERIC_ASK, guard, index, false))
    }
  })

  // A write the path rules or the mode allowed is not a read-only command's: the sandbox must not make it one.
  const writeApproval: DecisionReason | undefined = writes
    ? { type: "mode", mode: ctx.mode, detail: "writes the path rules or the mode allow" }
    : undefined
  return finish(analysis, deny, asks, approvals, unitAsks, unitMessages, writeApproval)
}

// ---------------------------------------------------------------------------------------------

const safety = (detail: string): DecisionReason => ({ type: "safetyCheck", detail })

/** Every expansion the analysis met, for the wording of a prompt. */
const expansionReasons = (analysis: Analysis): ReadonlyArray<string> => [...analysis.complexReasons, ...analysis.notes]

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

const findRuleDeny = (
  command: string,
  analysis: Analysis,
  denyRules: ReadonlyArray<CompiledRule>
): Deny | undefined => {
  for (let index = 0; index < analysis.units.length; index++) {
    const unit = analysis.units[index]!
    for (const { rule, pattern } of denyRules) {
      if (strictMatchesUnit(pattern, unit) === "match") {
        return { message: M.denied(command), reason: { type: "rule", rule }, unit: index }
      }
    }
  }
  for (const { rule, pattern } of denyRules) {
    if (matchesText(pattern, command)) return { message: M.denied(command), reason: { type: "rule", rule } }
  }
  if (analysis.rawScan) {
    const tokens = rawTokens(command)
    for (const { rule, pattern } of denyRules) {
      if (rawTextMayMatch(pattern, tokens)) return { message: M.denied(command), reason: { type: "rule", rule } }
    }
  }
  return undefined
}

/** A Read or Edit deny rule covers a path the command reads or writes: the whole command is denied. */
const pathDeny = (command: string, verdict: PathVerdict, unit: number): Deny => ({
  message: M.denied(command),
  reason: verdict.rule !== undefined ? { type: "rule", rule: verdict.rule } : safety(verdict.reason),
  unit
})

/** `xargs rm`: a command given its arguments at run time is named with its wrapper, as a part. */
const runtimeArgsWrapper = (unit: Unit, units: ReadonlyArray<Unit>): string | undefined =>
  unit.runtimeArgs === true && unit.parent !== undefined ? M.compound([units[unit.parent]!.text]) : undefined

const parentIs = (units: ReadonlyArray<Unit>, unit: Unit, name: string): boolean =>
  unit.parent !== undefined && units[unit.parent]!.argv[0] === name

/** The file a sed command reads or edits first (the script is an option or the first operand). */
const sedFile = (unit: Unit): WordFacts | undefined => parseSedArgs(unit.words).files[0]

/**
 * A sed command nothing approved: Claude Code names its file, or in acceptEdits (where a plain
 * in-place edit would run) calls it dangerous.
 */
const sedMessage = (
  unit: Unit,
  mode: string,
  dirs: Dirs,
  home: string,
  checkWrite: (abs: string) => PathVerdict,
  workingDirs: ReadonlyArray<string>
): string | undefined => {
  if (mode === "acceptEdits") return "sed command requires approval (contains potentially dangerous operations)"
  const file = sedFile(unit)
  if (file === undefined) return undefined
  const resolved = resolvePathWord(file, dirs, home)
  if (!resolved.ok) return undefined
  const abs = resolved.paths[0]!
  return M.fileCommand("sed", shownPath(file, abs), checkWrite(abs).within, workingDirs)
}

/** The first construct Claude Code asks about although bash reads it plainly, in its words. */
const readingConcern = (command: string, analysis: Analysis): string | undefined => {
  const escaped = escapedWhitespace(command)
  if (escaped?._tag === "Escaped") return "Contains backslash-escaped whitespace"
  if (escaped?._tag === "Unicode") return "Contains Unicode whitespace"
  if (escaped?._tag === "PipePart") return M.compound(escaped.parts)
  // A command that does not parse asks as such; tree-sitter does not parse a brace expansion as a command.
  if (analysis.complexReasons.includes(SYNTAX_ERROR)) {
    return /(?:^|[\s;&|])\{[^{}\s'"]*,[^{}\s'"]*\}/.test(command) ? "Brace expansion" : undefined
  }
  const [first] = [...(analysis.concerns ?? [])].filter((c) => c.rank < BACKGROUND_RANK).sort((a, b) => a.rank - b.rank)
  return first?.message
}

/** The message when the command could not be fully analysed. */
const complexMessage = (
  analysis: Analysis,
  units: ReadonlyArray<Unit>,
  allowRules: ReadonlyArray<CompiledRule>
): string => {
  const expansion = M.expansionAsk(expansionReasons(analysis))
  if (expansion === undefined) return analysis.complexReasons.includes(SYNTAX_ERROR) ? M.PARSE_ERROR : M.GENERIC_ASK
  // A variable set by the command itself: Claude Code says so when the rest is allowed.
  if (units.some((u) => u.role === "assignment")) {
    const rest = units.filter((u) => u.role === "plain" || u.role === "exec")
    return rest.length > 0 && rest.every((u) => allowRules.some(({ pattern }) => allowMatchesUnit(pattern, u, false)))
      ? "A variable set in this command can't be checked before it runs"
      : M.GENERIC_ASK
  }
  return expansion
}

/** Where the inner command starts in its wrapper's argv (undefined: not a plain suffix, e.g. a nested shell). */
const innerOffset = (parent: Unit, inner: Unit): number | undefined => {
  if (inner.origin !== "wrapper-inner") return undefined
  const innerLength = inner.argv.length - (inner.runtimeArgs === true && parent.runtimeArgs !== true ? 1 : 0)
  const offset = parent.argv.length - innerLength
  if (offset <= 0) return undefined
  for (let i = 0; i < innerLength; i++) if (parent.words[offset + i]?.raw !== inner.words[i]?.raw) return undefined
  return offset
}

/** The files a unit reads through `<` and `<>`. */
const inputsOf = (unit: Unit): ReadonlyArray<WordFacts> =>
  (unit.redirects as ReadonlyArray<RedirectFacts>).filter((r) => r.op === "<" || r.op === "<>").map((r) => r.facts)

const cdOperand = (unit: Unit): WordFacts => {
  const operands = unit.words.slice(1).filter((w) => w.value !== "-L" && w.value !== "-P" && w.value !== "--")
  return operands[0] ?? { ...unit.words[0]!, value: "~", raw: "~", tilde: true }
}

/** Is every name of the path (symlinks resolved) inside the working directories? */
type Within = (absolutePath: string) => boolean

/**
 * The first path a read-only command would read outside the working directories: its absolute
 * path, `true` when it cannot be told, undefined when every path is inside.
 */
const firstOutside = (
  paths: ReadonlyArray<WordFacts>,
  dirs: Dirs,
  home: string,
  within: Within,
  cd: boolean
): string | true | undefined => {
  for (const word of paths) {
    if (word.procSub) continue
    if (typeof word.value !== "string") return true
    if (word.value === "-") {
      if (cd) return true
      continue
    }
    const resolved = resolvePathWord(word, dirs, home)
    if (!resolved.ok) return true
    for (const abs of resolved.paths) {
      const target = word.unquotedGlob ? (globBase(abs)?.base ?? abs) : abs
      // Claude Code names the path with `..` taken lexically.
      if (!within(target)) return path.resolve(abs)
    }
  }
  return undefined
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
  // Options Claude Code does not auto-approve: any on cp/mv, a time source on touch, sed scripts given with -e.
  const options = unit.words.slice(1).filter((w) => typeof w.value === "string" && w.value.startsWith("-")).map((w) =>
    w.value as string
  )
  if ((key === "cp" || key === "mv") && options.length > 0) return false
  if (key === "touch" && options.some((o) => /^-[a-z]*[dtr]|^--(?:date|reference|time)/.test(o))) return false
  if (key === "sed" && options.some((o) => /^-[a-zA-Z]*[ef]|^--(?:expression|file)/.test(o))) return false
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
  if (firstOutside(files.reads, dirs, home, within, false) !== undefined) return false
  return verdicts.every((v) => v.behavior === "allow")
}

const finish = (
  analysis: Analysis,
  deny: Deny | undefined,
  asks: ReadonlyArray<Ask>,
  approvals: ReadonlyMap<number, Approval>,
  unitAsks: ReadonlyMap<number, ReadonlyArray<string>>,
  unitMessages: ReadonlyMap<number, string>,
  writeApproval: DecisionReason | undefined
): Permission.Decision => {
  const units = analysis.units
  const subcommands: Array<SubcommandVerdict> = units.map((unit, index) => {
    if (deny !== undefined && deny.unit === index) {
      return deny.reason.type === "rule"
        ? { command: unit.text, behavior: "deny", reason: deny.message, rule: deny.reason.rule }
        : { command: unit.text, behavior: "deny", reason: deny.message }
    }
    const own = unitAsks.get(index)
    if (own !== undefined && own.length > 0) return { command: unit.text, behavior: "ask", reason: own.join("; ") }
    const approval = approvals.get(index)
    if (approval === undefined) {
      return {
        command: unit.text,
        behavior: "ask",
        reason: "no rule allows it, it is not read-only and the mode does not approve it"
      }
    }
    switch (approval.kind) {
      case "rule":
        return {
          command: unit.text,
          behavior: "allow",
          reason: `allowed by ${approval.rule.raw} from ${approval.rule.source}`,
          rule: approval.rule
        }
      case "readOnly":
        return { command: unit.text, behavior: "allow", reason: approval.detail }
      case "mode":
        return { command: unit.text, behavior: "allow", reason: `acceptEdits: ${approval.detail}` }
      case "structure":
        return { command: unit.text, behavior: "allow", reason: approval.detail }
    }
  })

  if (deny !== undefined) {
    return Permission.deny(deny.message, { reason: deny.reason, subcommands })
  }

  const byPriority = [...asks].sort((a, b) => a.priority - b.priority)
  for (const level of ["always", "protected"] as const) {
    const first = byPriority.find((a) => a.level === level)
    if (first !== undefined) {
      const kind = level === "protected" ? "protected" : first.reason.type === "rule" ? "rule" : "safety"
      return Permission.ask(first.message, { reason: first.reason, kind, subcommands })
    }
  }

  // Whole-command concerns (too complex, cd with writes), then the parts that need approval.
  const commandUnits = units.filter((u) =>
    u.argv.length > 0 && (u.role === "plain" || u.role === "exec") && u.origin !== "wrapper-inner"
  )
  const whole = byPriority.find((a) => a.unit === undefined)
  const needing = units.map((_, i) => i).filter((i) => !approvals.has(i) || asks.some((a) => a.unit === i))
  if (whole === undefined && needing.length === 0) {
    const values = [...approvals.values()]
    // A command left running in the background was only judged read-only: Claude Code asks.
    const background = analysis.concerns?.find((c) => c.rank === BACKGROUND_RANK)
    if (background !== undefined && values.some((a) => a.kind === "readOnly")) {
      return Permission.ask(background.message, {
        reason: { type: "safetyCheck", detail: "a command run in the background" },
        kind: "guarded",
        subcommands
      })
    }
    const byRule = values.find((a) => a.kind === "rule")
    const byMode = values.find((a) => a.kind === "mode")
    const reason: DecisionReason = byRule?.kind === "rule"
      ? { type: "rule", rule: byRule.rule }
      : byMode?.kind === "mode"
      ? { type: "mode", mode: "acceptEdits", detail: byMode.detail }
      : (writeApproval ??
        {
          type: "readOnly",
          detail: values.find((a) => a.kind === "readOnly")?.detail ?? "nothing in the command needs approval"
        })
    return Permission.allow(reason, { subcommands })
  }

  const guardedAsks = byPriority.filter((a) => a.level === "guarded")
  // Claude Code names a wrapper with the command inside it (`xargs rm`, `find … -exec …`) when the
  // wrapper needs approval too, or stands in a pipeline.
  const needingSet = new Set(needing)
  const namedUnit = (index: number): number => {
    let at = index
    for (;;) {
      const unit = units[at]!
      const parent = unit.parent
      if (unit.origin !== "wrapper-inner" || parent === undefined) return at
      if (!needingSet.has(parent) && unit.piped !== true) return at
      at = parent
    }
  }
  const named = [...new Set(needing.map(namedUnit))]
  const parts = named.map((i) => units[i]!.text)
  let message: string
  if (whole !== undefined) message = whole.message
  else if (named.length === 1) {
    const index = named[0]!
    const specific = guardedAsks.find((a) => a.unit === index && a.specific === true)
    // A part of a pipeline is named in the list of parts; a part of a list (`a && b`) by its own concern.
    const ownConcern = units[index]!.piped === true ? undefined : (specific?.message ?? unitMessages.get(index))
    message = ownConcern ??
      (commandUnits.length > 1 || units[index]!.piped === true ? M.compound(parts) : M.GENERIC_ASK)
  } else message = M.compound(parts)

  const unapproved = needing.filter((i) => !approvals.has(i))
  if (guardedAsks.length > 0) {
    const first = whole ?? guardedAsks[0]!
    return Permission.ask(message, { reason: first.reason, kind: "guarded", subcommands })
  }
  return Permission.ask(message, {
    reason: { type: "default", detail: `no rule allows ${parts.map(escapeForDisplay).join(", ")}` },
    kind: "unapproved",
    subcommands,
    suggestions: suggestRules(unapproved.map((i) => units[i]!))
  })
}
