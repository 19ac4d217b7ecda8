/**
 * The event log of served sessions: what happens in a session (inputs, text deltas, calls,
 * permission questions) is appended to the `toolgate_events` table, numbered per session, and
 * read back by event streams from any runner. Writers batch: an event (or a transcript line)
 * waits up to `LINGER` for the ones that follow it, and a flush writes at once; what an input
 * emitted last is handed over to be stored with the input's end (most inputs end within the
 * linger: all their events and lines are then part of that one transaction). Readers on this
 * process are woken when a batch lands, readers elsewhere poll.
 */
import { Context, Deferred, Duration, Effect, Layer, Option, PubSub, Queue, Stream, type Scope } from "effect"
import type { ServeEvent } from "./model.js"
import { SessionStore, type StoreError } from "./store.js"

export interface EventWriter {
  readonly emit: (type: string, data: unknown) => Effect.Effect<void>
  /** A line of the session's transcript, stored with the events' next batch. */
  readonly transcriptLine: (line: string) => Effect.Effect<void>
  /** Waits until everything emitted so far is stored. */
  readonly flush: Effect.Effect<void>
  /**
   * Takes what was emitted so far and is not stored yet, for the caller to store (with the input's
   * end, in one transaction); what is emitted after it is stored here as before.
   */
  readonly handOver: Effect.Effect<Unstored>
}

export interface Unstored {
  readonly events: ReadonlyArray<{ readonly type: string; readonly data: unknown; readonly at: number }>
  readonly lines: ReadonlyArray<string>
}

export interface EventLogService {
  /** A batching writer for one session's events and transcript lines, alive for the scope. */
  readonly writer: (sessionId: string) => Effect.Effect<EventWriter, never, Scope.Scope>
  /** Appends one event now (outside a run: a session created, stopped, an answer given). */
  readonly append: (sessionId: string, type: string, data: unknown) => Effect.Effect<void, StoreError>
  /** Wakes this process's streams of the session: events of it were stored by another write. */
  readonly landed: (sessionId: string) => Effect.Effect<void>
  /** Events after `after`; with `follow`, stays open and streams new ones as they land. */
  readonly read: (
    sessionId: string,
    options: { readonly after: number; readonly follow: boolean }
  ) => Stream.Stream<ServeEvent, StoreError>
}

export class EventLog extends Context.Tag("toolgate/Sessions/EventLog")<EventLog, EventLogService>() {}

export interface EventLogOptions {
  /** How often a following reader looks for events written by other runners. */
  readonly pollInterval?: Duration.DurationInput
}

const PAGE = 500

/** How long an event waits for others to be written with it. */
const LINGER = Duration.millis(10)

type Pending =
  | { readonly _tag: "Event"; readonly type: string; readonly data: unknown; readonly at: number }
  | { readonly _tag: "Line"; readonly line: string }
  | { readonly _tag: "Flush"; readonly done: () => void }
  | { readonly _tag: "HandOver"; readonly done: (unstored: Unstored) => void }

const unstoredOf = (batch: ReadonlyArray<Pending>): Unstored => ({
  events: batch.flatMap((p) => (p._tag === "Event" ? [{ type: p.type, data: p.data, at: p.at }] : [])),
  lines: batch.flatMap((p) => (p._tag === "Line" ? [p.line] : []))
})

