/**
 * What a served input writes, and when: the event writer stores events and transcript lines in
 * batches and hands what it still holds to the input's end (stored with it, in one transaction);
 * a read-only call's durable step is stored only with the next step stored at once, and never
 * when the input ends first.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import * as EventLog from "../../../src/services/Sessions/events.js"
import type { ShardLeaseService } from "../../../src/services/Sessions/lease.js"
import { makeRunStep } from "../../../src/services/Sessions/steps.js"
import { SessionStore, type SessionStoreService } from "../../../src/services/Sessions/store.js"

/** A store that records the writes these stages make, and nothing else. */
const recordingStore = () => {
  const writes: Array<string> = []
  const store = {
    appendEvents: (_session: string, events: ReadonlyArray<{ readonly type: string }>) =>
      Effect.sync(() => void writes.push(`events ${events.map((e) => e.type).join(",")}`)),
    appendTranscript: (_session: string, lines: ReadonlyArray<string>) =>
      Effect.sync(() => void writes.push(`transcript ${lines.join(",")}`)),
    recordStep: (_execution: string, step: string) =>
      Effect.sync(() => {
        writes.push(`step ${step}`)
        return Option.none()
      }),
    stepOutcome: () => Effect.succeed(Option.none())
  } as unknown as SessionStoreService
  return { writes, store }
}

const lease: ShardLeaseService = { check: Effect.void } as unknown as ShardLeaseService

/** A run's event writer over a recording store. */
const recordedWriter = Effect.gen(function*() {
  const { store, writes } = recordingStore()
  const log = yield* EventLog.make().pipe(Effect.provide(Layer.succeed(SessionStore, store)))
  return { writer: yield* log.writer("s1"), writes }
})

describe("the event writer of a run", () => {
  it.scoped("hands the events and transcript lines it holds to the input's end, and stores what comes after", () =>
    Effect.gen(function*() {
      const { writer, writes } = yield* recordedWriter
      yield* writer.emit("input_started", {})
      yield* writer.transcriptLine("assistant")
      yield* writer.emit("call_finished", {})
      yield* writer.transcriptLine("results")
      const unstored = yield* writer.handOver
      expect(unstored.events.map((e) => e.type)).toEqual(["input_started", "call_finished"])
      expect(unstored.lines).toEqual(["assistant", "results"])
      expect(writes).toEqual([])
      yield* writer.emit("notice", {})
      yield* writer.flush
      expect(writes).toEqual(["events notice"])
    }))

  it.scoped("stores events and transcript lines together when flushed", () =>
    Effect.gen(function*() {
      const { writer, writes } = yield* recordedWriter
      yield* writer.emit("input_started", {})
      yield* writer.transcriptLine("assistant")
      yield* writer.flush
      expect(writes).toEqual(["events input_started", "transcript assistant"])
      expect((yield* writer.handOver).events).toEqual([])
    }))
})

describe("durable steps of a run", () => {
  const runStepWith = (store: SessionStoreService) =>
    makeRunStep({
      store,
      lease,
      stored: (write) => write,
      executionId: "input-1",
      fresh: true,
      holds: Effect.succeed(true)
    })
  const readOnly = { defer: () => true }

  it.effect("stores a deferred outcome just before the next one stored at once", () =>
    Effect.gen(function*() {
      const { store, writes } = recordingStore()
      const step = runStepWith(store)
      const read = yield* step("call/toolu_1", Schema.String, Effect.succeed("file text"), readOnly)
      expect(read).toEqual({ value: "file text", executedHere: true })
      expect(writes).toEqual([])
      yield* step("model/2", Schema.String, Effect.succeed("next turn"))
      expect(writes).toEqual(["step call/toolu_1", "step model/2"])
    }))

  it.effect("never stores a deferred outcome when nothing is stored after it", () =>
    Effect.gen(function*() {
      const { store, writes } = recordingStore()
      const step = runStepWith(store)
      yield* step("call/toolu_1", Schema.String, Effect.succeed("a"), readOnly)
      yield* step("call/toolu_2", Schema.String, Effect.succeed("b"), { defer: (value) => value !== "b" })
      expect(writes).toEqual(["step call/toolu_1", "step call/toolu_2"])
      yield* step("call/toolu_3", Schema.String, Effect.succeed("c"), readOnly)
      expect(writes).toEqual(["step call/toolu_1", "step call/toolu_2"])
    }))
})
