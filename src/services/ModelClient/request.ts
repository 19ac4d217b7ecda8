/**
 * The Messages API request of one turn: streaming, the tools in the pool's stable order, and
 * prompt-cache breakpoints on the system prompt and on the last tool (the two prefixes that stay
 * the same from turn to turn).
 */
import type { ModelRequest } from "../ModelClient.js"

export const EPHEMERAL = { type: "ephemeral" } as const

export const buildParams = (model: string, maxTokens: number, request: ModelRequest): Record<string, unknown> => {
  const last = request.tools.length - 1
  const tools: ReadonlyArray<unknown> = [
    ...request.tools.map((tool, i) => (i === last ? { ...tool, cache_control: EPHEMERAL } : tool)),
    ...(request.serverTools ?? [])
  ]
  return {
    model,
    max_tokens: maxTokens,
    stream: true,
    ...(request.system.trim() === ""
      ? {}
      : { system: [{ type: "text", text: request.system, cache_control: EPHEMERAL }] }),
    ...(tools.length === 0 ? {} : { tools }),
    ...(request.toolChoice === undefined ? {} : { tool_choice: request.toolChoice }),
    messages: request.messages
  }
}
