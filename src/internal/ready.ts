/**
 * Effects that have already succeeded. In Effect 3 every `Exit` is an `Effect`, and
 * `Effect.succeed(a)` / `Effect.void` are `Exit`s: their value can be read without running them.
 * The per-call path uses this to skip a fiber step (and the `either` / `catchAll` wrappers around
 * it) for the stages that answer at once — no hook listening, a tool without its own check, a
 * result under the size limit. Anything else runs as before.
 */
import type { Effect } from "effect"
import { Exit } from "effect"

export const isReady = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): effect is Effect.Effect<A, E, R> & Exit.Success<A, E> => Exit.isExit(effect) && Exit.isSuccess(effect)
