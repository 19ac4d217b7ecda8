/**
 * Sleep: waits for a while, reporting progress. Behind a feature gate
 * (`TOOLGATE_ENABLE_SLEEP=1`), like Claude Code's feature-flagged tools; read-only and
 * concurrency-safe, so examples, tests and benchmarks can show scheduling with it.
 */
import { Config, Duration, Effect, Schema } from "effect"
import { buildTool } from "../Tool.js"
import { allow } from "../Permission.js"
import { NumberLike } from "./schemas.js"

const SleepInput = Schema.Struct({
  duration_ms: NumberLike.pipe(
    Schema.filter((n) => n >= 0 && n <= 600_000, { message: () => "Expected a duration between 0 and 600000 ms" })
  ).annotations({
    description: "How long to sleep, in milliseconds (at most 600000)",
    jsonSchema: { type: "number", minimum: 0, maximum: 600_000 }
  })
})

const PROGRESS_EVERY_MS = 1000

export const SleepTool = buildTool({
  name: "Sleep",
  inputSchema: SleepInput,
  description: "Waits for the given number of milliseconds.",
  prompt: "Sleep waits for duration_ms milliseconds. Use it only to wait for something outside your control.",
  isEnabled: Config.boolean("TOOLGATE_ENABLE_SLEEP").pipe(Config.withDefault(false), Effect.orElseSucceed(() => false)),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  checkPermissions: () => Effect.succeed(allow("Sleep needs no permission")),
  renderUse: (input) => `${input.duration_ms} ms`,
  call: (input, ctx) =>
    Effect.gen(function*() {
      let left = input.duration_ms
      while (left > 0) {
        const step = Math.min(left, PROGRESS_EVERY_MS)
        yield* Effect.sleep(Duration.millis(step))
        left -= step
        if (left > 0) yield* ctx.reportProgress({ message: `${input.duration_ms - left} of ${input.duration_ms} ms` })
      }
      return { data: `Slept for ${input.duration_ms} ms` }
    })
})
