/**
 * One call's permission decision (claude-code-spec §1.4 steps 6a–6f), fail-closed:
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
import { domainMatches, domainOfSpecifier, urlHostname, matchesToolName, canonicalToolName } from "../../PermissionRules.js"
import * as Messages from "./messages.js"
import { effectiveMode } from "./modes.js"
import { checkPath, pathDenials, type AskKind, type PathAccess, type PathCheckContext, type PathCheckResult } from "./pathCheck.js"
import type { BashCheckContext, PathVerdict } from "../ShellAnalyzer.js"
import { withSandbox, type SandboxPermissions } from "../Sandbox.js"
import { domainSuggestion, wholeToolSuggestion } from "./suggestions.js"
import {
  describeReason,
  type DecisionReason,
  type PathRules,
  type PermissionDecision,
  type PermissionMode,
  type PermissionRule,
  type PermissionSubject,
  type RuleSuggestion,
  type SubcommandVerdict
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

/** A subject's verdict before modes and whole-tool rules. */
type SubjectVerdict =
  | { readonly behavior: "allow"; readonly reason: DecisionReason; readonly subcommands?: ReadonlyArray<SubcommandVerdict> }
  | { readonly behavior: "deny"; readonly message: string; readonly reason: DecisionReason; readonly subcommands?: ReadonlyArray<SubcommandVerdict> }
  | {
      readonly behavior: "ask"
      readonly kind: AskKind
      readonly message: string
      readonly reason: DecisionReason
      readonly suggestions: ReadonlyArray<RuleSuggestion>
      readonly subcommands?: ReadonlyArray<SubcommandVerdict>
    }
  | { readonly behavior: "passthrough" }

const PASSTHROUGH: SubjectVerdict = { behavior: "passthrough" }

const wholeToolRule = (rules: ReadonlyArray<PermissionRule>, behavior: PermissionRule["behavior"], toolName: string) =>
  rules.find((r) => r.behavior === behavior && r.content === undefined && matchesToolName(r.toolName, toolName, behavior))

/** Content rules written for this tool (or for the family name its subject uses, e.g. `Bash`). */
const contentRules = (rules: ReadonlyArray<PermissionRule>, names: ReadonlyArray<string>) => {
  const canonical = names.map(canonicalToolName)
  return rules.filter((r) => r.content !== undefined && canonical.includes(r.toolName))
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

export const makePathContext = (env: DecideEnvironment, session: SessionContext, mode: PermissionMode, toolName: string): PathCheckContext => {
  const home = env.home ?? os.homedir()
  const cwds = Array.from(new Set([env.launchCwd, session.projectDir, session.cwd]))
  return {
    rules: env.rules,
    mode,
    cwd: session.cwd,
    launchCwd: env.launchCwd,
    anchors: { home, cwds },
    workingDirectories: resolveWorkingDirectories([...workingDirectories(session), env.launchCwd, ...env.additionalDirectories]),
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
      return { read: found.read !== undefined || found.invalid !== undefined, edit: found.edit !== undefined || found.invalid !== undefined }
    }
  }
}

/**
 * Whether reading `file` would be allowed without asking: no whole-tool Read deny or ask rule,
 * and the path check allows the read (a working directory, an allow rule, or bypassPermissions).
 * `toolName` is the tool that wants to know.
 */
export const readsWithoutAsking = (file: string, session: SessionContext, toolName: string, env: DecideEnvironment): boolean => {
  const mode = effectiveMode(session.permissionMode, env.bypassDisabled)
  if (wholeToolRule(env.rules, "deny", "Read") !== undefined || wholeToolRule(env.rules, "ask", "Read") !== undefined) return false
  return toPathVerdict(checkPath("read", file, makePathContext(env, session, mode, toolName)), mode).behavior === "allow"
}

