/**
 * Streaming start, measured through the agent's call events against the times the fake server
 * wrote each SSE event: a concurrency-safe call starts at its block stop, before the message
 * ends; a call that is not starts only once the model moved on. Only orders of timestamps are
 * asserted, never durations.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ReadTool } from "../../../src/tools/Read.js"
import {
  fixture,
  framesOf,
  sse,
  startFakeAnthropic,
  type FakeAnthropic,
  type SseFrame
} from "../../support/fakeAnthropic.js"
import { tempDir } from "../../support/runtime.js"
import { agentLayer, anthropicLayer, callStarts, runPrompt, touchTool, writeFiles } from "./support.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic()
})
afterAll(async () => {
  await fake.close()
})

const start = {
  type: "message_start",
  message: {
    id: "msg_s",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [],
    usage: { input_tokens: 1, output_tokens: 1 }
  }
}
const toolUse = (index: number, id: string, name: string, input: unknown) => [
  { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
  { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } },
  { type: "content_block_stop", index }
]
const text = (index: number, t: string) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
  { type: "content_block_stop", index }
]
const end = (reason: string) => [
  { type: "message_delta", delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: "message_stop" }
]

/** Resolves when `id` starts (or after a long fallback, so a wrong implementation fails the order assertion instead of hanging). */
const startedGate = (id: string) => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  const timer = setTimeout(resolve, 5_000)
  return {
    // a little after the start, so the two clocks' readings cannot tie
    promise: promise.then(() => new Promise((r) => setTimeout(r, 20))),
    onEvent: (e: import("../../../src/services/Agent/events.js").AgentEvent) =>
      Effect.sync(() => {
        if (e._tag === "Call" && e.event._tag === "CallStarted" && e.event.toolUseId === id) {
          clearTimeout(timer)
          resolve()
        }
      })
  }
}

describe("streaming start (fake server timestamps vs the call timeline)", () => {
  it.live("a concurrency-safe call starts before message_stop when the server delays the end of the message", () => {
    const cwd = tempDir("toolgate-stream-")
    writeFiles(cwd, { "a.txt": "alpha\n" })
    const response = fake.requests.length
    const gate = startedGate("toolu_safe")
    const frames: Array<SseFrame> = [
      ...framesOf([start, ...toolUse(0, "toolu_safe", "Read", { file_path: `${cwd}/a.txt` })]),
      // the end of the message waits until the call has started (or 5 s)
      ...framesOf(end("tool_use")).map((f, i) => (i === 0 ? { ...f, delayMs: 50, gate: gate.promise } : f))
    ]
    fake.enqueue(sse(frames), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "read", { onEvent: gate.onEvent })
      expect(outcome.stop).toBe("end_turn")
      const startedAt = callStarts(events).get("toolu_safe")!
      expect(startedAt).toBeGreaterThanOrEqual(fake.sentAt(response, "content_block_stop"))
      expect(startedAt).toBeLessThan(fake.sentAt(response, "message_delta"))
      expect(startedAt).toBeLessThan(fake.sentAt(response, "message_stop"))
      // and its result is in the next request
      expect(JSON.stringify(fake.requests[response + 1]!.body.messages[2].content[0].content)).toContain("alpha")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("an unsafe call starts only after the model moved on (the next block started)", () => {
    const cwd = tempDir("toolgate-stream-")
    const touched: Array<string> = []
    const response = fake.requests.length
    const frames: Array<SseFrame> = [
      ...framesOf([start, ...toolUse(0, "toolu_unsafe", "Touch", { name: "x" })]),
      ...framesOf(text(1, "and some more text")).map((f, i) => (i === 0 ? { ...f, delayMs: 300 } : f)),
      ...framesOf(end("tool_use"))
    ]
    fake.enqueue(sse(frames), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "touch")
      expect(outcome.stop).toBe("end_turn")
      expect(touched).toEqual(["x"])
      const startedAt = callStarts(events).get("toolu_unsafe")!
      expect(startedAt).toBeGreaterThanOrEqual(fake.sentAt(response, "content_block_start", 1))
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [touchTool(touched)] })))
  })

  it.live("an unsafe last block starts only once stop_reason tool_use arrived", () => {
    const cwd = tempDir("toolgate-stream-")
    const touched: Array<string> = []
    const response = fake.requests.length
    const frames: Array<SseFrame> = [
      ...framesOf([start, ...toolUse(0, "toolu_last", "Touch", { name: "y" })]),
      ...framesOf(end("tool_use")).map((f, i) => (i === 0 ? { ...f, delayMs: 300 } : f))
    ]
    fake.enqueue(sse(frames), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { events } = yield* runPrompt(cwd, "touch")
      expect(touched).toEqual(["y"])
      expect(callStarts(events).get("toolu_last")!).toBeGreaterThanOrEqual(fake.sentAt(response, "message_delta"))
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [touchTool(touched)] })))
  })
})
