/**
 * Anthropic Messages API content blocks, as far as the tool runtime needs them.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * @since 0.1.0
 * @category models
 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
})
/**
 * @since 0.1.0
 * @category models
 */
export type TextBlock = typeof TextBlock.Type

/**
 * @since 0.1.0
 * @category models
 */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: Schema.Struct({
    type: Schema.Literal("base64"),
    media_type: Schema.String,
    data: Schema.String
  })
})
/**
 * @since 0.1.0
 * @category models
 */
export type ImageBlock = typeof ImageBlock.Type

/**
 * A PDF sent whole to the model (Read of a `.pdf` file).
 *
 * @since 0.1.0
 * @category models
 */
export const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Struct({
    type: Schema.Literal("base64"),
    media_type: Schema.Literal("application/pdf"),
    data: Schema.String
  })
})
/**
 * @since 0.1.0
 * @category models
 */
export type DocumentBlock = typeof DocumentBlock.Type

/**
 * A `tool_use` block as the model sends it; `input` is untrusted JSON.
 *
 * @since 0.1.0
 * @category models
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})
/**
 * @since 0.1.0
 * @category models
 */
export type ToolUseBlock = typeof ToolUseBlock.Type

/**
 * @since 0.1.0
 * @category models
 */
export const ToolResultContent = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Union(TextBlock, ImageBlock, DocumentBlock))
)
/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * @since 0.1.0
 * @category models
 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: ToolResultContent,
  is_error: Schema.optionalWith(Schema.Boolean, { exact: true })
})
/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultBlock = typeof ToolResultBlock.Type

/** The user message that answers an assistant message's tool calls. */
/**
 * A tool definition as the Messages API takes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiToolDefinition {
  readonly name: string
  readonly description: string
  readonly input_schema: Record<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolResultsMessage {
  readonly role: "user"
  readonly content: ReadonlyArray<ToolResultBlock | TextBlock>
}

/**
 * The tool_result blocks of a results message, in tool_use order (its text blocks left out).
 *
 * @since 0.1.0
 * @category utils
 */
export const toolResults = (message: ToolResultsMessage): ReadonlyArray<ToolResultBlock> =>
  message.content.filter((block): block is ToolResultBlock => block.type === "tool_result")

/**
 * @since 0.1.0
 * @category utils
 */
export const toolResult = (
  toolUseId: string,
  content: ToolResultContent,
  isError = false
): ToolResultBlock =>
  isError
    ? { type: "tool_result", tool_use_id: toolUseId, content, is_error: true }
    : { type: "tool_result", tool_use_id: toolUseId, content }

/**
 * Total length of the text in a result, the measure used for size limits.
 *
 * @since 0.1.0
 * @category utils
 */
export const contentLength = (content: ToolResultContent): number =>
  typeof content === "string"
    ? content.length
    : content.reduce((n, block) => n + (block.type === "text" ? block.text.length : 0), 0)

/**
 * @since 0.1.0
 * @category utils
 */
export const contentText = (content: ToolResultContent): string =>
  typeof content === "string"
    ? content
    : content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n")

/**
 * A text the harness adds for the model, not the user or a tool.
 *
 * @since 0.1.0
 * @category utils
 */
export const systemReminder = (text: string): string => `<system-reminder>\n${text}\n</system-reminder>`

/**
 * A result with reminders folded into its content: text content ends in the reminders (after its
 * trailing whitespace is dropped), block content gets one text block per reminder.
 *
 * @since 0.1.0
 * @category utils
 */
export const withReminders = (result: ToolResultBlock, reminders: ReadonlyArray<string>): ToolResultBlock => {
  if (reminders.length === 0) return result
  const wrapped = reminders.map(systemReminder)
  const content: ToolResultContent = typeof result.content === "string"
    ? [result.content.trimEnd(), ...wrapped].join("\n\n")
    : [...result.content, ...wrapped.map((text) => ({ type: "text" as const, text }))]
  return { ...result, content }
}

/**
 * One call's part of a tool results message: the reminders hooks gave before and after its result.
 *
 * @since 0.1.0
 * @category models
 */
export interface AnsweredCall {
  readonly result: ToolResultBlock
  readonly remindersBefore: ReadonlyArray<string>
  readonly remindersAfter: ReadonlyArray<string>
}

/**
 * Lays out a tool results message as Claude Code does. Its parts form a sequence in the order
 * the calls finished (`finishOrder`, indices into `calls`; tool_use order when omitted): for each
 * call the reminders before its result, its result, the reminders after it; then `trailing`.
 * When that sequence starts with a result, every reminder is folded into the result before it;
 * otherwise nothing is folded and the reminders follow the results as text blocks, in sequence
 * order. The results themselves always come first, in tool_use order.
 *
 * @since 0.1.0
 * @category utils
 */
export const layoutToolResults = (
  calls: ReadonlyArray<AnsweredCall>,
  trailing: ReadonlyArray<string> = [],
  finishOrder: ReadonlyArray<number> = calls.map((_, i) => i)
): ReadonlyArray<ToolResultBlock | TextBlock> => {
  const sequence = finishOrder.map((i) => calls[i]!)
  const loose = sequence.length === 0 || sequence[0]!.remindersBefore.length > 0
  if (loose) {
    const reminders = [...sequence.flatMap((c) => [...c.remindersBefore, ...c.remindersAfter]), ...trailing]
    return [
      ...calls.map((c) => c.result),
      ...reminders.map((text): TextBlock => ({ type: "text", text: systemReminder(text) }))
    ]
  }
  const folded = new Map<AnsweredCall, ReadonlyArray<string>>()
  sequence.forEach((call, i) => {
    const next = sequence[i + 1]
    folded.set(call, [...call.remindersAfter, ...(next === undefined ? trailing : next.remindersBefore)])
  })
  return calls.map((call) => withReminders(call.result, folded.get(call) ?? []))
}

/**
 * @since 0.1.0
 * @category utils
 */
export const hasImage = (content: ToolResultContent): boolean =>
  typeof content !== "string" && content.some((block) => block.type !== "text")

/**
 * Stands in for a tool_use input that was not valid JSON (e.g. cut off by max_tokens). It never
 * reaches a tool: the validator turns it into an InputValidationError result.
 *
 * @since 0.1.0
 * @category models
 */
export class UnparsableInput {
  constructor(readonly text: string, readonly reason: string) {}
}
