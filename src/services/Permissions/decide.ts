/**
 * One call's permission decision, fail-closed:
 *   a. a deny anywhere wins: whole-tool or parameter deny, then the subject's deny rules
 *      (paths, commands, domains, agent types, skills), then the tool's own deny;
 *   b. forced asks: whole-tool or parameter ask rules, content ask rules, safety checks
 *      (protected paths, unresolvable paths, hard links, shell guards), tools that need a user,
 *      plan-mode edits. Only bypassPermissions skips a protected-path ask (current docs);
 *   c. bypassPermissions allows the rest;
 *   d. a whole-tool allow rule allows;
 *   e. the subject's and the tool's own allow (working directories, acceptEdits, allow rules);
 *   f. anything else asks (not forced: a hook allow or a mode may skip it).
 * Resolving an ask (dontAsk, hooks, the Approver) is the pipeline's job.
 */
import { Effect } from "effect"
import * as os from "node:os"
import type { AnyTool } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import { workingDirectories } from "../../Session.js"
import type { FileStateService } from "../FileState.js"
import type { AnalyzeBash, AnalyzerOutcome } from "./bashAnalyzer.js"
import { agentRuleMatches, parameterRuleMatches, skillRuleMatches } from "./contentRules.js"
import {
  domainMatches,
  domainOfSpecifier,
  urlHostname,
  matchesToolName,
  canonicalToolName
} from "../../PermissionRules.js"
import * as Messages from "./messages.js"
import { effectiveMode } from "./modes.js"
import { checkPath, pathDenials, type PathAccess, type PathCheck, type PathCheckContext } from "./pathCheck.js"
import type { BashCheckContext, PathVerdict } from "../ShellAnalyzer.js"
import { withSandbox, type SandboxPermissions } from "../Sandbox.js"
import { domainSuggestion, wholeToolSuggestion } from "./suggestions.js"
import * as Permission from "../../Permission.js"
import {
  describeReason,
  type Ask,
  type Decision,
  type DecisionReason,
  type PathRules,
  type PermissionMode,
  type PermissionRule,
  type PermissionSubject,
  type ToolCheck
} from "../../Permission.js"
import { resolveWorkingDirectories } from "./workingDirectories.js"
import { isReady } from "../../internal/ready.js"

export interface DecideEnvironment {
  /** Usable rules of every source, session rules included. */
  readonly rules: ReadonlyArray<PermissionRule>
  /** The directory the session was launched in (anchor of relative and local rules). */
  readonly launchCwd: string
  /** `additionalDirectories` from trusted settings and `--add-dir`. */
  readonly additionalDirectories: ReadonlyArray<string>
  readonly bypassDisabled: boolean
  readonly home?: string
  readonly fileState: FileStateService
  /** The Bash verdicts (from the ShellAnalyzer service; a replacement isolates this stage in tests). */
  readonly analyzeBash: AnalyzeBash
  /** The settings sandbox, while it is in force (`autoAllowBashIfSandboxed`, `dangerouslyDisableSandbox`). */
  readonly sandbox?: SandboxPermissions
}

export interface DecideRequest {
  readonly tool: AnyTool
  readonly input: unknown
  readonly session: SessionContext
}

/** A subject's decision before modes and whole-tool rules; `Passthrough` when it names nothing rules apply to. */
type SubjectVerdict = ToolCheck

const PASSTHROUGH: SubjectVerdict = Permission.passthrough

const wholeToolRule = (rules: ReadonlyArray<PermissionRule>, behavior: PermissionRule["behavior"], toolName: string) =>
  rules.find((r) =>
    r.behavior === behavior && r.content === undefined && matchesToolName(r.toolName, toolName, behavior)
  )

