/**
 * Scripted sessions: the JSONL files the scripted model replays. One file format serves both
 * hand-written scripts and recorded transcripts (`toolgate run` writes one per session):
 *
 * - `{"type":"session", "prompt"?: string, "cwd"?: string}` or a transcript's `session_start`
 *   line: optional header.
 * - `{"type":"user", "text": "..."}` (script) or a transcript's `user` line with `message`: a prompt.
 * - `{"type":"turn", ...}` (script) or a transcript's `model_turn` line: one model response, as
 *   - `content` + `stop_reason` (+ `delay_ms` before the first event, `usage`): streamed with
 *     realistic timing (text in small chunks, tool input in JSON fragments, the first one empty);
 *   - `events`: raw stream events, each `{"delay_ms"|"at_ms": n, "event": {...}}` or a bare event;
 *   - `error`: `{"status": 529, "type": "overloaded_error", "message": "..."}` — the request
 *     fails (status 0: the network fails), and is retried like a live one.
 * Other line types are ignored, so a transcript is a script.
 *
 * Placeholders: `{{cwd}}` in text and tool inputs is replaced by the session's working directory.
 * A transcript's recorded working directory (its `session_start.cwd`) is replaced the same way,
 * so a recording replays over any folder.
 */
import { Effect, Either, Schema } from "effect"
import { documentIssue, parseJsonText } from "../../internal/documentIssue.js"
import * as fs from "node:fs"
import { ScriptError } from "./errors.js"
import { isRecord } from "../../internal/json.js"

export interface ScriptedEvent {
  /** Wait before this event, in ms (at a time scale of 1). */
  readonly delayMs: number
  readonly event: unknown
}

export type ScriptedTurn =
  | { readonly _tag: "Events"; readonly line: number; readonly events: ReadonlyArray<ScriptedEvent> }
  | {
    readonly _tag: "Failure"
    readonly line: number
    readonly status: number
    readonly errorType: string | undefined
    readonly message: string
  }

export interface Script {
  readonly file: string
  readonly turns: ReadonlyArray<ScriptedTurn>
  /** The prompts, in order: what the user said. */
  readonly prompts: ReadonlyArray<string>
  /** A transcript's working directory (replaced by the replay's). */
  readonly recordedCwd: string | undefined
  /** The transcript's `session_start` line, if any. */
  readonly session: Readonly<Record<string, unknown>> | undefined
}

export const PLACEHOLDER_CWD = "{{cwd}}"

/**
 * Timing of synthesized turns (ms at a time scale of 1): text streams in small chunks; consecutive
 * tool_use blocks arrive as one burst (as the API flushes buffered tool input), so read-only calls
 * overlap. `delay_ms` on a block or the turn overrides the wait before it.
 */
const TIMING = { firstEvent: 250, textChunk: 25, jsonFragment: 0, blockGap: 15, toolGap: 0, end: 20 }

const chunkText = (text: string): Array<string> => {
  const words = text.match(/\S+\s*|\s+/g) ?? [text]
  const chunks: Array<string> = []
  for (let i = 0; i < words.length; i += 3) chunks.push(words.slice(i, i + 3).join(""))
  return chunks.length === 0 ? [""] : chunks
}

const chunkJson = (json: string): Array<string> => {
  const out = [""]
  for (let i = 0; i < json.length; i += 48) out.push(json.slice(i, i + 48))
  return out
}

/** The text of a prompt: a string, or the text blocks of a message. */
export const promptText = (message: unknown): string | undefined => {
  if (typeof message === "string") return message
  if (!isRecord(message)) return undefined
  const content = message.content
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const texts = content.filter((b): b is { type: "text"; text: string } =>
    isRecord(b) && b.type === "text" && typeof b.text === "string"
  )
  return texts.length === 0 ? undefined : texts.map((b) => b.text).join("\n")
}

