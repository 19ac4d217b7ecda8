/**
 * Permission vocabulary shared by the Permissions stage, the tools and the CLI explainer.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * @since 0.1.0
 * @category models
 */
export type PermissionMode =
  | "default"
  | "acceptEdits"
  | "plan"
  | "dontAsk"
  | "bypassPermissions"
  | "auto"

/**
 * @since 0.1.0
 * @category constants
 */
export const PERMISSION_MODES: ReadonlyArray<PermissionMode> = [
  "default",
  "acceptEdits",
  "plan",
  "dontAsk",
  "bypassPermissions",
  "auto"
]

/**
 * A mode's name in a document (served sessions' API and policy files).
 *
 * @since 0.1.0
 * @category models
 */
export const PermissionModeName = Schema.Literal(...PERMISSION_MODES)

/**
 * Parses a mode name; `manual` is an alias of `default`.
 *
 * @since 0.1.0
 * @category utils
 */
export const parsePermissionMode = (name: string): PermissionMode | undefined =>
  name === "manual"
    ? "default"
    : (PERMISSION_MODES as ReadonlyArray<string>).includes(name)
    ? (name as PermissionMode)
    : undefined

/**
 * @since 0.1.0
 * @category models
 */
export type RuleBehavior = "allow" | "deny" | "ask"

/**
 * Where a rule came from; names as in Claude Code.
 *
 * @since 0.1.0
 * @category models
 */
export type RuleSource =
  | "policySettings"
  | "flagSettings"
  | "cliArg"
  | "localSettings"
  | "projectSettings"
  | "userSettings"
  | "session"
  | "command"

/**
 * A parsed permission rule with its origin.
 *
 * @since 0.1.0
 * @category models
 */
export interface PermissionRule {
  /** The rule as written, e.g. `Bash(npm run *)`. */
  readonly raw: string
  /** Canonical tool name (legacy names mapped, e.g. `Task` → `Agent`). */
  readonly toolName: string
  /** The specifier inside the parentheses, unescaped; undefined for a whole-tool rule. */
  readonly content: string | undefined
  readonly behavior: RuleBehavior
  readonly source: RuleSource
  /** The settings file the rule came from, when it came from a file. */
  readonly file?: string
  /** The directory that anchors `/path` patterns of this rule. */
  readonly root: string
}

/**
 * What a call touches, as far as content rules are concerned. A tool names its subject; the
 * Permissions stage matches rules, working directories, protected paths and the mode on it.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionSubject =
  | { readonly kind: "none" }
  | { readonly kind: "read"; readonly path: string }
  | { readonly kind: "write"; readonly path: string }
  | {
    readonly kind: "bash"
    readonly command: string
    /** The call asks to run outside the sandbox (Bash `dangerouslyDisableSandbox`). */
    readonly disableSandbox?: boolean
  }
  | { readonly kind: "url"; readonly url: string }
  | { readonly kind: "agent"; readonly agentType: string }
  | { readonly kind: "skill"; readonly name: string; readonly args?: string }

/**
 * Which deny rule families cover a path.
 *
 * @since 0.1.0
 * @category models
 */
export interface PathDenials {
  readonly read: boolean
  readonly edit: boolean
}

/**
 * The session's path deny rules as a tool may consult them: the file tools check them before
 * hooks run (Claude Code's wording), searches leave out the files a Read deny rule covers.
 *
 * @since 0.1.0
 * @category models
 */
export interface PathRules {
  /** Some Read deny rule names paths: searches must filter what they find. */
  readonly anyReadDeny: boolean
  /** For an absolute path; every name of the path is considered (symlinks resolved). */
  readonly denials: (absolutePath: string) => PathDenials
}

/**
 * Why a decision came out the way it did; used by the explainer and for messages.
 *
 * @since 0.1.0
 * @category models
 */
export type DecisionReason =
  | { readonly type: "rule"; readonly rule: PermissionRule }
  | { readonly type: "mode"; readonly mode: PermissionMode; readonly detail?: string }
  | { readonly type: "safetyCheck"; readonly detail: string }
  | { readonly type: "workingDirectory"; readonly detail: string }
  | { readonly type: "readOnly"; readonly detail: string }
  | { readonly type: "tool"; readonly detail: string }
  | { readonly type: "hook"; readonly detail: string }
  | { readonly type: "approval"; readonly detail: string }
  /** Approved because it runs inside the sandbox (`sandbox.autoAllowBashIfSandboxed`). */
  | { readonly type: "sandbox"; readonly detail: string }
  | { readonly type: "default"; readonly detail: string }

/**
 * One part of a compound Bash command, with its own verdict (for the explainer).
 *
 * @since 0.1.0
 * @category models
 */
export interface SubcommandVerdict {
  readonly command: string
  readonly behavior: "allow" | "ask" | "deny"
  readonly reason: string
  readonly rule?: PermissionRule
}

/**
 * A rule the user could add to stop being asked (shown in prompts, saved on "always").
 *
 * @since 0.1.0
 * @category models
 */
export interface RuleSuggestion {
  readonly rule: string
  readonly behavior: RuleBehavior
}

/**
 * Why an ask happened; decides what may skip it.
 *
 * @since 0.1.0
 * @category models
 */
export type AskKind =
  /** nothing allowed it: a mode, an allow rule or a hook allow may skip it */
  | "unapproved"
  /** an explicit ask rule: nothing but a deny changes it */
  | "rule"
  /** a protected directory or file: only bypassPermissions skips it */
  | "protected"
  /** an unresolvable path, a hard link, a critical path, a tool's own forced check: nothing skips it */
  | "safety"
  /** plan mode: file edits always prompt */
  | "plan"
  /** a shell command that could not be fully checked: a tool-wide allow rule or bypassPermissions skips it, a hook's allow does not */
  | "guarded"
  /** a PreToolUse hook asked: nothing skips it */
  | "hook"

