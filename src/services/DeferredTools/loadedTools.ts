/**
 * Which deferred tools the conversation has loaded: the `matches` of every successful ToolSearch
 * result in it. Derived from the messages rather than kept as state, as Claude Code derives it
 * from its `tool_reference` blocks, so a resumed or replayed conversation loads the same tools.
 * Pure.
 */
import type { ModelMessage } from "../ModelClient.js"
import { TOOL_SEARCH_NAME } from "./deferral.js"
import { parseMatches } from "./resultText.js"

type Block = Readonly<Record<string, unknown>>

const blocksOf = (
  message: ModelMessage
): ReadonlyArray<Block> => (typeof message.content === "string" ? [] : message.content)

const resultText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const first = content.find((block): block is { type: "text"; text: string } =>
    block?.type === "text" && typeof block.text === "string"
  )
  return first?.text
}

export const loadedToolNames = (messages: ReadonlyArray<ModelMessage>): ReadonlySet<string> => {
  const searches = new Set<string>()
  const loaded = new Set<string>()
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (
        message.role === "assistant" && block.type === "tool_use" && block.name === TOOL_SEARCH_NAME &&
        typeof block.id === "string"
      ) {
        searches.add(block.id)
      } else if (
        message.role === "user" && block.type === "tool_result" && searches.has(block.tool_use_id as string) &&
        block.is_error !== true
      ) {
        const text = resultText(block.content)
        for (const name of (text === undefined ? undefined : parseMatches(text)) ?? []) loaded.add(name)
      }
    }
  }
  return loaded
}
