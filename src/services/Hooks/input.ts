/**
 * The JSON object each hook reads on stdin.
 */
import type { AnyTool } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import type { RuleSuggestion } from "../../Permission.js"
import { parseRuleText } from "../../PermissionRules.js"
import { middleTruncate } from "./capText.js"
import type {
  NotificationInput,
  SessionEndInput,
  SessionEndReason,
  SessionStartInput,
  SessionStartSource,
  StopInput,
  SubagentStopInput,
  UserPromptSubmitInput,
  PermissionRequestInput,
  PermissionUpdateEntry,
  PostToolBatchInput,
  PostToolUseFailureInput,
  PostToolUseInput,
  PreToolUseInput
} from "./types.js"

const base = (session: SessionContext) => ({
  session_id: session.sessionId,
  transcript_path: session.transcriptPath ?? "",
  cwd: session.cwd,
  ...(session.promptId === undefined ? {} : { prompt_id: session.promptId }),
  permission_mode: session.permissionMode,
  ...(session.agent === undefined ? {} : { agent_id: session.agent.id, agent_type: session.agent.type })
})

/** The session events carry no permission mode and no prompt. */
const sessionBase = (session: SessionContext) => ({
  session_id: session.sessionId,
  transcript_path: session.transcriptPath ?? "",
  cwd: session.cwd
})

const toolFields = (tool: AnyTool, toolInput: unknown) => ({
  tool_name: tool.name,
  tool_input: toolInput,
  ...(tool.mcp === undefined
    ? {}
    : {
      mcp_server: tool.mcp.source === undefined
        ? { name: tool.mcp.serverName }
        : { name: tool.mcp.serverName, source: tool.mcp.source }
    })
})

export const preToolUseInput = (
  session: SessionContext,
  tool: AnyTool,
  toolInput: unknown,
  toolUseId: string
): PreToolUseInput => ({
  ...base(session),
  hook_event_name: "PreToolUse",
  ...toolFields(tool, toolInput),
  tool_use_id: toolUseId
})

/** Rule suggestions as permission-update entries (what Claude Code passes as `permission_suggestions`). */
export const suggestionsAsUpdates = (
  suggestions: ReadonlyArray<RuleSuggestion>
): ReadonlyArray<PermissionUpdateEntry> =>
  suggestions.map((s) => {
    const { toolName, content } = parseRuleText(s.rule)
    return {
      type: "addRules",
      rules: [content === undefined ? { toolName } : { toolName, ruleContent: content }],
      behavior: s.behavior,
      destination: "localSettings"
    }
  })

export const permissionRequestInput = (
  session: SessionContext,
  tool: AnyTool,
  toolInput: unknown,
  suggestions: ReadonlyArray<RuleSuggestion>
): PermissionRequestInput => ({
  ...base(session),
  hook_event_name: "PermissionRequest",
  ...toolFields(tool, toolInput),
  ...(suggestions.length === 0 ? {} : { permission_suggestions: suggestionsAsUpdates(suggestions) })
})

export const postToolUseInput = (
  session: SessionContext,
  tool: AnyTool,
  toolInput: unknown,
  toolUseId: string,
  toolResponse: unknown,
  durationMs: number
): PostToolUseInput => ({
  ...base(session),
  hook_event_name: "PostToolUse",
  ...toolFields(tool, toolInput),
  tool_use_id: toolUseId,
  tool_response: toolResponse,
  duration_ms: Math.round(durationMs)
})

export const postToolUseFailureInput = (
  session: SessionContext,
  tool: AnyTool,
  toolInput: unknown,
  toolUseId: string,
  error: string,
  isInterrupt: boolean,
  durationMs: number
): PostToolUseFailureInput => ({
  ...base(session),
  hook_event_name: "PostToolUseFailure",
  ...toolFields(tool, toolInput),
  tool_use_id: toolUseId,
  error: middleTruncate(error),
  is_interrupt: isInterrupt,
  duration_ms: Math.round(durationMs)
})

export const postToolBatchInput = (
  session: SessionContext,
  calls: ReadonlyArray<
    {
      readonly toolName: string
      readonly toolInput: unknown
      readonly toolUseId: string
      readonly toolResponse: unknown
    }
  >
): PostToolBatchInput => ({
  ...base(session),
  hook_event_name: "PostToolBatch",
  tool_calls: calls.map((c) => ({
    tool_name: c.toolName,
    tool_input: c.toolInput,
    tool_use_id: c.toolUseId,
    tool_response: c.toolResponse
  }))
})

export const userPromptSubmitInput = (session: SessionContext, prompt: string): UserPromptSubmitInput => ({
  ...base(session),
  hook_event_name: "UserPromptSubmit",
  prompt
})

export interface StopRequestFields {
  readonly stopHookActive: boolean
  readonly lastAssistantMessage: string | undefined
  readonly backgroundTasks?: ReadonlyArray<unknown>
}

export const stopInput = (session: SessionContext, fields: StopRequestFields): StopInput | SubagentStopInput => {
  const last = {
    ...(fields.lastAssistantMessage === undefined || fields.lastAssistantMessage === ""
      ? {}
      : { last_assistant_message: fields.lastAssistantMessage }),
    // toolgate schedules nothing, so `session_crons` is always empty
    ...(fields.backgroundTasks === undefined ? {} : { background_tasks: fields.backgroundTasks, session_crons: [] })
  }
  const { agent_id: _id, agent_type: _type, ...common } = base(session) as ReturnType<typeof base> & {
    agent_id?: string
    agent_type?: string
  }
  return session.agent === undefined
    ? { ...common, hook_event_name: "Stop", stop_hook_active: fields.stopHookActive, ...last }
    : {
      ...common,
      hook_event_name: "SubagentStop",
      stop_hook_active: fields.stopHookActive,
      agent_id: session.agent.id,
      agent_transcript_path: session.transcriptPath ?? "",
      agent_type: session.agent.type,
      ...last
    }
}

export const sessionStartInput = (
  session: SessionContext,
  source: SessionStartSource,
  model: string | undefined
): SessionStartInput => ({
  ...sessionBase(session),
  hook_event_name: "SessionStart",
  source,
  ...(model === undefined ? {} : { model })
})

export const sessionEndInput = (session: SessionContext, reason: SessionEndReason): SessionEndInput => ({
  ...sessionBase(session),
  hook_event_name: "SessionEnd",
  reason
})

export const notificationInput = (
  session: SessionContext,
  message: string,
  notificationType: string,
  title: string | undefined
): NotificationInput => ({
  ...sessionBase(session),
  hook_event_name: "Notification",
  message,
  ...(title === undefined ? {} : { title }),
  notification_type: notificationType
})

/** Serialises the input for stdin; values JSON cannot hold (bigint, cycles) are replaced, never thrown. */
export const serialiseInput = (input: object): string => {
  try {
    return JSON.stringify(input)
  } catch {
    const seen = new WeakSet<object>()
    return JSON.stringify(input, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString()
      if (typeof value === "object" && value !== null) {
        if (seen.has(value)) return "[Circular]"
        seen.add(value)
      }
      return value
    })
  }
}
