/**
 * The Promise face's options, named as the Claude Agent SDK names them where they mean the same,
 * and what they become in the runtime's options.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../services/Approver.js"
import type { HookEvent, HookInput, HookJsonOutput } from "../services/Hooks.js"
import type { PermissionMode } from "../Permission.js"
import type { Tool } from "../Tool.js"
import type { ScriptTurn } from "../layers/Testing.js"

/** What `canUseTool` answers, as in the Agent SDK: `message` of a denial reaches the model. */
export type PermissionResult =
  | {
    readonly behavior: "allow"
    /** Replaces the call's input. */
    readonly updatedInput?: Record<string, unknown>
    /** toolgate: the rules to add for the session (`session`) or to `.claude/settings.local.json` (`always`). */
    readonly updatedPermissions?: ReadonlyArray<
      {
        readonly type: "addRules"
        readonly rules: ReadonlyArray<{ readonly toolName: string; readonly ruleContent?: string }>
        readonly destination?: "session" | "localSettings"
      }
    >
  }
  | {
    readonly behavior: "deny"
    /** What the model sees in place of the rejection text, as with the Agent SDK. */
    readonly message?: string
    /** Stops the whole turn, not just this call. */
    readonly interrupt?: boolean
  }

export interface CanUseToolContext {
  /** Aborted when the run is interrupted. */
  readonly signal: AbortSignal
  /** Rules the person could add to stop being asked, as `Tool(content)`. */
  readonly suggestions: ReadonlyArray<string>
  readonly toolUseID: string
  /** Why it asks (the prompt text). */
  readonly message: string
  /** toolgate: the whole request, with the permission decision behind the question. */
  readonly request: ApprovalRequest
}

/** Answers each permission question; may be async. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  context: CanUseToolContext
) => PermissionResult | Promise<PermissionResult>

/** A hook callback, as in the Agent SDK: Claude Code's hook input in, its hook output JSON out. */
export type HookCallback = (
  input: HookInput,
  toolUseID: string | undefined,
  options: { readonly signal: AbortSignal }
) => HookJsonOutput | void | Promise<HookJsonOutput | void>

export interface HookCallbackMatcher {
  /** As a settings matcher, e.g. `Bash` or `Edit|Write`; every tool when left out. */
  readonly matcher?: string
  readonly hooks: ReadonlyArray<HookCallback>
  /** Seconds (default 600). */
  readonly timeout?: number
}

/** An MCP server, as in `.mcp.json` and the Agent SDK's `mcpServers`. */
export type McpServerConfig =
  | {
    readonly type?: "stdio"
    readonly command: string
    readonly args?: ReadonlyArray<string>
    readonly env?: Readonly<Record<string, string>>
  }
  | { readonly type: "http" | "sse"; readonly url: string; readonly headers?: Readonly<Record<string, string>> }

export interface Options {
  /** The working directory (default: `process.cwd()`). */
  readonly cwd?: string
  readonly allowedTools?: ReadonlyArray<string>
  readonly disallowedTools?: ReadonlyArray<string>
  readonly permissionMode?: PermissionMode
  readonly additionalDirectories?: ReadonlyArray<string>
  readonly canUseTool?: CanUseTool
  readonly hooks?: Partial<Record<HookEvent, ReadonlyArray<HookCallbackMatcher>>>
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>
  /** The environment of Bash commands and background shells (default: this process's). */
  readonly env?: Readonly<Record<string, string>>
  /** A Claude model (with `ANTHROPIC_API_KEY`), or `scripted:FILE` for a recorded session. */
  readonly model?: string
  readonly maxTurns?: number
  /** Aborting it interrupts the run: calls that can be cancelled stop, every call gets a result. */
  readonly abortController?: AbortController
  /** Replaces the system prompt, or (`{ type: "preset", append }`) adds to it. */
  readonly systemPrompt?: string | {
    readonly type: "preset"
    readonly preset?: "claude_code"
    readonly append?: string
  }
  /** toolgate: tools of your own, added to the built-ins (`Tool.buildTool`). */
  readonly tools?: ReadonlyArray<Tool<any, any, any>>
  /** toolgate: settings files or JSON objects given on top of Claude Code's settings files (`--settings`). */
  readonly settings?: ReadonlyArray<string>
  /** toolgate: trust the project's settings and MCP servers without asking. */
  readonly trustProject?: boolean
  /** toolgate: a scripted model, turn by turn (see `Testing.turn`), instead of `model`. */
  readonly script?: ReadonlyArray<ScriptTurn | Readonly<Record<string, unknown>>>
}

/** An approval answer from a `canUseTool` answer. */
export const toApprovalAnswer = (result: PermissionResult): ApprovalAnswer => {
  if (result.behavior === "allow") {
    const rules = (result.updatedPermissions ?? []).flatMap((update) =>
      update.type === "addRules"
        ? update.rules.map((r) => (r.ruleContent === undefined ? r.toolName : `${r.toolName}(${r.ruleContent})`))
        : []
    )
    const scope = rules.length === 0
      ? "once"
      : result.updatedPermissions?.some((u) => u.destination === "localSettings")
      ? "always"
      : "session"
    return {
      behavior: "allow",
      scope,
      ...(rules.length === 0 ? {} : { rules }),
      ...(result.updatedInput === undefined ? {} : { updatedInput: result.updatedInput })
    }
  }
  if (result.behavior === "deny") {
    return {
      behavior: "deny",
      ...(result.message === undefined || result.message === "" ? {} : { message: result.message }),
      ...(result.interrupt === true ? { interrupt: true } : {})
    }
  }
  // anything else is no approval
  return { behavior: "deny" }
}
