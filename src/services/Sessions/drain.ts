/**
 * Graceful drain (SIGTERM): the runner reports not-ready and takes no new session or input (the
 * HTTP API answers 503, its session entities start nothing), lets the inputs it runs finish for
 * up to the drain time, then says it is done; the server then stops and hands its shards back.
 * An input still running when the time is over is stopped there, and resumed by the runner that
 * takes its session (its call in flight, if any, is answered "stopped while it ran").
 */
import type { Duration } from "effect"
import { Deferred, Effect, Layer } from "effect"
import { Runs } from "./run.js"

export interface DrainOptions {
  /** Completes when the drain is asked for (the first SIGTERM or Ctrl-C). */
  readonly requested: Effect.Effect<void>
  /** How long running inputs may go on once it is. */
  readonly timeout: Duration.DurationInput
  /** Told how the drain went: `left` inputs were still running when it ended. */
  readonly onDrained: (outcome: { readonly ran: number; readonly left: number }) => Effect.Effect<void>
  /** Told when it begins, with how many inputs run. */
  readonly onDraining?: (running: number) => Effect.Effect<void>
}

export const layer = (options: DrainOptions): Layer.Layer<never, never, Runs> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const runs = yield* Runs
      yield* Effect.gen(function*() {
        yield* options.requested
        yield* Deferred.succeed(runs.draining, undefined)
        const ran = runs.count()
        if (options.onDraining !== undefined) yield* options.onDraining(ran)
        yield* runs.idle.pipe(Effect.timeoutOption(options.timeout))
        yield* options.onDrained({ ran, left: runs.count() })
      }).pipe(Effect.forkScoped)
    })
  )
