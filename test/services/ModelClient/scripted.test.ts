/**
 * The scripted model: recorded timing (under the TestClock), retries with backoff through the
 * same Schedule as live requests, and running out of turns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Either, Fiber, Stream, TestClock } from "effect"
import type { ModelEvent, RetryInfo } from "../../../src/ModelEvents.js"
import { parseScript } from "../../../src/services/ModelClient/script.js"
import { makeScripted } from "../../../src/services/ModelClient/scripted.js"

const scriptOf = (lines: ReadonlyArray<unknown>) =>
  Either.getOrThrow(parseScript("t.jsonl", lines.map((l) => JSON.stringify(l)).join("\n")))
const request = (retries: Array<RetryInfo> = []) => ({
  system: "",
  messages: [],
  tools: [],
  onRetry: (info: RetryInfo) => Effect.sync(() => void retries.push(info))
})
const policy = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000 }

const timed = [
  {
    type: "turn",
    events: [
      { delay_ms: 100, event: { type: "message_start", message: { id: "m", model: "s", usage: {} } } },
      { delay_ms: 50, event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      { delay_ms: 0, event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } } },
      { delay_ms: 250, event: { type: "content_block_stop", index: 0 } },
      { delay_ms: 0, event: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: {} } },
      { delay_ms: 0, event: { type: "message_stop" } }
    ]
  }
]

describe("scripted model", () => {
  it.effect("replays each event at its recorded time", () =>
    Effect.gen(function*() {
      const model = yield* makeScripted({ script: scriptOf(timed), cwd: "/x", timeScale: 1 })
      const fiber = yield* model.stream(request()).pipe(
        Stream.filter((e: ModelEvent) => e._tag !== "Raw"),
        Stream.mapEffect((e) => Effect.map(Clock.currentTimeMillis, (t) => [e._tag, t] as const)),
        Stream.runCollect,
        Effect.fork
      )
      yield* TestClock.adjust("1 second")
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      expect(seen).toEqual([
        ["MessageStart", 100],
        ["BlockStart", 150],
        ["TextDelta", 150],
        ["BlockStop", 400],
        ["MessageDelta", 400],
        ["MessageStop", 400]
      ])
    }))

  it.effect("the time scale stretches or removes the delays", () =>
    Effect.gen(function*() {
      const model = yield* makeScripted({ script: scriptOf(timed), cwd: "/x", timeScale: 0 })
      const events = yield* Stream.runCollect(model.stream(request()))
      expect(Chunk.size(events)).toBeGreaterThan(0)
    }))

  it.effect("a 529 is retried with backoff, then the next turn streams", () =>
    Effect.gen(function*() {
      const retries: Array<RetryInfo> = []
      const model = yield* makeScripted({
        script: scriptOf([{ type: "turn", error: { status: 529, type: "overloaded_error", message: "Overloaded" } }, {
          type: "turn",
          content: [{ type: "text", text: "ok" }]
        }]),
        cwd: "/x",
        timeScale: 0,
        retry: policy
      })
      const fiber = yield* Effect.fork(Stream.runCollect(model.stream(request(retries))))
      yield* TestClock.adjust("1 second")
      const events = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      expect(events.some((e) => e._tag === "MessageStop")).toBe(true)
      expect(retries).toHaveLength(1)
      expect(retries[0]).toMatchObject({
        attempt: 1,
        maxAttempts: 3,
        reason: "the Anthropic API answered 529 overloaded_error: Overloaded"
      })
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(80)
      expect(retries[0]!.delayMs).toBeLessThanOrEqual(120)
    }))

  it.effect("retries stop after maxRetries; network failures say how many attempts were made", () =>
    Effect.gen(function*() {
      const retries: Array<RetryInfo> = []
      const failure = { type: "turn", error: { status: 0, message: "connect ECONNREFUSED" } }
      const model = yield* makeScripted({
        script: scriptOf([failure, failure, failure, failure]),
        cwd: "/x",
        timeScale: 0,
        retry: policy
      })
      const fiber = yield* Effect.fork(Effect.either(Stream.runCollect(model.stream(request(retries)))))
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      expect(retries.map((r) => r.attempt)).toEqual([1, 2])
      const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
      expect(error.message).toBe(
        "cannot reach the Anthropic API at scripted:t.jsonl (tried 3 times): connect ECONNREFUSED"
      )
    }))

  it.effect("a 400 is not retried", () =>
    Effect.gen(function*() {
      const retries: Array<RetryInfo> = []
      const model = yield* makeScripted({
        script: scriptOf([{ type: "turn", error: { status: 400, type: "invalid_request_error", message: "bad" } }, {
          type: "turn",
          content: []
        }]),
        cwd: "/x",
        timeScale: 0,
        retry: policy
      })
      const result = yield* Effect.either(Stream.runCollect(model.stream(request(retries))))
      expect(retries).toEqual([])
      expect(Either.isLeft(result) && result.left.message).toBe(
        "the Anthropic API answered 400 invalid_request_error: bad"
      )
    }))

  it.effect("asking for more turns than were recorded is a clear error", () =>
    Effect.gen(function*() {
      const model = yield* makeScripted({
        script: scriptOf([{ type: "turn", content: [{ type: "text", text: "one" }] }]),
        cwd: "/x",
        timeScale: 0
      })
      yield* Stream.runDrain(model.stream(request()))
      const second = yield* Effect.either(Stream.runDrain(model.stream(request())))
      expect(Either.isLeft(second) && second.left.message).toBe(
        "t.jsonl: the scripted session has 1 model turn(s) and the run asked for turn 2"
      )
    }))
})
