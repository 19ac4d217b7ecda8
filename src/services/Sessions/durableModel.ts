/**
 * Model turns of a served session as durable steps (see `steps.ts`) named `model/<turn>`: the turn streams live while it runs, and what the model sent (the raw stream
 * events, or the error) is recorded. A run resumed after a crash gets the recorded turn back
 * instead of asking the model again, so the conversation continues exactly where it was; only a
 * turn that was never recorded goes to the model.
 */
import { Context, Deferred, Effect, Exit, Fiber, Option, Queue, Schema, Stream } from "effect"
import {
  ModelApiError,
  ModelConnectionError,
  ModelNotConfigured,
  ModelStreamError,
  ScriptError,
  assembleStream,
  type ModelError,
  type ModelClientService,
  type ModelRequest
} from "../ModelClient.js"
import type { ModelEvent } from "../../ModelEvents.js"
import { CurrentRun, InStep, type RunControls } from "./run.js"

const ModelErrorSchema = Schema.Union(
  ModelApiError,
  ModelConnectionError,
  ModelStreamError,
  ModelNotConfigured,
  ScriptError
)

const RecordedTurn = Schema.Struct({
  events: Schema.Array(Schema.Struct({ atMs: Schema.Number, event: Schema.Unknown })),
  failure: Schema.optional(ModelErrorSchema),
  /** The agent stopped reading (a user interrupt) before the message ended. */
  interrupted: Schema.optional(Schema.Boolean)
})
type RecordedTurn = typeof RecordedTurn.Type

/** The session's model turn number while a turn runs, for a model that replays a script by position. */
export class CurrentModelTurn extends Context.Reference<CurrentModelTurn>()("toolgate/Sessions/CurrentModelTurn", {
  defaultValue: () => 0
}) {}

type Forward = Exit.Exit<ModelEvent, Option.Option<ModelError>>

/** Runs the turn here: forwards each event to the reader as it arrives and returns the record. */
const executeTurn = (
  inner: ModelClientService,
  request: ModelRequest,
  turn: number,
  forward: Queue.Queue<Forward>,
  stop: Deferred.Deferred<void>,
  run: RunControls
) =>
  Effect.gen(function*() {
    yield* run.goLive
    const events: Array<{ atMs: number; event: unknown }> = []
    let failure: ModelError | undefined
    // a runner letting go of the session interrupts this step from outside: nothing is recorded,
    // and the next runner asks the model again
    const consumed = yield* inner.stream(request).pipe(
      Stream.interruptWhenDeferred(stop),
      Stream.runForEach((event) =>
        Effect.suspend(() => {
          if (event._tag === "Raw") events.push({ atMs: event.atMs, event: event.event })
          return Queue.offer(forward, Exit.succeed(event))
        })
      ),
      Effect.catchAll((error) =>
        Effect.sync(() => {
          failure = error
        })
      ),
      Effect.provideService(CurrentModelTurn, turn),
      Effect.provideService(InStep, true),
      Effect.as(true),
      Effect.interruptible
    )
    const interrupted = consumed && (yield* Deferred.isDone(stop)) && failure === undefined
    yield* Queue.offer(forward, Exit.fail(failure === undefined ? Option.none() : Option.some(failure)))
    return {
      events,
      ...(failure === undefined ? {} : { failure }),
      ...(interrupted ? { interrupted: true } : {})
    } satisfies RecordedTurn
  })

/** A recorded turn, streamed again through the same assembler a live turn goes through. */
const replayTurn = (recorded: RecordedTurn, run: RunControls): Stream.Stream<ModelEvent, ModelError> => {
  const raw = Stream.fromIterable(recorded.events.map((e) => e.event))
  const assembled = assembleStream(raw, Date.now())
  const ending: Stream.Stream<never, ModelError> = recorded.failure !== undefined
    ? Stream.fail(recorded.failure)
    : recorded.interrupted === true
    // the user interrupted this turn: interrupt again, and wait to be stopped as it was
    ? Stream.fromEffect(Effect.zipRight(run.interrupt, Effect.never))
    : Stream.empty
  return Stream.concat(assembled, ending)
}

export const durableModel = (inner: ModelClientService): ModelClientService => ({
  model: inner.model,
  stream: (request) =>
    Stream.unwrapScoped(
      Effect.gen(function*() {
        const current = yield* Effect.serviceOption(CurrentRun)
        const inStep = yield* InStep
        if (Option.isNone(current) || inStep) return inner.stream(request)
        const run = current.value
        const turn = run.nextModelTurn()
        const forward = yield* Queue.unbounded<Forward>()
        const stop = yield* Deferred.make<void>()
        const recorded = yield* run.beginTurn
        const recording = yield* run.step(
          run.stepName(`model/${turn}`),
          RecordedTurn,
          executeTurn(inner, request, turn, forward, stop, run)
        ).pipe(
          Effect.ensuring(Deferred.succeed(recorded, undefined)),
          Effect.interruptible,
          // recording outlives this stream: a reader that stops early still gets the turn stored
          Effect.forkIn(run.scope)
        )
        yield* Effect.addFinalizer(() => Deferred.succeed(stop, undefined))
        // A turn executing here fills `forward` as it streams; a recorded one returns its record.
        const first = yield* Effect.raceFirst(
          Effect.map(Queue.take(forward), (item) => ({ _tag: "Live" as const, item })),
          Effect.map(Fiber.await(recording), (exit) => ({ _tag: "Done" as const, exit }))
        )
        const live = (head: ReadonlyArray<Forward>) =>
          Stream.concat(Stream.fromIterable(head), Stream.fromQueue(forward)).pipe(Stream.flattenExitOption)
        if (first._tag === "Live") return live([first.item])
        if (Exit.isFailure(first.exit)) return Stream.failCause(first.exit.cause)
        if (first.exit.value.executedHere) return live([])
        run.noteReplayed()
        return replayTurn(first.exit.value.value, run)
      })
    )
})