/** A path verdict for the shell analyzer, with the mode's part applied (ask stays ask in dontAsk). */
export const toPathVerdict = (result: PathCheckResult, mode: PermissionMode): PathVerdict => {
  const reason = describeReason(result.reason)
  const facts = { within: result.facts.within, ...optional("protectedName", result.facts.protectedName) }
  const withRule = result.reason.type === "rule" ? { rule: result.reason.rule, ...facts } : facts
  if (result.behavior === "deny") return { behavior: "deny", reason: `${result.message} (${reason})`, ...withRule }
  if (result.behavior === "allow") return { behavior: "allow", reason, ...withRule }
  const bypassSkips = mode === "bypassPermissions" && (result.kind === "unapproved" || result.kind === "protected")
  return bypassSkips
    ? { behavior: "allow", reason: `mode bypassPermissions (${reason})`, ...facts }
    : { behavior: "ask", reason: `${result.message} (${reason})`, ...withRule }
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
  const rules = contentRules(env.rules, ["Bash", tool.name]).map((r) => (r.toolName === "Bash" ? r : { ...r, toolName: "Bash" }))
  const writeCtx = makePathContext(env, session, mode, tool.name)
  const ctx: BashCheckContext = {
    rules,
    mode,
    cwd: session.cwd,
    workingDirectories: writeCtx.workingDirectories.map((d) => d.path),
    checkWritePath: (p) => toPathVerdict(checkPath("write", p, writeCtx), mode),
    checkReadPath: (p) => toPathVerdict(checkPath("read", p, writeCtx), mode),
    pathDenyRules: env.rules.some((r) => r.behavior === "deny" && r.content !== undefined && PATH_RULE_TOOLS.has(r.toolName))
  }
  const sandbox = env.sandbox
  return env.analyzeBash(command, ctx).pipe(
    Effect.flatMap((outcome) =>
      sandbox === undefined || outcome._tag !== "Verdict"
        ? Effect.succeed(outcome)
        : Effect.map(withSandbox(outcome.verdict, { command, disableSandbox, bashRules: rules }, sandbox), (verdict): AnalyzerOutcome => ({ _tag: "Verdict", verdict }))
    ),
    Effect.catchAllCause((cause) => Effect.succeed<AnalyzerOutcome>({ _tag: "Unavailable", reason: `the shell analyzer failed: ${String(cause)}` })),
    Effect.map((outcome): SubjectVerdict => {
      if (outcome._tag === "Unavailable") {
        return {
          behavior: "ask",
          kind: "safety",
          message: Messages.askToUse(tool.name),
          reason: { type: "safetyCheck", detail: `${outcome.reason}; every Bash command asks` },
          suggestions: []
        }
      }
      const v = outcome.verdict
      if (v.behavior === "deny") return { behavior: "deny", message: v.message, reason: v.reason, subcommands: v.subcommands }
      if (v.behavior === "allow") return { behavior: "allow", reason: v.reason, subcommands: v.subcommands }
      return {
        behavior: "ask",
        kind: v.kind,
        message: v.message,
        reason: v.reason,
        suggestions: v.kind === "unapproved" ? v.suggestions : [],
        subcommands: v.subcommands
      }
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
  if (deny !== undefined) return { behavior: "deny", message: Messages.domainDenied(tool.name, host!), reason: { type: "rule", rule: deny } }
  if (host === undefined) {
    return {
      behavior: "ask",
      kind: "safety",
      message: Messages.askToUse(tool.name),
      reason: { type: "safetyCheck", detail: `cannot tell the host of ${JSON.stringify(url)}` },
      suggestions: []
    }
  }
  const ask = matching("ask")
  if (ask !== undefined) return { behavior: "ask", kind: "rule", message: Messages.askToUse(tool.name), reason: { type: "rule", rule: ask }, suggestions: [] }
  const allow = matching("allow")
  if (allow !== undefined) return { behavior: "allow", reason: { type: "rule", rule: allow } }
  return {
    behavior: "ask",
    kind: "unapproved",
    message: Messages.askToUse(tool.name),
    reason: { type: "default", detail: `no rule allows fetching from ${host}` },
    suggestions: domainSuggestion(host)
  }
}

const checkAgent = (agentType: string, tool: AnyTool, rules: ReadonlyArray<PermissionRule>): SubjectVerdict => {
  const own = contentRules(rules, ["Agent", tool.name])
  const find = (behavior: PermissionRule["behavior"]) => own.find((r) => r.behavior === behavior && agentRuleMatches(r, agentType))
  const deny = find("deny")
  if (deny !== undefined) return { behavior: "deny", message: Messages.agentTypeDenied(agentType, deny), reason: { type: "rule", rule: deny } }
  const ask = find("ask")
  if (ask !== undefined) return { behavior: "ask", kind: "rule", message: Messages.askToUse(tool.name), reason: { type: "rule", rule: ask }, suggestions: [] }
  const allow = find("allow")
  if (allow !== undefined) return { behavior: "allow", reason: { type: "rule", rule: allow } }
  return { behavior: "allow", reason: { type: "tool", detail: "launching a subagent needs no permission; its tool calls are checked on their own" } }
}

const checkSkill = (name: string, args: string | undefined, tool: AnyTool, rules: ReadonlyArray<PermissionRule>): SubjectVerdict => {
  const own = contentRules(rules, ["Skill", tool.name])
  const find = (behavior: PermissionRule["behavior"]) => own.find((r) => r.behavior === behavior && skillRuleMatches(r, name, args))
  const deny = find("deny")
  if (deny !== undefined) return { behavior: "deny", message: Messages.wholeToolDenied(tool.name), reason: { type: "rule", rule: deny } }
  const ask = find("ask")
  if (ask !== undefined) return { behavior: "ask", kind: "rule", message: Messages.askToUse(tool.name), reason: { type: "rule", rule: ask }, suggestions: [] }
  const allow = find("allow")
  if (allow !== undefined) return { behavior: "allow", reason: { type: "rule", rule: allow } }
  return {
    behavior: "ask",
    kind: "unapproved",
    message: Messages.askToUse(tool.name),
    reason: { type: "default", detail: `no rule allows the skill ${name}` },
    suggestions: [{ rule: `${tool.name}(${name})`, behavior: "allow" }]
  }
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
      return Effect.sync((): SubjectVerdict => checkPath(access, subject.path, makePathContext(env, session, mode, tool.name)))
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

const safeSubject = (tool: AnyTool, input: unknown, session: SessionContext): PermissionSubject | { readonly kind: "invalid"; readonly detail: string } => {
  try {
    return tool.permissionSubject(input, session)
  } catch (e) {
    return { kind: "invalid", detail: e instanceof Error ? e.message : String(e) }
  }
}

/** The decision for one call. Never fails: anything unexpected asks (forced). */
export const decideCall = (request: DecideRequest, env: DecideEnvironment): Effect.Effect<PermissionDecision> =>
  decideUnsafe(request, env).pipe(
    Effect.catchAllCause((cause) =>
      Effect.succeed<PermissionDecision>({
        behavior: "ask",
        message: Messages.askToUse(request.tool.name),
        reason: { type: "safetyCheck", detail: `the permission check failed: ${String(cause)}` },
        forced: true,
        suggestions: []
      })
    )
  )

// fnUntraced, made once: an Effect.gen around a generator made per call costs ~4 µs a call.
const decideUnsafe = Effect.fnUntraced(
  function* (request: DecideRequest, env: DecideEnvironment) {
    const { tool, input, session } = request
    const mode = effectiveMode(session.permissionMode, env.bypassDisabled)
    const rules = env.rules

    // a. whole-tool and parameter deny rules
    const wholeDeny = wholeToolRule(rules, "deny", tool.name)
    if (wholeDeny !== undefined) {
      return { behavior: "deny", message: Messages.wholeToolDenied(tool.name), reason: { type: "rule", rule: wholeDeny } } satisfies PermissionDecision
    }
    const ownRules = rules.filter((r) => r.content !== undefined && matchesToolName(r.toolName, tool.name, r.behavior))
    const paramDeny = ownRules.find((r) => r.behavior === "deny" && parameterRuleMatches(r, tool, input))
    if (paramDeny !== undefined) {
      return { behavior: "deny", message: Messages.wholeToolDenied(tool.name), reason: { type: "rule", rule: paramDeny } } satisfies PermissionDecision
    }

    // the subject's content rules and the tool's own check
    const subjectOrError = safeSubject(tool, input, session)
    const subject: SubjectVerdict =
      subjectOrError.kind === "invalid"
        ? {
            behavior: "ask",
            kind: "safety",
            message: Messages.askToUse(tool.name),
            reason: { type: "safetyCheck", detail: `cannot tell what the call touches: ${subjectOrError.detail}` },
            suggestions: []
          }
        : yield* checkSubject(subjectOrError, request, env, mode)
    const ownCheck = tool.checkPermissions(input, { session, fileState: env.fileState, mode })
    const own = isReady(ownCheck)
      ? ownCheck.value
      : yield* ownCheck.pipe(
          Effect.catchAllCause((cause) =>
            Effect.succeed({ behavior: "ask" as const, message: Messages.askToUse(tool.name), forced: true, detail: String(cause) })
          )
        )
    const subcommands = subject.behavior === "passthrough" ? undefined : subject.subcommands
    const withSubcommands = optional("subcommands", subcommands)

    if (subject.behavior === "deny") return { behavior: "deny", message: subject.message, reason: subject.reason, ...withSubcommands } satisfies PermissionDecision
    if (own.behavior === "deny") return { behavior: "deny", message: own.message, reason: { type: "tool", detail: own.message }, ...withSubcommands } satisfies PermissionDecision

    // b. forced asks
    const forcedAsk = (message: string, reason: DecisionReason): PermissionDecision => ({ behavior: "ask", message, reason, forced: true, suggestions: [], ...withSubcommands })
    const wholeAsk = wholeToolRule(rules, "ask", tool.name)
    if (wholeAsk !== undefined) {
      // a path the mode would ask about anyway is named, as Claude Code does (a bare `Write` ask in default mode)
      const pathAsk = subject.behavior === "ask" && subject.kind === "unapproved" && (subjectOrError.kind === "read" || subjectOrError.kind === "write")
      return forcedAsk(pathAsk ? subject.message : Messages.askToUse(tool.name), { type: "rule", rule: wholeAsk })
    }
    const paramAsk = ownRules.find((r) => r.behavior === "ask" && parameterRuleMatches(r, tool, input))
    if (paramAsk !== undefined) return forcedAsk(Messages.askToUse(tool.name), { type: "rule", rule: paramAsk })
    if (subject.behavior === "ask" && subject.kind !== "unapproved" && subject.kind !== "guarded") {
      const bypassSkips = subject.kind === "protected" && mode === "bypassPermissions"
      if (!bypassSkips) return forcedAsk(subject.message, subject.reason)
    }
    if (own.behavior === "ask" && own.forced === true) {
      return forcedAsk(own.message, { type: "safetyCheck", detail: "detail" in own ? `the tool's own check failed: ${own.detail}` : own.message })
    }
    if (tool.requiresUserInteraction) {
      return forcedAsk(Messages.askToUse(tool.name), { type: "tool", detail: "the tool needs the user's interaction" })
    }

    // c. bypassPermissions
    if (mode === "bypassPermissions") {
      return { behavior: "allow", reason: { type: "mode", mode, detail: "everything not denied or forced to ask runs" }, ...withSubcommands } satisfies PermissionDecision
    }

    // d. whole-tool allow
    const wholeAllow = wholeToolRule(rules, "allow", tool.name)
    if (wholeAllow !== undefined) return { behavior: "allow", reason: { type: "rule", rule: wholeAllow }, ...withSubcommands } satisfies PermissionDecision

    // e. the subject's and the tool's allow; any unapproved ask wins over an allow
    if (subject.behavior === "ask" || own.behavior === "ask") {
      const message = subject.behavior === "ask" ? subject.message : own.behavior === "ask" ? own.message : Messages.askToUse(tool.name)
      const reason: DecisionReason = subject.behavior === "ask" ? subject.reason : { type: "tool", detail: message }
      // a subject's ask suggests only its own narrow rules (never a bare `Bash` or `Edit`)
      const suggestions = subject.behavior === "ask" ? subject.suggestions : subject.behavior === "passthrough" ? wholeToolSuggestion(tool.name) : []
      // a guarded ask (a shell command that could not be fully checked) is not a hook's to skip
      const forced = subject.behavior === "ask" && subject.kind === "guarded"
      return { behavior: "ask", message, reason, forced, suggestions, ...withSubcommands } satisfies PermissionDecision
    }
    const ownUpdate = optional("updatedInput", own.behavior === "allow" ? own.updatedInput : undefined)
    if (subject.behavior === "allow") return { behavior: "allow", reason: subject.reason, ...withSubcommands, ...ownUpdate } satisfies PermissionDecision
    if (own.behavior === "allow") {
      return {
        behavior: "allow",
        reason: { type: "tool", detail: own.reason ?? "the tool needs no permission" },
        ...ownUpdate
      } satisfies PermissionDecision
    }

    // f. nothing allowed it
    return {
      behavior: "ask",
      message: Messages.askToUse(tool.name),
      reason: { type: "default", detail: "no rule allows this call" },
      forced: false,
      suggestions: wholeToolSuggestion(tool.name)
    } satisfies PermissionDecision
  }
)