const Delay = Schema.optional(Schema.Number)
const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  delay_ms: Delay,
  cut: Schema.optional(Schema.Boolean)
})
const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  name: Schema.String,
  id: Schema.optional(Schema.String),
  input: Schema.optional(Schema.Unknown),
  partial_json: Schema.optional(Schema.String),
  delay_ms: Delay,
  cut: Schema.optional(Schema.Boolean)
})
const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.optional(Schema.String),
  signature: Schema.optional(Schema.String),
  delay_ms: Delay,
  cut: Schema.optional(Schema.Boolean)
})
/** A scripted turn's blocks: text, thinking and tool_use (`events` give anything else). */
const Content = Schema.Array(Schema.Union(TextBlock, ToolUseBlock, ThinkingBlock)).annotations({
  identifier: "an array of text, thinking and tool_use blocks"
})
const EVENT_ITEM = "a stream event ({type, …}, or {event, at_ms | delay_ms})"
const EventItem = Schema.Union(
  Schema.Struct({ event: Schema.Unknown, at_ms: Schema.optional(Schema.Number), delay_ms: Delay }).annotations({
    identifier: EVENT_ITEM
  }),
  Schema.Struct({ type: Schema.String }).annotations({ identifier: EVENT_ITEM })
)
const TurnLine = Schema.Struct({
  type: Schema.Literal("turn", "model_turn"),
  content: Schema.optional(Content),
  events: Schema.optional(Schema.Array(EventItem)),
  error: Schema.optional(
    Schema.Struct({
      status: Schema.optional(Schema.Number),
      type: Schema.optional(Schema.String),
      message: Schema.optional(Schema.String)
    })
  ),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  stop_details: Schema.optional(Schema.Unknown),
  usage: Schema.optional(
    Schema.Struct({ input_tokens: Schema.optional(Schema.Number), output_tokens: Schema.optional(Schema.Number) })
  ),
  delay_ms: Delay
})
type TurnLine = typeof TurnLine.Type
const SessionLine = Schema.Struct({
  type: Schema.Literal("session", "session_start"),
  cwd: Schema.optional(Schema.String),
  prompt: Schema.optional(Schema.String)
})
const UserLine = Schema.Struct({
  type: Schema.Literal("user"),
  text: Schema.optional(Schema.String),
  message: Schema.optional(Schema.Unknown)
})
const LineHead = Schema.Struct({ type: Schema.String })

const decodeOrFail = <A, I>(schema: Schema.Schema<A, I>, value: unknown, fail: (reason: string) => never): A =>
  Either.getOrElse(
    Schema.decodeUnknownEither(schema, { errors: "first" })(value),
    (error) => fail(documentIssue(error))
  )

