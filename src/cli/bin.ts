/**
 * The `toolgate` executable: runs the command tree with Node's platform services, turns
 * failures into one-line errors with a non-zero exit, and routes Ctrl-C, SIGTERM and SIGHUP to
 * the running calls. No signal skips the finalisers (never `process.exit` before them).
 */
import { Effect, Fiber } from "effect"
import { cutGracePeriods } from "../internal/processGroup.js"
import { deliverInterrupt, requestTermination, whenIdle } from "./interrupts.js"
import { exitOutcome, programOf } from "./program.js"

const args = process.argv.slice(2)
const fiber = Effect.runFork(programOf(args))

/** Interrupts the command: every finaliser runs (calls answered, process groups stopped). */
const stopNow = () => void Effect.runFork(Fiber.interrupt(fiber))

// A closed terminal (SIGHUP) must not turn a late write into a crash that skips the finalisers.
process.stdout.on("error", () => undefined)
process.stderr.on("error", () => undefined)

/** How long calls get to be answered after a third Ctrl-C before the command is stopped as it is. */
const LAST_RESORT_MS = 5_000

/**
 * The third Ctrl-C: no grace period any more (whatever is being stopped gets SIGKILL), so the
 * calls end at once and are answered; the command then ends as after any interrupt. Should it
 * still hang on, or a fourth Ctrl-C come, it is stopped where it is (its finalisers still run).
 */
let lastResort: ReturnType<typeof setTimeout> | undefined
const stopAtOnce = () => {
  cutGracePeriods()
  if (lastResort !== undefined || !deliverInterrupt()) return stopNow()
  lastResort = setTimeout(stopNow, LAST_RESORT_MS)
  lastResort.unref()
}

// Ctrl-C: one user interrupt each; three within two seconds stop everything (finalisers still run).
let recentPresses: Array<number> = []
process.on("SIGINT", () => {
  const now = Date.now()
  recentPresses = [...recentPresses.filter((t) => now - t < 2000), now]
  if (recentPresses.length >= 3) stopAtOnce()
  else if (!deliverInterrupt()) stopNow()
})

/**
 * SIGTERM and SIGHUP (`timeout`, `docker stop`, systemd, a closed terminal): like the first
 * Ctrl-C — calls cancel or finish, every call is answered — and the command then ends, exiting
 * 128 + the signal's number. A second one stops everything at once.
 */
const EXIT_CODES = { SIGTERM: 143, SIGHUP: 129 } as const
let terminatedBy: keyof typeof EXIT_CODES | undefined
/** How long a command gets to finish by itself once its calls are answered. */
const WIND_DOWN_MS = 5_000
for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (terminatedBy !== undefined) return stopNow()
    terminatedBy = signal
    if (!requestTermination()) return stopNow()
    whenIdle(() => setTimeout(stopNow, WIND_DOWN_MS).unref())
  })
}

fiber.addObserver((exit) => {
  if (terminatedBy !== undefined) {
    // finalisers have run; nothing left may keep the process alive
    process.exitCode = EXIT_CODES[terminatedBy]
    setImmediate(() => process.exit())
    return
  }
  const outcome = exitOutcome(exit, args)
  if (outcome.errorLine !== undefined) process.stderr.write(outcome.errorLine)
  if (outcome.exitCode !== undefined) process.exitCode = outcome.exitCode
})
