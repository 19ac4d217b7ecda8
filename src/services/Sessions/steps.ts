/**
 * The durable steps of a served input (its model turns and tool calls): once a step executed, its
 * outcome is stored under the input's execution id and the step's name, and a run resumed after a
 * crash gets the stored outcome back instead of executing the step again. A step stopped before
 * its end (its runner let go of the session) stores nothing, so steps run at least once; the first
 * outcome stored is the one every later attempt gets.
 *
 * A fresh run (the one that started its input: see `executeInput`) looks for no stored outcome:
 * no attempt before it ran a step.
 *
 * A runner letting go of the session (to a runner that joined, or shutting down) executes no
 * further step: the step waits until the run is stopped, and the session's next runner executes it.
 *
 * An outcome the step marks as `defer`red (a read-only call's: running it again is harmless) is
 * kept in memory and stored just before the next outcome that is stored at once, so no stored
 * step ever follows one that was lost; when the input ends first it is never stored at all (an
 * input that ended is never resumed).
 */
import { Effect, Option, Schema } from "effect"
import type { ShardLeaseService } from "./lease.js"
import type { SessionStoreService, StoreError } from "./store.js"

export interface StepResult<A> {
  readonly value: A
  /** False when the outcome was stored by an earlier attempt (the step did not execute here). */
  readonly executedHere: boolean
}

export type RunStep = <A, I>(
  name: string,
  schema: Schema.Schema<A, I>,
  execute: Effect.Effect<A>,
  options?: { readonly defer?: (value: A) => boolean }
) => Effect.Effect<StepResult<A>>

export const makeRunStep = (options: {
  readonly store: SessionStoreService
  readonly lease: ShardLeaseService
  /** How a write that must be stored waits for storage that does not take writes. */
  readonly stored: <A>(write: Effect.Effect<A, StoreError>) => Effect.Effect<A, StoreError>
  readonly executionId: string
  /** No earlier attempt of this execution ran a step. */
  readonly fresh: boolean
  /** Whether this runner still holds the session. */
  readonly holds: Effect.Effect<boolean>
}): RunStep => {
  const { executionId, fresh, holds, lease, store, stored } = options
  const deferred: Array<{ readonly name: string; readonly encoded: unknown }> = []
  const storeDeferred = Effect.suspend(() =>
    Effect.forEach(
      deferred.splice(0),
      ({ encoded, name }) => stored(store.recordStep(executionId, name, encoded)).pipe(Effect.orDie),
      { discard: true }
    )
  )
  return <A, I>(
    name: string,
    schema: Schema.Schema<A, I>,
    execute: Effect.Effect<A>,
    stepOptions?: { readonly defer?: (value: A) => boolean }
  ) =>
    Effect.gen(function*() {
      const decode = (u: unknown) => Effect.orDie(Schema.decodeUnknown(schema)(u))
      if (!fresh) {
        const earlier = yield* store.stepOutcome(executionId, name).pipe(Effect.orDie)
        if (Option.isSome(earlier)) return { value: yield* decode(earlier.value), executedHere: false }
      }
      if (!(yield* holds)) return yield* Effect.never
      const value = yield* execute
      const encoded = yield* Effect.orDie(Schema.encode(schema)(value))
      if (stepOptions?.defer?.(value) === true) {
        deferred.push({ name, encoded })
        return { value, executedHere: true }
      }
      // an outcome is stored only while this runner holds the session
      yield* lease.check
      yield* storeDeferred
      const kept = yield* stored(store.recordStep(executionId, name, encoded)).pipe(Effect.orDie)
      if (Option.isSome(kept)) return { value: yield* decode(kept.value), executedHere: false }
      return { value, executedHere: true }
    })
}
