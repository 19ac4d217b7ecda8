/**
 * The runner side of a session: the `Session` entity's handlers. `Send` (and `Run`, its
 * one-process twin) runs inputs one at a time, in the order they were sent; `Answer`,
 * `Interrupt` and `Stop` reach the input running on this runner at once.
 */
import { Entity } from "@effect/cluster"
import { Clock, Deferred, Effect, Option, Schema } from "effect"
import { executionIdOf, Session } from "./entities.js"
import { executeInput } from "./execute.js"
import { InputResult } from "./model.js"
import { Runs } from "./run.js"
import { SessionRuntimes } from "./runtimes.js"
import { StorageHealth, untilStored } from "./storageFaults.js"
import { type InputRow, SessionStore } from "./store.js"

const decodeResult = Schema.decodeUnknown(InputResult)

export const layerSessionEntity = Session.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const sessionId: string = address.entityId
    const store = yield* SessionStore
    const runs = yield* Runs
    const runtimes = yield* SessionRuntimes
    const inputs = yield* Effect.makeSemaphore(1)
    // an input's start and end must be stored: they wait for storage that does not take writes
    const stored = untilStored(yield* StorageHealth)

    // A draining runner starts nothing: the input stays stored, and the runner that takes the
    // session next runs it (this delivery ends with the runner, unanswered). The wait is not an
    // input running here: the drain does not wait for it.
    const notHere = Symbol("notHere")
    const send = (key: string) =>
      Effect.flatMap(
        start(key).pipe(runs.track),
        (result) => (result === notHere ? Effect.never : Effect.succeed(result))
      )

    // Inputs run in the order they were sent, whatever order their deliveries arrive in (the
    // one-process server delivers again what a crash or a storage fault stopped): the session's
    // earlier inputs that have not ended run first.
    const start = (key: string) =>
      Effect.gen(function*() {
        const rows = yield* store.inputAfterUnfinished(sessionId, key).pipe(Effect.orDie)
        const input = rows.find((row) => row.key === key)
        if (input === undefined) return yield* Effect.dieMessage(`input ${key} of session ${sessionId} is not stored`)
        for (const earlier of rows) {
          if (earlier === input) break
          if ((yield* startRow(earlier)) === notHere) return notHere
        }
        return yield* startRow(input)
      })

    const startRow = (row: InputRow) =>
      Effect.gen(function*() {
        const key = row.key
        if (row.status === "done" || row.status === "failed") {
          return yield* Effect.orDie(decodeResult(row.result))
        }
        if (yield* Deferred.isDone(runs.draining)) return notHere
        const session = yield* store.session(sessionId).pipe(Effect.orDie)
        const now = yield* Clock.currentTimeMillis
        if (row.status === "queued" && Option.exists(session, (s) => s.status === "stopped")) {
          const result: InputResult = {
            key,
            seq: row.seq,
            kind: row.kind,
            status: "failed",
            error: "the session was stopped before this input ran",
            createdAt: row.createdAt,
            finishedAt: now
          }
          yield* stored(store.finishInput({ sessionId, key, status: "failed", result, state: undefined, now })).pipe(
            Effect.orDie
          )
          return result
        }
        if (Option.isNone(session)) return yield* Effect.dieMessage(`session ${sessionId} is not stored`)
        const executionId = row.executionId ?? executionIdOf(sessionId, key)
        const fresh = row.status === "queued" &&
          (yield* stored(store.startInput(sessionId, key, executionId, now)).pipe(Effect.orDie))
        return yield* executeInput({ sessionId, key }, executionId, {
          session: session.value,
          input: row,
          fresh
        })
      })

    const interrupt = (times: number) =>
      Effect.gen(function*() {
        const run = runs.current(sessionId)
        if (run === undefined) return false
        for (let i = 0; i < times; i++) yield* run.interrupt
        return true
      })

    return Session.of({
      Send: (request) => inputs.withPermits(1)(send(request.payload.key)),
      Run: (request) => inputs.withPermits(1)(send(request.payload.key)),
      Answer: (request) =>
        Effect.gen(function*() {
          const waiter = runs.current(sessionId)?.answerWaiters.get(request.payload.toolUseId)
          if (waiter === undefined) return false
          return yield* Deferred.succeed(waiter, undefined)
        }),
      Interrupt: (request) => interrupt(request.payload.times),
      Stop: () =>
        Effect.gen(function*() {
          const interrupted = yield* interrupt(2)
          // the runtime (shells, MCP servers) closes once the running input lets go of it
          yield* runtimes.release(sessionId)
          return interrupted
        })
    })
  }),
  { concurrency: "unbounded" }
)

/** Registers the entity on this runner. */
export const layer = layerSessionEntity
