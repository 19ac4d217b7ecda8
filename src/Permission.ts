/**
 * Permission vocabulary shared by the Permissions stage, the tools and the CLI explainer
 * (claude-code-spec §1).
 */
import { Schema } from "effect"

export type PermissionMode =
  | "default"
  | "acceptEdits"
  | "plan"
  | "dontAsk"
  | "bypassPermissions"
  | "auto"

export const PERMISSION_MODES: ReadonlyArray<PermissionMode> = [
  "default",
  "acceptEdits",
  "plan",
  "dontAsk",
  "bypassPermissions",
  "auto"
]

/** A mode's name in a document (served sessions' API and policy files). */
export const PermissionModeName = Schema.Literal(...PERMISSION_MODES)

/** Parses a mode name; `manual` is an alias of `default` (spec §1.2). */
export const parsePermissionMode = (name: string): PermissionMode | undefined =>
  name === "manual" ? "default" : (PERMISSION_MODES as ReadonlyArray<string>).includes(name) ? (name as PermissionMode) : undefined

export type RuleBehavior = "allow" | "deny" | "ask"

/** Where a rule came from; names as in Claude Code (spec §1.1). */
export type RuleSource =
  | "policySettings"
  | "flagSettings"
  | "cliArg"
  | "localSettings"
  | "projectSettings"
  | "userSettings"
  | "session"
  | "command"

/** A parsed permission rule with its origin. */
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
  /** The directory that anchors `/path` patterns of this rule (spec §1.7). */
  readonly root: string
}

/**
 * What a call touches, as far as content rules are concerned. A tool names its subject; the
 * Permissions stage matches rules, working directories, protected paths and the mode on it.
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

/** Which deny rule families cover a path. */
export interface PathDenials {
  readonly read: boolean
  readonly edit: boolean
}

/**
 * The session's path deny rules as a tool may consult them: the file tools check them before
 * hooks run (Claude Code's wording), searches leave out the files a Read deny rule covers.
 */
export interface PathRules {
  /** Some Read deny rule names paths: searches must filter what they find. */
  readonly anyReadDeny: boolean
  /** For an absolute path; every name of the path is considered (symlinks resolved). */
  readonly denials: (absolutePath: string) => PathDenials
}

/** A tool's own verdict before rules and mode are applied (spec §1.4 step c). */
export type ToolPermissionResult =
  | { readonly behavior: "allow"; readonly reason?: string; readonly updatedInput?: unknown }
  | { readonly behavior: "deny"; readonly message: string }
  | {
      readonly behavior: "ask"
      readonly message: string
      /** A safety check or a need for user interaction: no mode, allow rule or hook allow skips it. */
      readonly forced?: boolean
    }
  | { readonly behavior: "passthrough" }

/** Why a decision came out the way it did; used by the explainer and for messages. */
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

/** One part of a compound Bash command, with its own verdict (for the explainer). */
export interface SubcommandVerdict {
  readonly command: string
  readonly behavior: "allow" | "ask" | "deny"
  readonly reason: string
  readonly rule?: PermissionRule
}

/** A rule the user could add to stop being asked (shown in prompts, saved on "always"). */
export interface RuleSuggestion {
  readonly rule: string
  readonly behavior: RuleBehavior
}

export type PermissionDecision =
  | {
      readonly behavior: "allow"
      readonly reason: DecisionReason
      readonly updatedInput?: unknown
      readonly subcommands?: ReadonlyArray<SubcommandVerdict>
    }
  | {
      readonly behavior: "deny"
      readonly message: string
      readonly reason: DecisionReason
      readonly subcommands?: ReadonlyArray<SubcommandVerdict>
    }
  | {
      readonly behavior: "ask"
      readonly message: string
      readonly reason: DecisionReason
      /** True when a hook `allow` may not skip this ask (ask rule, safety check, interaction). */
      readonly forced: boolean
      readonly suggestions: ReadonlyArray<RuleSuggestion>
      readonly subcommands?: ReadonlyArray<SubcommandVerdict>
    }

export const describeReason = (reason: DecisionReason): string => {
  switch (reason.type) {
    case "rule":
      return `rule '${reason.rule.raw}' (${reason.rule.behavior}) from ${reason.rule.source}${reason.rule.file ? ` (${reason.rule.file})` : ""}`
    case "mode":
      return `mode ${reason.mode}${reason.detail ? `: ${reason.detail}` : ""}`
    default:
      return `${reason.type}: ${reason.detail}`
  }
}
