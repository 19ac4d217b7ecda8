/**
 * The hook protocol as data: what a hook receives on stdin and what it may
 * answer on stdout. In-process hooks get and return the same shapes.
 */
import type { Effect } from "effect"
import type { PermissionMode } from "../../Permission.js"

export type ToolHookEvent = "PreToolUse" | "PermissionRequest" | "PostToolUse" | "PostToolUseFailure"

/** Events of the agent loop and the session. */
export type LoopHookEvent =
  | "UserPromptSubmit"
  | "Stop"
  | "SubagentStop"
  | "SessionStart"
  | "SessionEnd"
  | "Notification"

export type HookEvent = ToolHookEvent | "PostToolBatch" | LoopHookEvent

export const HOOK_EVENTS: ReadonlyArray<HookEvent> = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "Notification"
]

const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set([
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure"
])

/** Events whose hooks match on `tool_name` and may carry an `if` condition. */
export const isToolEvent = (event: HookEvent): event is ToolHookEvent => TOOL_EVENTS.has(event)

/**
 * What the matcher of a non-tool event is matched against, as Claude Code does: SessionStart
 * the source, SessionEnd the reason, Notification the notification type. Events without an entry
 * (UserPromptSubmit, Stop, SubagentStop, PostToolBatch) ignore matchers.
 */
export const MATCHED_FIELD: Partial<Record<HookEvent, string>> = {
  SessionStart: "source",
  SessionEnd: "reason",
  Notification: "notification_type"
}

interface HookInputBase {
  readonly session_id: string
  readonly transcript_path: string
  readonly cwd: string
  readonly prompt_id?: string
  /** Absent for the session events (SessionStart, SessionEnd, Notification), as in Claude Code. */
  readonly permission_mode?: PermissionMode
  readonly agent_id?: string
  readonly agent_type?: string
}

interface ToolHookInputBase extends HookInputBase {
  readonly tool_name: string
  readonly tool_input: unknown
  readonly mcp_server?: { readonly name: string; readonly source?: string }
}

export interface PreToolUseInput extends ToolHookInputBase {
  readonly hook_event_name: "PreToolUse"
  readonly tool_use_id: string
}

/** A permission-update entry as hooks see and return it. */
export interface PermissionUpdateEntry {
  readonly type: "addRules" | "replaceRules" | "removeRules" | "setMode" | "addDirectories" | "removeDirectories"
  readonly rules?: ReadonlyArray<{ readonly toolName: string; readonly ruleContent?: string }>
  readonly behavior?: "allow" | "deny" | "ask"
  readonly mode?: string
  readonly directories?: ReadonlyArray<string>
  readonly destination: "session" | "localSettings" | "projectSettings" | "userSettings"
}

export interface PermissionRequestInput extends ToolHookInputBase {
  readonly hook_event_name: "PermissionRequest"
  readonly permission_suggestions?: ReadonlyArray<PermissionUpdateEntry>
}

export interface PostToolUseInput extends ToolHookInputBase {
  readonly hook_event_name: "PostToolUse"
  readonly tool_use_id: string
  readonly tool_response: unknown
  readonly duration_ms: number
}

export interface PostToolUseFailureInput extends ToolHookInputBase {
  readonly hook_event_name: "PostToolUseFailure"
  readonly tool_use_id: string
  readonly error: string
  readonly is_interrupt: boolean
  readonly duration_ms: number
}

export interface PostToolBatchInput extends HookInputBase {
  readonly hook_event_name: "PostToolBatch"
  readonly tool_calls: ReadonlyArray<{
    readonly tool_name: string
    readonly tool_input: unknown
    readonly tool_use_id: string
    readonly tool_response: unknown
  }>
}

export interface UserPromptSubmitInput extends HookInputBase {
  readonly hook_event_name: "UserPromptSubmit"
  readonly prompt: string
}

export interface StopInput extends HookInputBase {
  readonly hook_event_name: "Stop"
  /** True when the model is already continuing because a Stop hook blocked before (avoid loops). */
  readonly stop_hook_active: boolean
  readonly last_assistant_message?: string
  readonly background_tasks?: ReadonlyArray<unknown>
  readonly session_crons?: ReadonlyArray<unknown>
}

