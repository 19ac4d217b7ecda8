/**
 * When someone is being asked something at the terminal (a permission, a question), live
 * drawing stops and output waits: the question has the terminal to itself. The CLI's approver
 * wraps each question in `around`; the live views listen.
 */
import { Effect } from "effect"

export interface AskingListener {
  readonly started: () => void
  readonly ended: () => void
}

const listeners = new Set<AskingListener>()
let depth = 0

export const onAsking = (listener: AskingListener): () => void => {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

export const around = <A, E, R>(asking: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      if (depth++ === 0) { for (const l of listeners) l.started() }
    }),
    () => asking,
    () =>
      Effect.sync(() => {
        if (--depth === 0) { for (const l of listeners) l.ended() }
      })
  )
