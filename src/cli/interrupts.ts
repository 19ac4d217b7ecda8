/**
 * Ctrl-C for the CLI. While a command listens (a message's calls are running), each SIGINT is
 * one user interrupt for the scheduler (the first cancels `cancel` calls, the second everything);
 * with no listener, SIGINT stops the program. SIGTERM and SIGHUP are a first Ctrl-C that also
 * asks the command to end once its current work is answered (`terminationRequested`).
 */
import { Effect, Stream } from "effect"

const listeners = new Set<() => void>()

export const userInterrupts: Stream.Stream<void> = Stream.async<void>((emit) => {
  const listener = () => void emit.single(undefined)
  listeners.add(listener)
  return Effect.sync(() => {
    listeners.delete(listener)
    if (listeners.size === 0) { for (const f of idleWaiters.splice(0)) f() }
  })
})

/** Delivers a SIGINT to the listeners; false when nobody listens. */
export const deliverInterrupt = (): boolean => {
  if (listeners.size === 0) return false
  for (const listener of listeners) listener()
  return true
}

let terminating = false
const idleWaiters: Array<() => void> = []

/** Set once SIGTERM or SIGHUP asked the program to end: commands stop after the current work. */
export const terminationRequested = (): boolean => terminating

/**
 * Asks the program to end: the running calls get one user interrupt (cancel or finish, every
 * call answered). Returns false when nothing was listening (the caller stops the program).
 */
export const requestTermination = (): boolean => {
  terminating = true
  return deliverInterrupt()
}

/** Calls `f` once no command listens for interrupts any more (at once if none does). */
export const whenIdle = (f: () => void): void => {
  if (listeners.size === 0) f()
  else idleWaiters.push(f)
}