/** Content rules written for this tool (or for the family name its subject uses, e.g. `Bash`). */
const contentRules = (rules: ReadonlyArray<PermissionRule>, names: ReadonlyArray<string>) => {
  const canonical = names.map(canonicalToolName)
  return rules.filter((r) => r.content !== undefined && canonical.includes(r.toolName))
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

export const makePathContext = (
  env: DecideEnvironment,
  session: SessionContext,
  mode: PermissionMode,
  toolName: string
): PathCheckContext => {
  const home = env.home ?? os.homedir()
  const cwds = Array.from(new Set([env.launchCwd, session.projectDir, session.cwd]))
  return {
    rules: env.rules,
    mode,
    cwd: session.cwd,
    launchCwd: env.launchCwd,
    anchors: { home, cwds },
    workingDirectories: resolveWorkingDirectories([
      ...workingDirectories(session),
      env.launchCwd,
      ...env.additionalDirectories
    ]),
    home,
    toolName
  }
}

const NO_DENIALS = { read: false, edit: false } as const

/** The session's path deny rules as tools consult them (a path that cannot be expanded is denied). */
export const pathRulesOf = (env: DecideEnvironment, session: SessionContext): PathRules => {
  const denyRules = env.rules.filter((r) => r.behavior === "deny" && (r.toolName === "Read" || r.toolName === "Edit"))
  if (denyRules.length === 0) return { anyReadDeny: false, denials: () => NO_DENIALS }
  // deny rules need no working directories: none are resolved
  const home = env.home ?? os.homedir()
  const ctx: PathCheckContext = {
    rules: denyRules,
    mode: session.permissionMode,
    cwd: session.cwd,
    launchCwd: env.launchCwd,
    anchors: { home, cwds: Array.from(new Set([env.launchCwd, session.projectDir, session.cwd])) },
    workingDirectories: [],
    home,
    toolName: "Read"
  }
  return {
    anyReadDeny: denyRules.some((r) => r.toolName === "Read" && r.content !== undefined),
    denials: (absolutePath) => {
      const found = pathDenials(absolutePath, ctx)
      return {
        read: found.read !== undefined || found.invalid !== undefined,
        edit: found.edit !== undefined || found.invalid !== undefined
      }
    }
  }
}

/**
 * Whether reading `file` would be allowed without asking: no whole-tool Read deny or ask rule,
 * and the path check allows the read (a working directory, an allow rule, or bypassPermissions).
 * `toolName` is the tool that wants to know.
 */
export const readsWithoutAsking = (
  file: string,
  session: SessionContext,
  toolName: string,
  env: DecideEnvironment
): boolean => {
  const mode = effectiveMode(session.permissionMode, env.bypassDisabled)
  if (wholeToolRule(env.rules, "deny", "Read") !== undefined || wholeToolRule(env.rules, "ask", "Read") !== undefined) {
    return false
  }
  return toPathVerdict(checkPath("read", file, makePathContext(env, session, mode, toolName)), mode).behavior ===
    "allow"
}

/** A path verdict for the shell analyzer, with the mode's part applied (ask stays ask in dontAsk). */
export const toPathVerdict = ({ decision, facts: found }: PathCheck, mode: PermissionMode): PathVerdict => {
  const reason = describeReason(decision.reason)
  const facts = { within: found.within, ...optional("protectedName", found.protectedName) }
  const withRule = decision.reason.type === "rule" ? { rule: decision.reason.rule, ...facts } : facts
  if (decision._tag === "Deny") return { behavior: "deny", reason: `${decision.message} (${reason})`, ...withRule }
  if (decision._tag === "Allow") return { behavior: "allow", reason, ...withRule }
  const bypassSkips = mode === "bypassPermissions" && (decision.kind === "unapproved" || decision.kind === "protected")
  return bypassSkips
    ? { behavior: "allow", reason: `mode bypassPermissions (${reason})`, ...facts }
    : { behavior: "ask", reason: `${decision.message} (${reason})`, ...withRule }
}

/** Tools whose content rules name paths (a deny rule of theirs covers reads or writes in Bash too). */
const PATH_RULE_TOOLS: ReadonlySet<string> = new Set(["Read", "Edit", "Write", "MultiEdit", "NotebookEdit"])

const checkBash = (
  command: string,
  disableSandbox: boolean,
  request: DecideRequest,
  env: DecideEnvironment,
  mode: PermissionMode
): Effect.Effect<SubjectVerdict> => {
  const { tool, session } = request
  const rules = contentRules(env.rules, ["Bash", tool.name]).map((
    r
  ) => (r.toolName === "Bash" ? r : { ...r, toolName: "Bash" }))
  const writeCtx = makePathContext(env, session, mode, tool.name)
  const ctx: BashCheckContext = {
    rules,
    mode,
    cwd: session.cwd,
    workingDirectories: writeCtx.workingDirectories.map((d) => d.path),
    checkWritePath: (p) => toPathVerdict(checkPath("write", p, writeCtx), mode),
    checkReadPath: (p) => toPathVerdict(checkPath("read", p, writeCtx), mode),
    pathDenyRules: env.rules.some((r) =>
      r.behavior === "deny" && r.content !== undefined && PATH_RULE_TOOLS.has(r.toolName)
    )
  }
  const sandbox = env.sandbox
  return env.analyzeBash(command, ctx).pipe(
    Effect.flatMap((outcome) =>
      sandbox === undefined || outcome._tag !== "Verdict"
        ? Effect.succeed(outcome)
        : Effect.map(
          withSandbox(outcome.verdict, { command, disableSandbox, bashRules: rules }, sandbox),
          (verdict): AnalyzerOutcome => ({ _tag: "Verdict", verdict })
        )
    ),
    Effect.catchAllCause((cause) =>
      Effect.succeed<AnalyzerOutcome>({ _tag: "Unavailable", reason: `the shell analyzer failed: ${String(cause)}` })
    ),
    Effect.map((outcome): SubjectVerdict => {
      if (outcome._tag === "Unavailable") {
        return Permission.ask(Messages.askToUse(tool.name), {
          kind: "safety",
          reason: { type: "safetyCheck", detail: `${outcome.reason}; every Bash command asks` }
        })
      }
      const v = outcome.verdict
      if (v._tag === "Allow") return Permission.allow(v.reason, { subcommands: v.subcommands })
      if (v._tag === "Deny") return Permission.deny(v.message, { reason: v.reason, subcommands: v.subcommands })
      return Permission.ask(v.message, {
        kind: v.kind,
        reason: v.reason,
        suggestions: v.kind === "unapproved" ? v.suggestions : [],
        subcommands: v.subcommands
      })
    })
  )
}

const checkUrl = (url: string, tool: AnyTool, rules: ReadonlyArray<PermissionRule>): SubjectVerdict => {
  const own = contentRules(rules, ["WebFetch", tool.name])
  const host = urlHostname(url)
  const matching = (behavior: PermissionRule["behavior"]) =>
    own.find((r) => {
      if (r.behavior !== behavior) return false
      const pattern = domainOfSpecifier(r.content!)
      return pattern !== undefined && host !== undefined && domainMatches(pattern, host)
    })
  const deny = matching("deny")
  if (deny !== undefined) {
    return Permission.deny(Messages.domainDenied(tool.name, host!), { reason: { type: "rule", rule: deny } })
  }
  if (host === undefined) {
    return Permission.ask(Messages.askToUse(tool.name), {
      kind: "safety",
      reason: { type: "safetyCheck", detail: `cannot tell the host of ${JSON.stringify(url)}` }
    })
  }
  const ask = matching("ask")
  if (ask !== undefined) {
    return Permission.ask(Messages.askToUse(tool.name), { kind: "rule", reason: { type: "rule", rule: ask } })
  }
  const allow = matching("allow")
  if (allow !== undefined) return Permission.allow({ type: "rule", rule: allow })
  return Permission.ask(Messages.askToUse(tool.name), {
    kind: "unapproved",
    reason: { type: "default", detail: `no rule allows fetching from ${host}` },
    suggestions: domainSuggestion(host)
  })
}

const checkAgent = (agentType: string, tool: AnyTool, rules: ReadonlyArray<PermissionRule>): SubjectVerdict => {
  const own = contentRules(rules, ["Agent", tool.name])
  const find = (behavior: PermissionRule["behavior"]) =>
    own.find((r) => r.behavior === behavior && agentRuleMatches(r, agentType))
  const deny = find("deny")
  if (deny !== undefined) {
    return Permission.deny(Messages.agentTypeDenied(agentType, deny), { reason: { type: "rule", rule: deny } })
  }
  const ask = find("ask")
  if (ask !== undefined) {
    return Permission.ask(Messages.askToUse(tool.name), { kind: "rule", reason: { type: "rule", rule: ask } })
  }
  const allow = find("allow")
  if (allow !== undefined) return Permission.allow({ type: "rule", rule: allow })
  return Permission.allow("launching a subagent needs no permission; its tool calls are checked on their own")
}

const checkSkill = (
  name: string,
  args: string | undefined,
  tool: AnyTool,
  rules: ReadonlyArray<PermissionRule>
): SubjectVerdict => {
  const own = contentRules(rules, ["Skill", tool.name])
  const find = (behavior: PermissionRule["behavior"]) =>
    own.find((r) => r.behavior === behavior && skillRuleMatches(r, name, args))
  const deny = find("deny")
  if (deny !== undefined) {
    return Permission.deny(Messages.wholeToolDenied(tool.name), { reason: { type: "rule", rule: deny } })
  }
  const ask = find("ask")
  if (ask !== undefined) {
    return Permission.ask(Messages.askToUse(tool.name), { kind: "rule", reason: { type: "rule", rule: ask } })
  }
  const allow = find("allow")
  if (allow !== undefined) return Permission.allow({ type: "rule", rule: allow })
  return Permission.ask(Messages.askToUse(tool.name), {
    kind: "unapproved",
    reason: { type: "default", detail: `no rule allows the skill ${name}` },
    suggestions: [{ rule: `${tool.name}(${name})`, behavior: "allow" }]
  })
}

const checkSubject = (
  subject: PermissionSubject,
  request: DecideRequest,
  env: DecideEnvironment,
  mode: PermissionMode
): Effect.Effect<SubjectVerdict> => {
  const { tool, session } = request
  switch (subject.kind) {
    case "none":
      return Effect.succeed(PASSTHROUGH)
    case "read":
    case "write": {
      const access: PathAccess = subject.kind
      return Effect.sync((): SubjectVerdict =>
        checkPath(access, subject.path, makePathContext(env, session, mode, tool.name)).decision
      )
    }
    case "bash":
      return checkBash(subject.command, subject.disableSandbox === true, request, env, mode)
    case "url":
      return Effect.sync(() => checkUrl(subject.url, tool, env.rules))
    case "agent":
      return Effect.sync(() => checkAgent(subject.agentType, tool, env.rules))
    case "skill":
      return Effect.sync(() => checkSkill(subject.name, subject.args, tool, env.rules))
  }
}

const safeSubject = (
  tool: AnyTool,
  input: unknown,
  session: SessionContext
): PermissionSubject | { readonly kind: "invalid"; readonly detail: string } => {
  try {
    return tool.permissionSubject(input, session)
  } catch (e) {
    return { kind: "invalid", detail: e instanceof Error ? e.message : String(e) }
  }
}

/** The decision for one call. Never fails: anything unexpected asks (forced). */
export const decideCall = (request: DecideRequest, env: DecideEnvironment): Effect.Effect<Decision> =>
  decideUnsafe(request, env).pipe(
    Effect.catchAllCause((cause) =>
      Effect.succeed(
        Permission.ask(Messages.askToUse(request.tool.name), {
          kind: "safety",
          reason: { type: "safetyCheck", detail: `the permission check failed: ${String(cause)}` }
        })
      )
    )
  )

/** The tool's own check, or a forced ask when it fails or answers something that is not a decision. */
const ownCheckOf = (request: DecideRequest, env: DecideEnvironment, mode: PermissionMode): Effect.Effect<ToolCheck> => {
  const { tool, input, session } = request
  const failed = (detail: string) =>
    Permission.ask(Messages.askToUse(tool.name), {
      kind: "safety",
      reason: { type: "safetyCheck", detail: `the tool's own check failed: ${detail}` }
    })
  const checked = (answer: ToolCheck): ToolCheck =>
    answer?._tag === "Passthrough" || Permission.isDecision(answer)
      ? answer
      : failed(`it answered ${JSON.stringify(answer) ?? String(answer)}, not a decision`)
  const ownCheck = tool.checkPermissions(input, { session, fileState: env.fileState, mode })
  return isReady(ownCheck)
    ? Effect.succeed(checked(ownCheck.value))
    : ownCheck.pipe(
      Effect.map(checked),
      Effect.catchAllCause((cause) => Effect.succeed(failed(String(cause))))
    )
}

// fnUntraced, made once: an Effect.gen around a generator made per call costs ~4 µs a call.
const decideUnsafe = Effect.fnUntraced(
  function*(request: DecideRequest, env: DecideEnvironment) {
    const { tool, input, session } = request
    const mode = effectiveMode(session.permissionMode, env.bypassDisabled)
    const rules = env.rules

    // a. whole-tool and parameter deny rules
    const wholeDeny = wholeToolRule(rules, "deny", tool.name)
    if (wholeDeny !== undefined) {
      return Permission.deny(Messages.wholeToolDenied(tool.name), { reason: { type: "rule", rule: wholeDeny } })
    }
    const ownRules = rules.filter((r) => r.content !== undefined && matchesToolName(r.toolName, tool.name, r.behavior))
    const paramDeny = ownRules.find((r) => r.behavior === "deny" && parameterRuleMatches(r, tool, input))
    if (paramDeny !== undefined) {
      return Permission.deny(Messages.wholeToolDenied(tool.name), { reason: { type: "rule", rule: paramDeny } })
    }

    // the subject's content rules and the tool's own check
    const subjectOrError = safeSubject(tool, input, session)
    const subject: SubjectVerdict = subjectOrError.kind === "invalid"
      ? Permission.ask(Messages.askToUse(tool.name), {
        kind: "safety",
        reason: { type: "safetyCheck", detail: `cannot tell what the call touches: ${subjectOrError.detail}` }
      })
      : yield* checkSubject(subjectOrError, request, env, mode)
    const own = yield* ownCheckOf(request, env, mode)
    const subcommands = subject._tag === "Passthrough" ? undefined : subject.subcommands

    if (subject._tag === "Deny") return Permission.deny(subject.message, { reason: subject.reason, subcommands })
    if (own._tag === "Deny") return Permission.deny(own.message, { reason: own.reason, subcommands })

    // b. forced asks
    const forcedAsk = (message: string, reason: DecisionReason, kind: Ask["kind"]): Decision =>
      Permission.ask(message, { reason, kind, subcommands })
    const wholeAsk = wholeToolRule(rules, "ask", tool.name)
    if (wholeAsk !== undefined) {
      // a path the mode would ask about anyway is named, as Claude Code does (a bare `Write` ask in default mode)
      const pathAsk = subject._tag === "Ask" && subject.kind === "unapproved" &&
        (subjectOrError.kind === "read" || subjectOrError.kind === "write")
      return forcedAsk(
        pathAsk ? subject.message : Messages.askToUse(tool.name),
        { type: "rule", rule: wholeAsk },
        "rule"
      )
    }
    const paramAsk = ownRules.find((r) => r.behavior === "ask" && parameterRuleMatches(r, tool, input))
    if (paramAsk !== undefined) return forcedAsk(Messages.askToUse(tool.name), { type: "rule", rule: paramAsk }, "rule")
    if (subject._tag === "Ask" && subject.kind !== "unapproved" && subject.kind !== "guarded") {
      const bypassSkips = subject.kind === "protected" && mode === "bypassPermissions"
      if (!bypassSkips) return forcedAsk(subject.message, subject.reason, subject.kind)
    }
    if (own._tag === "Ask" && Permission.isForced(own)) {
      return forcedAsk(
        own.message,
        own.reason.type === "safetyCheck" ? own.reason : { type: "safetyCheck", detail: own.message },
        "safety"
      )
    }
    if (tool.requiresUserInteraction) {
      return forcedAsk(
        Messages.askToUse(tool.name),
        { type: "tool", detail: "the tool needs the user's interaction" },
        "safety"
      )
    }

    // c. bypassPermissions
    if (mode === "bypassPermissions") {
      return Permission.allow({ type: "mode", mode, detail: "everything not denied or forced to ask runs" }, {
        subcommands
      })
    }

    // d. whole-tool allow
    const wholeAllow = wholeToolRule(rules, "allow", tool.name)
    if (wholeAllow !== undefined) return Permission.allow({ type: "rule", rule: wholeAllow }, { subcommands })

    // e. the subject's and the tool's allow; any unapproved ask wins over an allow
    if (subject._tag === "Ask") {
      // a subject's ask suggests only its own narrow rules (never a bare `Bash` or `Edit`); a
      // guarded ask (a shell command that could not be fully checked) is not a hook's to skip
      return Permission.ask(subject.message, {
        reason: subject.reason,
        kind: subject.kind,
        suggestions: subject.suggestions,
        subcommands
      })
    }
    if (own._tag === "Ask") {
      return Permission.ask(own.message, {
        reason: own.reason,
        kind: "unapproved",
        suggestions: subject._tag === "Passthrough" ? wholeToolSuggestion(tool.name) : [],
        subcommands
      })
    }
    const updatedInput = own._tag === "Allow" ? own.updatedInput : undefined
    if (subject._tag === "Allow") return Permission.allow(subject.reason, { subcommands, updatedInput })
    if (own._tag === "Allow") return Permission.allow(own.reason, { updatedInput })

    // f. nothing allowed it
    return Permission.ask(Messages.askToUse(tool.name), {
      reason: { type: "default", detail: "no rule allows this call" },
      kind: "unapproved",
      suggestions: wholeToolSuggestion(tool.name)
    })
  }
)
