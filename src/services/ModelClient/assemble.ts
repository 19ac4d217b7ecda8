/**
 * Assembles the Anthropic stream's raw events into typed model events. One assembler per message.
 * Text and tool input are accumulated per block index; a tool_use's input is parsed once, at its
 * block's `content_block_stop` ("" is `{}`, invalid JSON an `UnparsableInput` that the validator
 * answers with an error result). `ping` and unknown event, block and delta types are ignored;
 * an `error` event fails the message.
 */
import { UnparsableInput } from "../../Messages.js"
import { ModelStreamError } from "./errors.js"
import type { AssistantBlock, ModelEvent, Usage } from "../../ModelEvents.js"
import { isRecord } from "../../internal/json.js"

interface OpenBlock {
  readonly type: string
  readonly start: Record<string, unknown>
  text: string
  signature: string
  json: string
  fragments: number
}

const str = (u: unknown): string => (typeof u === "string" ? u : "")
const num = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)

export const usageOf = (u: unknown): Usage => {
  const o = isRecord(u) ? u : {}
  return {
    input_tokens: num(o.input_tokens),
    output_tokens: num(o.output_tokens),
    cache_creation_input_tokens: num(o.cache_creation_input_tokens),
    cache_read_input_tokens: num(o.cache_read_input_tokens)
  }
}

/** Parses a tool_use's accumulated input: "" is `{}`; invalid JSON is kept, never guessed at. */
export const parseToolInput = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    return new UnparsableInput(text, (e as Error).message)
  }
}

export interface PushResult {
  readonly events: ReadonlyArray<ModelEvent>
  readonly error?: ModelStreamError
}

export class Assembler {
  private readonly blocks = new Map<number, OpenBlock>()
  private started = false
  private stopped = false

  /** True once `message_stop` arrived. */
  get complete(): boolean {
    return this.stopped
  }

  push(raw: unknown): PushResult {
    if (!isRecord(raw) || typeof raw.type !== "string") return { events: [] }
    switch (raw.type) {
      case "error": {
        const error = isRecord(raw.error) ? raw.error : {}
        return {
          events: [],
          error: new ModelStreamError({
            errorType: str(error.type) || "error",
            reason: str(error.message) || "the API sent an error event",
            beforeFirstEvent: !this.started
          })
        }
      }
      case "message_start": {
        this.started = true
        const message = isRecord(raw.message) ? raw.message : {}
        return {
          events: [{
            _tag: "MessageStart",
            id: str(message.id),
            model: str(message.model),
            usage: usageOf(message.usage)
          }]
        }
      }
      case "content_block_start": {
        this.started = true
        const index = num(raw.index)
        const start = isRecord(raw.content_block) ? raw.content_block : {}
        const type = str(start.type)
        this.blocks.set(index, {
          type,
          start,
          text: type === "text" ? str(start.text) : type === "thinking" ? str(start.thinking) : "",
          signature: str(start.signature),
          json: "",
          fragments: 0
        })
        return {
          events: [
            type === "tool_use"
              ? { _tag: "BlockStart", index, blockType: type, toolUse: { id: str(start.id), name: str(start.name) } }
              : { _tag: "BlockStart", index, blockType: type }
          ]
        }
      }
      case "content_block_delta": {
        const index = num(raw.index)
        const block = this.blocks.get(index)
        const delta = isRecord(raw.delta) ? raw.delta : {}
        if (block === undefined) return { events: [] }
        switch (delta.type) {
          case "text_delta":
            block.text += str(delta.text)
            return { events: [{ _tag: "TextDelta", index, text: str(delta.text) }] }
          case "thinking_delta":
            block.text += str(delta.thinking)
            return { events: [{ _tag: "ThinkingDelta", index, text: str(delta.thinking) }] }
          case "signature_delta":
            block.signature += str(delta.signature)
            return { events: [] }
          case "input_json_delta":
            block.json += str(delta.partial_json)
            block.fragments++
            return {
              events: [{
                _tag: "ToolInputDelta",
                index,
                toolUseId: str(block.start.id),
                partialJson: str(delta.partial_json)
              }]
            }
          default:
            return { events: [] }
        }
      }
      case "content_block_stop": {
        const index = num(raw.index)
        const block = this.blocks.get(index)
        if (block === undefined) return { events: [] }
        this.blocks.delete(index)
        return { events: [{ _tag: "BlockStop", index, block: finish(block) }] }
      }
      case "message_delta": {
        const delta = isRecord(raw.delta) ? raw.delta : {}
        const stopReason = typeof delta.stop_reason === "string" ? delta.stop_reason : undefined
        return {
          events: [{
            _tag: "MessageDelta",
            stopReason,
            stopDetails: delta.stop_details ?? undefined,
            usage: usageOf(raw.usage)
          }]
        }
      }
      case "message_stop":
        this.stopped = true
        return { events: [{ _tag: "MessageStop" }] }
      default:
        return { events: [] }
    }
  }

  /** At the end of the stream: a message that never stopped was cut off. */
  end(): ModelStreamError | undefined {
    if (this.stopped) return undefined
    return new ModelStreamError({
      errorType: "connection",
      reason: "the stream ended before message_stop",
      beforeFirstEvent: !this.started
    })
  }
}

const finish = (block: OpenBlock): AssistantBlock => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "thinking":
      return { type: "thinking", thinking: block.text, signature: block.signature }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: str(block.start.data) }
    case "tool_use": {
      // The start event's `input: {}` is a placeholder; only a proxy that sends no fragments
      // and a whole input there is taken at its word.
      const given = block.start.input
      const input = block.fragments === 0 && isRecord(given) && Object.keys(given).length > 0
        ? given
        : parseToolInput(block.json)
      return { type: "tool_use", id: str(block.start.id), name: str(block.start.name), input }
    }
    case "server_tool_use":
      return {
        type: "other",
        block: { ...block.start, input: block.fragments === 0 ? block.start.input ?? {} : parseToolInput(block.json) }
      }
    default:
      return { type: "other", block: block.start }
  }
}
