/**
 * Ctrl-C for the CLI. While a command listens (a message's calls are running), each SIGINT is
 * one user interrupt for the scheduler (the first cancels `cancel` calls, the second everything);
 * with no listener, SIGINT stops the program.
 */
import { Effect, Stream } from "effect"

const listeners = new Set<() => void>()

export const userInterrupts: Stream.Stream<void> = Stream.async<void>((emit) => {
  const listener = () => void emit.single(undefined)
  listeners.add(listener)
  return Effect.sync(() => void listeners.delete(listener))
})

/** Delivers a SIGINT to the listeners; false when nobody listens. */
export const deliverInterrupt = (): boolean => {
  if (listeners.size === 0) return false
  for (const listener of listeners) listener()
  return true
}