/**
 * The call may run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Allow {
  readonly _tag: "Allow"
  readonly reason: DecisionReason
  /** Replaces the input the call runs with. */
  readonly updatedInput?: unknown
  readonly subcommands?: ReadonlyArray<SubcommandVerdict>
}

/**
 * Someone must answer before the call runs (a hook, the person, a callback); with nobody to ask, it is denied.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ask {
  readonly _tag: "Ask"
  /** The prompt text. */
  readonly message: string
  readonly reason: DecisionReason
  readonly kind: AskKind
  /** Rules the user could add to stop being asked. */
  readonly suggestions: ReadonlyArray<RuleSuggestion>
  readonly subcommands?: ReadonlyArray<SubcommandVerdict>
}

/**
 * The call does not run; the model sees `message`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Deny {
  readonly _tag: "Deny"
  readonly message: string
  readonly reason: DecisionReason
  readonly subcommands?: ReadonlyArray<SubcommandVerdict>
}

/**
 * allow / ask / deny, with why: what the Permissions stage decides, what the shell analyzer and
 * the path checks judge, what a tool's own check and a hook say.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision = Allow | Ask | Deny

/**
 * A tool's own check may also leave the call to the rules and the mode.
 *
 * @since 0.1.0
 * @category models
 */
export interface Passthrough {
  readonly _tag: "Passthrough"
}

/**
 * What a tool's `checkPermissions` answers.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCheck = Decision | Passthrough

/**
 * @since 0.1.0
 * @category utils
 */
export const passthrough: Passthrough = { _tag: "Passthrough" }

/**
 * Allowed; a string reason is the tool's own (`{ type: "tool", detail }`).
 *
 * @since 0.1.0
 * @category utils
 */
export const allow = (
  reason: DecisionReason | string = "the tool needs no permission",
  options: { readonly updatedInput?: unknown; readonly subcommands?: ReadonlyArray<SubcommandVerdict> | undefined } = {}
): Allow => {
  const decision: { -readonly [K in keyof Allow]: Allow[K] } = {
    _tag: "Allow",
    reason: typeof reason === "string" ? { type: "tool", detail: reason } : reason
  }
  if (options.updatedInput !== undefined) decision.updatedInput = options.updatedInput
  if (options.subcommands !== undefined) decision.subcommands = options.subcommands
  return decision
}

/**
 * Asks with `message`; by default the tool's own ask, which an allow rule, a mode or a hook may skip.
 *
 * @since 0.1.0
 * @category utils
 */
export const ask = (
  message: string,
  options: {
    readonly reason?: DecisionReason
    readonly kind?: AskKind
    readonly suggestions?: ReadonlyArray<RuleSuggestion>
    readonly subcommands?: ReadonlyArray<SubcommandVerdict> | undefined
  } = {}
): Ask => {
  const decision: { -readonly [K in keyof Ask]: Ask[K] } = {
    _tag: "Ask",
    message,
    reason: options.reason ?? { type: "tool", detail: message },
    kind: options.kind ?? "unapproved",
    suggestions: options.suggestions ?? []
  }
  if (options.subcommands !== undefined) decision.subcommands = options.subcommands
  return decision
}

/**
 * Denied with `message` (what the model sees); by default the tool's own denial.
 *
 * @since 0.1.0
 * @category utils
 */
export const deny = (
  message: string,
  options: { readonly reason?: DecisionReason; readonly subcommands?: ReadonlyArray<SubcommandVerdict> | undefined } =
    {}
): Deny => {
  const decision: { -readonly [K in keyof Deny]: Deny[K] } = {
    _tag: "Deny",
    message,
    reason: options.reason ?? { type: "tool", detail: message }
  }
  if (options.subcommands !== undefined) decision.subcommands = options.subcommands
  return decision
}

/**
 * True when only a deny may change this ask: no mode, allow rule or hook allow skips it.
 *
 * @since 0.1.0
 * @category guards
 */
export const isForced = (decision: Ask): boolean => decision.kind !== "unapproved"

/**
 * `allow` / `ask` / `deny`, as settings, hooks and transcripts spell a decision.
 *
 * @since 0.1.0
 * @category utils
 */
export const behaviorOf = (decision: Decision): RuleBehavior =>
  decision._tag === "Allow" ? "allow" : decision._tag === "Ask" ? "ask" : "deny"

/**
 * A value is one of the decisions above (a stage or a tool written in plain JavaScript may answer anything).
 *
 * @since 0.1.0
 * @category guards
 */
export const isDecision = (value: unknown): value is Decision => {
  if (typeof value !== "object" || value === null) return false
  const tag = (value as { _tag?: unknown })._tag
  const reason = (value as { reason?: unknown }).reason
  if (typeof reason !== "object" || reason === null) return false
  if (tag === "Allow") return true
  const message = (value as { message?: unknown }).message
  if (tag === "Deny") return typeof message === "string"
  return tag === "Ask" && typeof message === "string" && Array.isArray((value as { suggestions?: unknown }).suggestions)
}

/**
 * @since 0.1.0
 * @category utils
 */
export const describeReason = (reason: DecisionReason): string => {
  switch (reason.type) {
    case "rule":
      return `rule '${reason.rule.raw}' (${reason.rule.behavior}) from ${reason.rule.source}${
        reason.rule.file ? ` (${reason.rule.file})` : ""
      }`
    case "mode":
      return `mode ${reason.mode}${reason.detail ? `: ${reason.detail}` : ""}`
    default:
      return `${reason.type}: ${reason.detail}`
  }
}
