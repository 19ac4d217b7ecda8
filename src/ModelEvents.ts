/**
 * What a model turn streams, as typed events: the Anthropic stream's raw events assembled into
 * text deltas, finished content blocks (a tool_use's input parsed once, at its block's stop),
 * the stop reason and usage.
 */
import type { ToolUseBlock } from "./Messages.js"

export interface Usage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
}

export const emptyUsage: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0
}

export const addUsage = (a: Usage, b: Usage): Usage => ({
  input_tokens: a.input_tokens + b.input_tokens,
  output_tokens: a.output_tokens + b.output_tokens,
  cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens
})

/**
 * A finished content block of the assistant message. A tool_use's `input` is the parsed JSON
 * (`{}` for an empty input) or an `UnparsableInput`. Blocks toolgate does not interpret
 * (server tool results, future types) are kept as received, so they can be sent back.
 */
export type AssistantBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | ToolUseBlock
  | { readonly type: "other"; readonly block: Record<string, unknown> }

export type ModelEvent =
  /** A raw stream event as received, with the ms since the request was sent (for transcripts). */
  | { readonly _tag: "Raw"; readonly event: unknown; readonly atMs: number }
  | { readonly _tag: "MessageStart"; readonly id: string; readonly model: string; readonly usage: Usage }
  | {
    readonly _tag: "BlockStart"
    readonly index: number
    readonly blockType: string
    readonly toolUse?: { readonly id: string; readonly name: string }
  }
  | { readonly _tag: "TextDelta"; readonly index: number; readonly text: string }
  | { readonly _tag: "ThinkingDelta"; readonly index: number; readonly text: string }
  | {
    readonly _tag: "ToolInputDelta"
    readonly index: number
    readonly toolUseId: string
    readonly partialJson: string
  }
  /** A block finished; for tool_use, its input was parsed here, once. */
  | { readonly _tag: "BlockStop"; readonly index: number; readonly block: AssistantBlock }
  | {
    readonly _tag: "MessageDelta"
    readonly stopReason: string | undefined
    readonly stopDetails: unknown
    readonly usage: Usage
  }
  | { readonly _tag: "MessageStop" }

export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  readonly attempt: number
  readonly maxAttempts: number
  readonly delayMs: number
  readonly reason: string
}