export interface SubagentStopInput extends HookInputBase {
  readonly hook_event_name: "SubagentStop"
  readonly stop_hook_active: boolean
  readonly agent_id: string
  readonly agent_type: string
  readonly agent_transcript_path: string
  readonly last_assistant_message?: string
  readonly background_tasks?: ReadonlyArray<unknown>
  readonly session_crons?: ReadonlyArray<unknown>
}

export type SessionStartSource = "startup" | "resume" | "clear" | "compact"

export interface SessionStartInput extends HookInputBase {
  readonly hook_event_name: "SessionStart"
  readonly source: SessionStartSource
  readonly model?: string
}

export type SessionEndReason = "clear" | "resume" | "logout" | "prompt_input_exit" | "other"

export interface SessionEndInput extends HookInputBase {
  readonly hook_event_name: "SessionEnd"
  readonly reason: SessionEndReason
}

export interface NotificationInput extends HookInputBase {
  readonly hook_event_name: "Notification"
  readonly message: string
  readonly title?: string
  readonly notification_type: string
}

export type HookInput =
  | PreToolUseInput
  | PermissionRequestInput
  | PostToolUseInput
  | PostToolUseFailureInput
  | PostToolBatchInput
  | UserPromptSubmitInput
  | StopInput
  | SubagentStopInput
  | SessionStartInput
  | SessionEndInput
  | NotificationInput

export interface PreToolUseSpecificOutput {
  readonly hookEventName: "PreToolUse"
  readonly permissionDecision?: "allow" | "deny" | "ask" | "defer"
  readonly permissionDecisionReason?: string
  readonly updatedInput?: Record<string, unknown>
  readonly additionalContext?: string
}

export interface PermissionRequestSpecificOutput {
  readonly hookEventName: "PermissionRequest"
  readonly decision?:
    | {
      readonly behavior: "allow"
      readonly updatedInput?: Record<string, unknown>
      readonly updatedPermissions?: ReadonlyArray<PermissionUpdateEntry>
    }
    | { readonly behavior: "deny"; readonly message?: string; readonly interrupt?: boolean }
}

export interface PostToolUseSpecificOutput {
  readonly hookEventName: "PostToolUse"
  readonly additionalContext?: string
  readonly updatedMCPToolOutput?: unknown
  readonly updatedToolOutput?: unknown
}

export interface PostToolUseFailureSpecificOutput {
  readonly hookEventName: "PostToolUseFailure"
  readonly additionalContext?: string
}

export interface ContextSpecificOutput<E extends HookEvent> {
  readonly hookEventName: E
  readonly additionalContext?: string
}

export type PostToolBatchSpecificOutput = ContextSpecificOutput<"PostToolBatch">

/** What a hook may print on stdout (or an in-process hook return). Unknown keys are ignored. */
export interface HookJsonOutput {
  readonly continue?: boolean
  readonly stopReason?: string
  readonly suppressOutput?: boolean
  readonly systemMessage?: string
  /** Top-level `block`; `approve` is the deprecated PreToolUse allow. */
  readonly decision?: "approve" | "block"
  readonly reason?: string
  readonly hookSpecificOutput?:
    | PreToolUseSpecificOutput
    | PermissionRequestSpecificOutput
    | PostToolUseSpecificOutput
    | PostToolUseFailureSpecificOutput
    | PostToolBatchSpecificOutput
    | ContextSpecificOutput<"UserPromptSubmit" | "SessionStart" | "Stop" | "SubagentStop" | "Notification">
    | { readonly hookEventName: "SessionEnd" }
}

/**
 * A hook written as an Effect function, for library users. It gets the same object a command
 * hook reads on stdin and answers with the same JSON; its answers aggregate with the command
 * hooks' (deny > defer > ask > allow). A failure or defect is a notice, never an approval; a
 * PreToolUse hook that times out blocks the call (as Agent SDK callback hooks do).
 */
export interface InProcessHook {
  readonly event: HookEvent
  /** Same syntax as a settings matcher; ignored for PostToolBatch. */
  readonly matcher?: string
  /** One permission rule, as the settings `if` field. */
  readonly if?: string
  /** Shown in notices and block messages; defaults to `in-process hook`. */
  readonly name?: string
  /** Seconds; default 600. */
  readonly timeout?: number
  readonly run: (input: HookInput) => Effect.Effect<HookJsonOutput | void, unknown>
}
