import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, TestClock } from "effect"
import * as FileState from "../../src/services/FileState.js"
import * as Settings from "../../src/services/Settings.js"
import * as ToolRegistry from "../../src/services/ToolRegistry.js"
import { SleepTool } from "../../src/tools/Sleep.js"
import type { ToolProgress } from "../../src/Tool.js"
import { tempDir, testSession } from "../support/runtime.js"

const cwd = tempDir()
const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("Sleep", () => {
  it.effect("is behind the TOOLGATE_ENABLE_SLEEP gate: absent from the pool unless it is set", () =>
    Effect.gen(function*() {
      const names = (env: Record<string, string>) =>
        Effect.gen(function*() {
          const pool = yield* (yield* ToolRegistry.ToolRegistry).pool
          return pool.tools.map((t) => t.name)
        }).pipe(
          Effect.provide(
            ToolRegistry.layer.pipe(
              Layer.provide(Layer.merge(Settings.layerStatic({ cwd }), ToolRegistry.layerBuiltins([SleepTool])))
            )
          ),
          withEnv(env)
        )
      expect(yield* names({})).toEqual([])
      expect(yield* names({ TOOLGATE_ENABLE_SLEEP: "1" })).toEqual(["Sleep"])
    }))

  it.effect("sleeps, reports progress, and is read-only, concurrency-safe and cancellable", () =>
    Effect.gen(function*() {
      expect([
        SleepTool.isReadOnly({ duration_ms: 1 }),
        SleepTool.isConcurrencySafe({ duration_ms: 1 }),
        SleepTool.interruptBehavior()
      ]).toEqual([true, true, "cancel"])
      const progress: Array<ToolProgress> = []
      const fileState = yield* FileState.make
      const ctx = {
        toolUseId: "s",
        session: testSession(cwd),
        fileState,
        reportProgress: (p: ToolProgress) => Effect.sync(() => void progress.push(p))
      }
      const fiber = yield* Effect.fork(SleepTool.call({ duration_ms: 2500 }, ctx))
      yield* TestClock.adjust("1 second")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.data).toBe("Slept for 2500 ms")
      expect(progress.map((p) => p.message)).toEqual(["1000 of 2500 ms", "2000 of 2500 ms"])
      const long = yield* Effect.fork(SleepTool.call({ duration_ms: 600_000 }, ctx))
      yield* Fiber.interrupt(long)
      expect((yield* Fiber.await(long))._tag).toBe("Failure")
    }))
})