/** A turn given as content: streamed like the API would, with the first input fragment empty. */
const synthesize = (
  turn: TurnLine & { readonly content: typeof Content.Type },
  turnNumber: number
): Array<ScriptedEvent> => {
  const content = turn.content
  const stopReason = turn.stop_reason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn")
  const usage = turn.usage ?? {}
  const events: Array<ScriptedEvent> = [
    {
      delayMs: turn.delay_ms ?? TIMING.firstEvent,
      event: {
        type: "message_start",
        message: {
          id: `msg_scripted_${turnNumber}`,
          type: "message",
          role: "assistant",
          model: "scripted",
          content: [],
          stop_reason: null,
          usage: { input_tokens: usage.input_tokens ?? 0, output_tokens: 1 }
        }
      }
    }
  ]
  content.forEach((block, index) => {
    const previous = index > 0 ? content[index - 1]!.type : undefined
    const after = block.delay_ms ??
      (block.type === "tool_use" && previous === "tool_use" ? TIMING.toolGap : TIMING.blockGap)
    if (block.type === "text") {
      events.push({
        delayMs: after,
        event: { type: "content_block_start", index, content_block: { type: "text", text: "" } }
      })
      for (const chunk of chunkText(block.text)) {
        events.push({
          delayMs: TIMING.textChunk,
          event: { type: "content_block_delta", index, delta: { type: "text_delta", text: chunk } }
        })
      }
    } else if (block.type === "tool_use") {
      const id = block.id ?? `toolu_scripted_${turnNumber}_${index + 1}`
      const json = block.partial_json ?? (block.input === undefined ? "" : JSON.stringify(block.input))
      events.push({
        delayMs: after,
        event: {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id, name: block.name, input: {} }
        }
      })
      for (const fragment of chunkJson(json)) {
        events.push({
          delayMs: TIMING.jsonFragment,
          event: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: fragment } }
        })
      }
    } else {
      events.push({
        delayMs: after,
        event: { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }
      })
      for (const chunk of chunkText(block.thinking ?? "")) {
        events.push({
          delayMs: TIMING.textChunk,
          event: { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: chunk } }
        })
      }
      events.push({
        delayMs: 0,
        event: {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: block.signature ?? "scripted" }
        }
      })
    }
    if (block.cut !== true) events.push({ delayMs: 0, event: { type: "content_block_stop", index } })
  })
  events.push({
    delayMs: TIMING.end,
    event: {
      type: "message_delta",
      delta: {
        stop_reason: stopReason,
        stop_sequence: null,
        ...(turn.stop_details === undefined ? {} : { stop_details: turn.stop_details })
      },
      usage: { output_tokens: usage.output_tokens ?? 10 }
    }
  })
  events.push({ delayMs: 0, event: { type: "message_stop" } })
  return events
}

const rawEvents = (list: ReadonlyArray<typeof EventItem.Type>): Array<ScriptedEvent> => {
  let previousAt = 0
  return list.map((item) => {
    if ("event" in item) {
      if (item.at_ms !== undefined) {
        const delayMs = Math.max(0, item.at_ms - previousAt)
        previousAt = item.at_ms
        return { delayMs, event: item.event }
      }
      return { delayMs: item.delay_ms ?? 0, event: item.event }
    }
    return { delayMs: 0, event: item }
  })
}

/** Parses a script or transcript, each line decoded with a Schema; errors name the line and the path inside it. */
export const parseScript = (file: string, text: string): Either.Either<Script, ScriptError> => {
  const turns: Array<ScriptedTurn> = []
  const prompts: Array<string> = []
  let recordedCwd: string | undefined
  let session: Record<string, unknown> | undefined
  const lines = text.split("\n")
  try {
    lines.forEach((raw, i) => {
      const line = i + 1
      const fail = (reason: string): never => {
        throw new ScriptError({ file, line, reason })
      }
      if (raw.trim() === "") return
      let value: unknown
      try {
        value = parseJsonText(raw)
      } catch (e) {
        fail(`not valid JSON (${(e as Error).message})`)
      }
      if (!isRecord(value)) return fail("each line must be a JSON object")
      const { type } = decodeOrFail(LineHead, value, fail)
      switch (type) {
        case "session":
        case "session_start": {
          const head = decodeOrFail(SessionLine, value, fail)
          session = value
          if (head.cwd !== undefined && head.type === "session_start") recordedCwd = head.cwd
          if (head.prompt !== undefined) prompts.push(head.prompt)
          return
        }
        case "user": {
          const user = decodeOrFail(UserLine, value, fail)
          const prompt = user.text ?? promptText(user.message)
          if (prompt === undefined) return fail("a user line needs `text` (or a `message` with text)")
          prompts.push(prompt)
          return
        }
        case "turn":
        case "model_turn": {
          const turn = decodeOrFail(TurnLine, value, fail)
          if (turn.error !== undefined && turn.events === undefined) {
            turns.push({
              _tag: "Failure",
              line,
              status: turn.error.status ?? 0,
              errorType: turn.error.type,
              message: turn.error.message ?? "scripted failure"
            })
            return
          }
          // the events as written: decoding checked their form but keeps only the keys it names
          if (turn.events !== undefined) {
            turns.push({
              _tag: "Events",
              line,
              events: rawEvents((value as { readonly events: ReadonlyArray<typeof EventItem.Type> }).events)
            })
          } else if (turn.content !== undefined) {
            turns.push({
              _tag: "Events",
              line,
              events: synthesize({ ...turn, content: turn.content }, turns.length + 1)
            })
          } else fail("a turn needs `content` (an array of blocks), `events`, or `error`")
          return
        }
        default:
          return
      }
    })
  } catch (e) {
    if (e instanceof ScriptError) return Either.left(e)
    throw e
  }
  if (turns.length === 0) {
    return Either.left(
      new ScriptError({ file, reason: "no model turns in the file (expected lines of type `turn` or `model_turn`)" })
    )
  }
  return Either.right({ file, turns, prompts, recordedCwd, session })
}

