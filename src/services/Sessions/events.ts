/**
 * The event log of served sessions: what happens in a session (inputs, text deltas, calls,
 * permission questions) is appended to the `toolgate_events` table, numbered per session, and
 * read back by event streams from any runner. Writers batch: an event waits up to `LINGER` for
 * the ones that follow it (most inputs end sooner: all their events are then one write), and a
 * flush writes at once. Readers on this process are woken when a batch lands, readers elsewhere
 * poll.
 */
import { Context, Deferred, Duration, Effect, Layer, Option, PubSub, Queue, Stream, type Scope } from "effect"
import type { ServeEvent } from "./model.js"
import { SessionStore, type StoreError } from "./store.js"

export interface EventWriter {
  readonly emit: (type: string, data: unknown) => Effect.Effect<void>
  /** Waits until everything emitted so far is stored. */
  readonly flush: Effect.Effect<void>
}

export interface EventLogService {
  /** A batching writer for one session, alive for the scope. */
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

type Pending = { readonly _tag: "Event"; readonly type: string; readonly data: unknown; readonly at: number } | {
  readonly _tag: "Flush"
  readonly done: () => void
}

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
        let flushed: Deferred.Deferred<void> | undefined
        let emitted = 0
        let written = 0
        const drain = Effect.gen(function*() {
          const first = yield* Queue.take(queue)
          if (first._tag === "Event") {
            const wait = yield* Deferred.make<void>()
            flushed = wait
            yield* Deferred.await(wait).pipe(Effect.timeoutOption(LINGER))
            flushed = undefined
          }
          const rest = yield* Queue.takeAll(queue)
          const batch = [first, ...rest]
          const events = batch.flatMap((p) => (p._tag === "Event" ? [{ type: p.type, data: p.data, at: p.at }] : []))
          yield* store.appendEvents(sessionId, events).pipe(
            Effect.catchAll((e) =>
              Effect.logWarning(`session ${sessionId}: ${events.length} event(s) not stored: ${e.message}`)
            )
          )
          written += events.length
          if (events.length > 0) yield* PubSub.publish(landed, sessionId)
          for (const p of batch) if (p._tag === "Flush") p.done()
        })
        yield* Effect.forkScoped(Effect.forever(drain))
        const flush = Effect.async<void>((resume) => {
          queue.unsafeOffer({ _tag: "Flush", done: () => resume(Effect.void) })
          if (flushed !== undefined) Deferred.unsafeDone(flushed, Effect.void)
        })
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
          flush
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
