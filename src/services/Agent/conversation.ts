/**
 * The conversation as the Messages API sees it, and the rules that keep it valid: every tool_use
 * of an assistant message answered by exactly one tool_result in the next user message, in
 * tool_use order and before any other block; no empty text blocks; user content merged rather
 * than sent as two user messages in a row.
 */
import { INTERRUPT_MARKER } from "../../Errors.js"
import { toolResult, UnparsableInput, type ToolResultBlock } from "../../Messages.js"
import type { AssistantBlock, Usage } from "../../ModelEvents.js"
import { emptyUsage } from "../../ModelEvents.js"
import type { ModelMessage } from "../ModelClient.js"
import type { SessionContext } from "../../Session.js"
import { isRecord } from "../../internal/json.js"

type Block = Readonly<Record<string, unknown>>

export interface Conversation {
  readonly messages: ReadonlyArray<ModelMessage>
  /** The session after context modifiers (e.g. a Bash `cd`). */
  readonly session: SessionContext
  readonly usage: Usage
  /** Model turns so far, over every prompt. */
  readonly turns: number
}

export const newConversation = (session: SessionContext): Conversation => ({
  messages: [],
  session,
  usage: emptyUsage,
  turns: 0
})

export const INTERRUPTED_TEXT = "[Request interrupted by user]"
export { INTERRUPT_MARKER }

/** An assistant block as it is sent back; an input that never parsed is sent as `{}`. */
export const toApiBlock = (block: AssistantBlock): Block => {
  switch (block.type) {
    case "tool_use":
      return {
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: block.input instanceof UnparsableInput || !isRecord(block.input) ? {} : block.input
      }
    case "other":
      return block.block.input instanceof UnparsableInput ? { ...block.block, input: {} } : block.block
    default:
      return block
  }
}

/** The assistant message of a turn, or undefined when nothing usable arrived. */
export const assistantMessage = (blocks: ReadonlyArray<AssistantBlock>): ModelMessage | undefined => {
  const content = blocks.filter((b) => !(b.type === "text" && b.text.trim() === "")).map(toApiBlock)
  return content.length === 0 ? undefined : { role: "assistant", content }
}

const blocksOf = (content: ModelMessage["content"]): ReadonlyArray<Block> =>
  typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : content

/** Appends user content, merged into the last message when that is a user message too. */
export const appendUser = (
  messages: ReadonlyArray<ModelMessage>,
  content: ReadonlyArray<Block>
): ReadonlyArray<ModelMessage> => {
  if (content.length === 0) return messages
  const last = messages[messages.length - 1]
  if (last !== undefined && last.role === "user") {
    return [...messages.slice(0, -1), { role: "user", content: [...blocksOf(last.content), ...content] }]
  }
  return [...messages, { role: "user", content }]
}

export const appendAssistant = (
  messages: ReadonlyArray<ModelMessage>,
  message: ModelMessage | undefined
): ReadonlyArray<ModelMessage> => message === undefined ? messages : [...messages, message]

/** The blocks of a prompt: a string, or content blocks. */
export const promptBlocks = (prompt: string | ReadonlyArray<Block>): ReadonlyArray<Block> =>
  typeof prompt === "string" ? (prompt.trim() === "" ? [] : [{ type: "text", text: prompt }]) : prompt

/**
 * A tool's `newMessages` as user content: strings become text blocks, content blocks pass, and a
 * user message gives its blocks. Anything else cannot follow the tool results and is reported.
 */
export const newMessageBlocks = (
  messages: ReadonlyArray<unknown>
): { readonly blocks: ReadonlyArray<Block>; readonly skipped: number } => {
  const blocks: Array<Block> = []
  let skipped = 0
  for (const m of messages) {
    if (typeof m === "string") {
      if (m.trim() !== "") blocks.push({ type: "text", text: m })
    } else if (isRecord(m) && m.role === "user" && (typeof m.content === "string" || Array.isArray(m.content))) {
      blocks.push(...blocksOf(m.content as ModelMessage["content"]).filter(isRecord))
    } else if (isRecord(m) && (m.type === "text" || m.type === "image" || m.type === "document")) {
      blocks.push(m)
    } else skipped++
  }
  return { blocks, skipped }
}

/**
 * Makes sure every tool_use of `assistant` has exactly one result, in tool_use order, first in
 * the user content; `fallback` answers any the scheduler did not (it always should).
 */
export const answerEveryToolUse = (
  assistant: ModelMessage | undefined,
  userContent: ReadonlyArray<Block>,
  fallback: (toolUseId: string, name: string) => ToolResultBlock
): ReadonlyArray<Block> => {
  const uses = assistant === undefined ? [] : blocksOf(assistant.content).filter((b) => b.type === "tool_use")
  const results = new Map<string, Block>()
  const rest: Array<Block> = []
  for (const block of userContent) {
    if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
      if (!results.has(block.tool_use_id)) results.set(block.tool_use_id, block)
    } else rest.push(block)
  }
  const seen = new Set<string>()
  const ordered: Array<Block> = []
  for (const use of uses) {
    const id = String(use.id)
    if (seen.has(id)) continue
    seen.add(id)
    ordered.push(results.get(id) ?? fallback(id, String(use.name)))
  }
  return [...ordered, ...rest]
}

/**
 * Claude Code's answer, on resume, to a call the transcript has no result for: it may or may not
 * have taken effect (the session ended while it ran).
 */
export const OUTCOME_UNKNOWN_TEXT =
  "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]"

export const outcomeUnknownResult = (toolUseId: string): ToolResultBlock =>
  toolResult(toolUseId, OUTCOME_UNKNOWN_TEXT, true)

export const notRunResult = (toolUseId: string, name: string, reason: string): ToolResultBlock =>
  toolResult(toolUseId, `<tool_use_error>Error: this tool call was not run: ${reason}</tool_use_error>`, true)

/** The text of an assistant message. */
export const textOf = (message: ModelMessage | undefined): string =>
  message === undefined
    ? ""
    : blocksOf(message.content)
      .filter((b) => b.type === "text")
      .map((b) => String(b.text))
      .join("")