export const make = (options: EventLogOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const landed = yield* PubSub.unbounded<string>()
    const pollInterval = options.pollInterval ?? Duration.millis(500)

    const append = (sessionId: string, type: string, data: unknown) =>
      store.appendEvents(sessionId, [{ type, data, at: Date.now() }]).pipe(
        Effect.zipRight(PubSub.publish(landed, sessionId)),
        Effect.asVoid
      )

    const writer = (sessionId: string) =>
      Effect.gen(function*() {
        const queue = yield* Queue.unbounded<Pending>()
        const storeOrWarn = (count: number, what: string, write: Effect.Effect<void, StoreError>) =>
          count === 0 ? Effect.void : write.pipe(
            Effect.catchAll((e) => Effect.logWarning(`session ${sessionId}: ${count} ${what} not stored: ${e.message}`))
          )
        let flushed: Deferred.Deferred<void> | undefined
        // a flush (or hand-over) asked for and not taken yet: the batch waits no longer
        let urgent = false
        let emitted = 0
        let written = 0
        const drain = Effect.gen(function*() {
          const first = yield* Queue.take(queue)
          if ((first._tag === "Event" || first._tag === "Line") && !urgent) {
            const wait = yield* Deferred.make<void>()
            flushed = wait
            yield* Deferred.await(wait).pipe(Effect.timeoutOption(LINGER))
            flushed = undefined
          }
          urgent = false
          const taken = [first, ...(yield* Queue.takeAll(queue))]
          const handOver = taken.findIndex((p) => p._tag === "HandOver")
          const handed = handOver === -1 ? [] : taken.slice(0, handOver)
          const batch = handOver === -1 ? taken : taken.slice(handOver)
          const { events, lines } = unstoredOf(batch)
          yield* storeOrWarn(events.length, "event(s)", store.appendEvents(sessionId, events))
          yield* storeOrWarn(lines.length, "transcript line(s)", store.appendTranscript(sessionId, lines))
          written += events.length + lines.length + handed.filter((p) => p._tag !== "Flush").length
          if (events.length > 0) yield* PubSub.publish(landed, sessionId)
          for (const p of taken) {
            if (p._tag === "Flush") p.done()
            else if (p._tag === "HandOver") p.done(unstoredOf(handed))
          }
        })
        yield* Effect.forkScoped(Effect.forever(drain))
        const hurry = (pending: Pending) => {
          urgent = true
          queue.unsafeOffer(pending)
          if (flushed !== undefined) Deferred.unsafeDone(flushed, Effect.void)
        }
        const flush = Effect.async<void>((resume) => hurry({ _tag: "Flush", done: () => resume(Effect.void) }))
        const handOver = Effect.async<Unstored>((resume) =>
          hurry({ _tag: "HandOver", done: (unstored) => resume(Effect.succeed(unstored)) })
        )
        // a finalizer is uninterruptible, and so would be the racers of its timeout: the flush is made interruptible so the timeout can end it
        yield* Effect.addFinalizer(() =>
          emitted === written ? Effect.void : flush.pipe(Effect.interruptible, Effect.timeoutOption("5 seconds"))
        )
        return {
          emit: (type, data) =>
            Effect.sync(() => {
              emitted++
              queue.unsafeOffer({ _tag: "Event", type, data, at: Date.now() })
            }),
          transcriptLine: (line) =>
            Effect.sync(() => {
              emitted++
              queue.unsafeOffer({ _tag: "Line", line })
            }),
          flush,
          handOver
        } satisfies EventWriter
      })

    const read = (
      sessionId: string,
      opts: { readonly after: number; readonly follow: boolean }
    ): Stream.Stream<ServeEvent, StoreError> =>
      Stream.unwrapScoped(
        Effect.gen(function*() {
          const wake = yield* PubSub.subscribe(landed)
          let last = opts.after
          const page = Effect.suspend(() => store.events(sessionId, last, PAGE)).pipe(
            Effect.tap((rows) =>
              Effect.sync(() => {
                if (rows.length > 0) last = rows[rows.length - 1]!.seq
              })
            )
          )
          // Wait for a batch of this session on this process, or the poll interval for other runners.
          const waitForMore = Effect.race(
            Effect.sleep(pollInterval),
            Effect.iterate(undefined as string | undefined, {
              while: (id) => id !== sessionId,
              body: () => wake.take
            })
          )
          if (!opts.follow) {
            // every stored page, then the end
            const next = page.pipe(
              Effect.mapError(Option.some),
              Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(Option.none()) : Effect.succeed(rows)))
            )
            return Stream.repeatEffectOption(next).pipe(Stream.flatMap((rows) => Stream.fromIterable(rows)))
          }
          const next = Effect.tap(page, (rows) => (rows.length === 0 ? waitForMore : Effect.void))
          return Stream.repeatEffect(next).pipe(Stream.flatMap((rows) => Stream.fromIterable(rows)))
        })
      )

    return EventLog.of({
      writer,
      append,
      read,
      landed: (sessionId) => Effect.asVoid(PubSub.publish(landed, sessionId))
    })
  })

export const layer = (options: EventLogOptions = {}): Layer.Layer<EventLog, never, SessionStore> =>
  Layer.effect(EventLog, make(options))
