/**
 * The assembler: raw stream events → typed model events.
 */
import { describe, expect, it } from "@effect/vitest"
import { Assembler, parseToolInput } from "../../../src/services/ModelClient/assemble.js"
import { UnparsableInput } from "../../../src/Messages.js"

const feed = (events: ReadonlyArray<unknown>) => {
  const assembler = new Assembler()
  const out = events.flatMap((e): ReadonlyArray<unknown> => {
    const r = assembler.push(e)
    return r.error === undefined ? r.events : [...r.events, { _tag: "Error", error: r.error }]
  })
  return { out, assembler }
}

const start = {
  type: "message_start",
  message: { id: "m1", model: "claude-test", usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 4 } }
}
const toolStart = (index: number, id = "t1", name = "Read") => ({
  type: "content_block_start",
  index,
  content_block: { type: "tool_use", id, name, input: {} }
})
const json = (index: number, partial_json: string) => ({
  type: "content_block_delta",
  index,
  delta: { type: "input_json_delta", partial_json }
})
const stop = (index: number) => ({ type: "content_block_stop", index })

describe("Assembler", () => {
  it("parses a tool_use's input once, at its block stop, from all its fragments", () => {
    const { out } = feed([
      start,
      toolStart(0),
      json(0, ""),
      json(0, "{\"file_"),
      json(0, "path\": \"/a\""),
      json(0, "}"),
      stop(0)
    ])
    const stops = out.filter((e: any) => e._tag === "BlockStop")
    expect(stops).toEqual([{
      _tag: "BlockStop",
      index: 0,
      block: { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a" } }
    }])
    expect(out.filter((e: any) => e._tag === "ToolInputDelta")).toHaveLength(4)
  })

  it("an empty input is {}; invalid JSON is an UnparsableInput, never guessed at", () => {
    expect(parseToolInput("")).toEqual({})
    expect(parseToolInput("  ")).toEqual({})
    const bad = parseToolInput("{\"a\": 1")
    expect(bad).toBeInstanceOf(UnparsableInput)
    expect((bad as UnparsableInput).text).toBe("{\"a\": 1")
  })

  it("the start event's placeholder input is not used when fragments came", () => {
    const { out } = feed([
      start,
      { ...toolStart(0), content_block: { type: "tool_use", id: "t", name: "X", input: { wrong: true } } },
      json(0, ""),
      stop(0)
    ])
    expect((out.find((e: any) => e._tag === "BlockStop") as any).block.input).toEqual({})
  })

  it("text, thinking with its signature, and interleaved indexes", () => {
    const { out } = feed([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
      stop(0),
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "lo" } },
      stop(1)
    ])
    expect(out.filter((e: any) => e._tag === "BlockStop").map((e: any) => e.block)).toEqual([
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "text", text: "Hello" }
    ])
  })

  it("ping and unknown event, block and delta types are ignored; unknown blocks are kept as they came", () => {
    const { out } = feed([
      start,
      { type: "ping" },
      { type: "brand_new_event", x: 1 },
      "not even an object",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "web_search_tool_result", tool_use_id: "s1", content: [] }
      },
      { type: "content_block_delta", index: 0, delta: { type: "mystery_delta" } },
      stop(0)
    ])
    expect(out.map((e: any) => e._tag)).toEqual(["MessageStart", "BlockStart", "BlockStop"])
    expect((out[2] as any).block).toEqual({
      type: "other",
      block: { type: "web_search_tool_result", tool_use_id: "s1", content: [] }
    })
  })

  it("message_delta gives the stop reason, stop details and usage; message_stop completes", () => {
    const { out, assembler } = feed([
      start,
      {
        type: "message_delta",
        delta: { stop_reason: "refusal", stop_details: { type: "refusal" } },
        usage: { output_tokens: 7 }
      },
      { type: "message_stop" }
    ])
    expect(out[0]).toMatchObject({ _tag: "MessageStart", usage: { input_tokens: 10, cache_read_input_tokens: 4 } })
    expect(out[1]).toMatchObject({
      _tag: "MessageDelta",
      stopReason: "refusal",
      stopDetails: { type: "refusal" },
      usage: { output_tokens: 7 }
    })
    expect(assembler.complete).toBe(true)
    expect(assembler.end()).toBeUndefined()
  })

  it("an error event fails the message; before any event it may be retried", () => {
    const early = new Assembler().push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
    expect(early.error).toMatchObject({
      _tag: "ModelStreamError",
      errorType: "overloaded_error",
      reason: "Overloaded",
      beforeFirstEvent: true
    })
    const a = new Assembler()
    a.push(start)
    expect(a.push({ type: "error", error: { type: "api_error", message: "boom" } }).error).toMatchObject({
      beforeFirstEvent: false
    })
  })

  it("a stream that ends before message_stop was cut off", () => {
    const { assembler } = feed([start, toolStart(0), json(0, "{\"a\"")])
    expect(assembler.end()).toMatchObject({
      _tag: "ModelStreamError",
      errorType: "connection",
      reason: "the stream ended before message_stop"
    })
  })
})
