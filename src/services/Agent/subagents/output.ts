/**
 * What an Agent call gives back. The model sees the subagent's final text (Claude Code's
 * behaviour); PostToolUse hooks get Claude Code's `tool_response` shape (`status`, `agentId`,
 * `content`, `totalDurationMs`, `totalTokens`, `totalToolUseCount`, `usage`, `prompt`) plus the
 * agent type and why it stopped.
 */
import type { Usage } from "../../../ModelEvents.js"
import type { StopKind } from "../../Agent.js"

export interface AgentOutput {
  readonly agentId: string
  readonly agentType: string
  readonly description: string
  readonly prompt: string
  /** The model the subagent ran on (`scripted:<file>` for the scripted model). */
  readonly model: string
  /** The text of the subagent's last message. */
  readonly text: string
  readonly stop: StopKind
  readonly turns: number
  readonly usage: Usage
  readonly toolUseCount: number
  readonly durationMs: number
}

export const agentResultText = (output: AgentOutput): string =>
  output.text.trim() === "" ? "(Agent completed with no output)" : output.text

export const agentHookResponse = (output: AgentOutput) => ({
  status: "completed",
  agentId: output.agentId,
  agentType: output.agentType,
  prompt: output.prompt,
  content: [{ type: "text", text: output.text }],
  totalDurationMs: output.durationMs,
  totalTokens: output.usage.input_tokens + output.usage.output_tokens + output.usage.cache_creation_input_tokens +
    output.usage.cache_read_input_tokens,
  totalToolUseCount: output.toolUseCount,
  usage: output.usage,
  stop: output.stop,
  turns: output.turns
})