export const loadScript = (file: string): Effect.Effect<Script, ScriptError> =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (e) =>
      new ScriptError({
        file,
        reason: (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `cannot read: ${(e as Error).message}`
      })
  }).pipe(Effect.flatMap((text) => parseScript(file, text)))

const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1)

/**
 * Replaces `{{cwd}}` (and a transcript's recorded cwd) in text and tool-input fragments. Fragments
 * of one block are joined, replaced, and cut again at proportional places, so a path split across
 * fragments is found and the stream keeps its shape (an empty first fragment stays empty).
 */
export const substituteCwd = (
  events: ReadonlyArray<ScriptedEvent>,
  cwd: string,
  recordedCwd: string | undefined
): ReadonlyArray<ScriptedEvent> => {
  const replacePlain = (s: string) => {
    let out = s.split(PLACEHOLDER_CWD).join(cwd)
    if (recordedCwd !== undefined && recordedCwd !== cwd) out = out.split(recordedCwd).join(cwd)
    return out
  }
  const replaceJson = (s: string) => {
    let out = s.split(PLACEHOLDER_CWD).join(jsonEscaped(cwd))
    if (recordedCwd !== undefined && recordedCwd !== cwd) {
      out = out.split(jsonEscaped(recordedCwd)).join(jsonEscaped(cwd))
    }
    return out
  }
  type Slot = { readonly at: number; readonly key: "text" | "partial_json" | "thinking" }
  const groups = new Map<string, Array<Slot>>()
  events.forEach((e, at) => {
    const event = e.event
    if (!isRecord(event) || event.type !== "content_block_delta" || !isRecord(event.delta)) return
    const delta = event.delta
    const key = delta.type === "text_delta"
      ? "text"
      : delta.type === "input_json_delta"
      ? "partial_json"
      : delta.type === "thinking_delta"
      ? "thinking"
      : undefined
    if (key === undefined || typeof delta[key] !== "string") return
    const group = `${String(event.index)}:${key}`
    const list = groups.get(group) ?? []
    list.push({ at, key })
    groups.set(group, list)
  })
  const out = events.map((e) => ({ ...e }))
  for (const slots of groups.values()) {
    const pieces = slots.map((s) => ((out[s.at]!.event as any).delta[s.key] as string))
    const joined = pieces.join("")
    const replaced = slots[0]!.key === "partial_json" ? replaceJson(joined) : replacePlain(joined)
    if (replaced === joined) continue
    let oldPos = 0
    let newPos = 0
    slots.forEach((slot, i) => {
      oldPos += pieces[i]!.length
      const end = i === slots.length - 1
        ? replaced.length
        : Math.round((oldPos / Math.max(1, joined.length)) * replaced.length)
      const piece = replaced.slice(newPos, Math.max(newPos, end))
      newPos = Math.max(newPos, end)
      const event = out[slot.at]!.event as Record<string, any>
      out[slot.at] = {
        delayMs: out[slot.at]!.delayMs,
        event: { ...event, delta: { ...event.delta, [slot.key]: piece } }
      }
    })
  }
  return out
}
