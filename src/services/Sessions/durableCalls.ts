/**
 * Tool calls of a served session as durable steps (see `steps.ts`) named `call/<tool_use_id>`:
 * each call's outcome is recorded (a read-only call's deferred to the next record), and a run
 * resumed after a crash gets the recorded outcome back instead of running the call again.
 *
 * Steps run at least once (a runner can die after a call did its work and before the result
 * was stored), so a call with side effects also leaves a start mark in storage first. A call that
 * finds its own mark from an earlier attempt did (or may have done) its work on a runner that is
 * gone: it is answered with `RunnerLost`, never run twice. A read-only call has no mark and simply
 * runs again. A side-effecting call starts only once its model turn is stored, so the tool_use it
 * answers can never be lost with the turn.
 */
import { Deferred, Duration, Effect, Either, Exit, Fiber, Option, Schema } from "effect"
import { CallError, NotStarted, RunnerLost } from "../../Errors.js"
import type { SessionContext } from "../../Session.js"
import type { CallOutcome, CallPipelineService, Halt, PreparedCall, RunCallOptions } from "../CallPipeline.js"
import { toJsonValue } from "./json.js"
import { CurrentRun, InStep, Runs, type RunControls, type RunsService } from "./run.js"
import { ShardLease, type ShardLeaseService } from "./lease.js"
import { isStorageFault } from "./storageFaults.js"
import { SessionStore, type SessionStoreService } from "./store.js"
import { measureCall, noteReplayedCall } from "./telemetry.js"

const RecordedOutcome = Schema.Struct({
  toolUseId: Schema.String,
  toolName: Schema.String,
  result: Schema.Unknown,
  error: Schema.optional(CallError),
  input: Schema.Unknown,
  /** What the call's context modifier changed in the session (e.g. Bash `cd`). */
  sessionChange: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  newMessages: Schema.Array(Schema.Unknown),
  remindersBefore: Schema.Array(Schema.String),
  remindersAfter: Schema.Array(Schema.String),
  notices: Schema.Array(Schema.String),
  halt: Schema.optional(
    Schema.Struct({
      kind: Schema.Literal("hookStop", "userInterrupt", "deferred"),
      reason: Schema.String,
      toolUse: Schema.optional(Schema.Struct({ id: Schema.String, name: Schema.String, input: Schema.Unknown }))
    })
  ),
  siblingFailure: Schema.optional(Schema.String),
  decision: Schema.optional(Schema.Unknown)
})

const RecordedCall = Schema.Union(
  Schema.TaggedStruct("Outcome", { outcome: RecordedOutcome }),
  /** The scheduler cancelled the call: a user interrupt (with how many there had been), or a failing sibling. */
  Schema.TaggedStruct("Cancelled", { by: Schema.Literal("interrupt", "sibling"), interrupts: Schema.Number })
)
type RecordedCall = typeof RecordedCall.Type

const changedFields = (before: SessionContext, after: SessionContext): Record<string, unknown> | undefined => {
  const change: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(value) !== JSON.stringify((before as unknown as Record<string, unknown>)[key])) {
      change[key] = toJsonValue(value)
    }
  }
  return Object.keys(change).length === 0 ? undefined : change
}

const record = (outcome: CallOutcome, before: SessionContext): RecordedCall => {
  let sessionChange: Record<string, unknown> | undefined
  if (outcome.contextModifier !== undefined) {
    try {
      sessionChange = changedFields(before, outcome.contextModifier(before))
    } catch {
      sessionChange = undefined
    }
  }
  return {
    _tag: "Outcome",
    outcome: {
      toolUseId: outcome.toolUseId,
      toolName: outcome.toolName,
      result: toJsonValue(outcome.result),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      input: toJsonValue(outcome.input),
      ...(sessionChange === undefined ? {} : { sessionChange }),
      newMessages: (toJsonValue(outcome.newMessages) as ReadonlyArray<unknown> | null) ?? [],
      remindersBefore: outcome.remindersBefore,
      remindersAfter: outcome.remindersAfter,
      notices: outcome.notices,
      ...(outcome.halt === undefined
        ? {}
        : {
          halt: {
            ...outcome.halt,
            ...(outcome.halt.toolUse === undefined
              ? {}
              : { toolUse: { ...outcome.halt.toolUse, input: toJsonValue(outcome.halt.toolUse.input) } })
          }
        }),
      ...(outcome.siblingFailure === undefined ? {} : { siblingFailure: outcome.siblingFailure }),
      ...(outcome.decision === undefined ? {} : { decision: toJsonValue(outcome.decision) })
    }
  }
}

const restoreHalt = (
  { toolUse, ...halt }: NonNullable<typeof RecordedOutcome.Type["halt"]>
): Halt => (toolUse === undefined ? halt : { ...halt, toolUse })

const restore = (recorded: typeof RecordedOutcome.Type): CallOutcome => {
  const change = recorded.sessionChange
  return {
    toolUseId: recorded.toolUseId,
    toolName: recorded.toolName,
    result: recorded.result as CallOutcome["result"],
    error: recorded.error,
    input: recorded.input,
    ...(change === undefined
      ? {}
      : { contextModifier: (session: SessionContext) => ({ ...session, ...change }) as SessionContext }),
    newMessages: recorded.newMessages,
    remindersBefore: recorded.remindersBefore,
    remindersAfter: recorded.remindersAfter,
    notices: recorded.notices,
    ...(recorded.halt === undefined ? {} : { halt: restoreHalt(recorded.halt) }),
    ...(recorded.siblingFailure === undefined ? {} : { siblingFailure: recorded.siblingFailure }),
    ...(recorded.decision === undefined ? {} : { decision: recorded.decision as NonNullable<CallOutcome["decision"]> })
  }
}

/** Side effects unless the tool says this input only reads; a call that cannot run has none. */
export const hasSideEffects = (call: PreparedCall): boolean => {
  if (call.tool === undefined || Either.isLeft(call.decoded)) return false
  try {
    return !call.tool.isReadOnly(call.decoded.right)
  } catch {
    return true
  }
}

/** How long a replayed cancelled call waits for the sibling failure that cancelled it to replay. */
const SIBLING_REPLAY_GRACE = Duration.seconds(2)

const executeCall = (
  inner: CallPipelineService,
  call: PreparedCall,
  options: RunCallOptions,
  step: string,
  cancel: Deferred.Deferred<void>,
  run: RunControls,
  store: SessionStoreService,
  runs: RunsService,
  lease: ShardLeaseService
): Effect.Effect<RecordedCall> =>
  Effect.gen(function*() {
    yield* lease.check
    yield* run.goLive
    const key = `${run.executionId}/${step}`
    const joined = runs.inflight.get(key)
    if (joined !== undefined) return (yield* Deferred.await(joined)) as RecordedCall
    const sideEffects = hasSideEffects(call)
    if (sideEffects) {
      const marked = yield* store.beginStep(run.executionId, step, run.runner, Date.now()).pipe(Effect.either)
      // without its start mark a call could run twice after a crash: it does not run
      if (Either.isLeft(marked)) {
        if (!isStorageFault(marked.left)) return yield* Effect.die(marked.left)
        return record(
          inner.errorOutcome(
            call,
            new NotStarted({
              toolName: call.block.name,
              reason: `the session's storage does not take writes (${marked.left.reason})`
            })
          ),
          options.session
        )
      }
      const mark = marked.right
      // An earlier attempt that was still waiting for a permission answer never ran the tool.
      if (mark._tag === "Existing" && mark.state !== "asking") {
        return record(inner.errorOutcome(call, new RunnerLost({ toolName: call.block.name })), options.session)
      }
    }
    yield* lease.check
    const done = yield* Deferred.make<unknown>()
    runs.inflight.set(key, done)
    run.callSteps.set(call.block.id, step)
    const work = inner.run(call, options).pipe(
      Effect.map((outcome): RecordedCall => record(outcome, options.session)),
      Effect.provideService(InStep, true),
      Effect.interruptible
    )
    const cancelled = Effect.map(Deferred.await(cancel), (): RecordedCall => ({
      _tag: "Cancelled",
      by: run.interruptCount() > 0 ? "interrupt" : "sibling",
      interrupts: run.interruptCount()
    }))
    // A runner letting go of the session (handed to another, shutting down) interrupts this step
    // from outside: the tool stops and nothing is recorded, so the next runner answers the call.
    const outcome = yield* Effect.raceFirst(work, Effect.interruptible(cancelled)).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          runs.inflight.delete(key)
          run.callSteps.delete(call.block.id)
          // a later delivery of this step that joined it: the call was stopped while it ran
          if (exit._tag === "Failure") {
            Deferred.unsafeDone(
              done,
              Exit.succeed(
                record(inner.errorOutcome(call, new RunnerLost({ toolName: call.block.name })), options.session)
              )
            )
          }
        })
      )
    )
    yield* Deferred.succeed(done, outcome)
    return outcome
  })

/** A recorded cancellation happens again: the interrupt is delivered again, or the sibling's failure cancels it. */
const replayCancelled = (
  recorded: Extract<RecordedCall, { _tag: "Cancelled" }>,
  run: RunControls
): Effect.Effect<CallOutcome> =>
  recorded.by === "interrupt"
    ? Effect.zipRight(
      Effect.whileLoop({
        while: () => run.interruptCount() < Math.max(1, recorded.interrupts),
        body: () => run.interrupt,
        step: () => {}
      }),
      Effect.interrupt
    )
    : Effect.zipRight(Effect.sleep(SIBLING_REPLAY_GRACE), Effect.interrupt)

export const durableCalls = (inner: CallPipelineService) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const runs = yield* Runs
    const lease = yield* ShardLease
    const runDurable = (call: PreparedCall, options: RunCallOptions): Effect.Effect<CallOutcome> =>
      Effect.gen(function*() {
        const current = yield* Effect.serviceOption(CurrentRun)
        const inStep = yield* InStep
        if (Option.isNone(current) || inStep) return yield* inner.run(call, options)
        const controls = current.value
        const sideEffects = hasSideEffects(call)
        if (sideEffects) yield* controls.awaitTurnRecorded
        const step = controls.stepName(`call/${call.block.id}`)
        const cancel = yield* Deferred.make<void>()
        // forked into the run: a call cancelled by the scheduler still gets its cancellation
        // recorded, and the runner letting go of the session stops it (nothing is recorded then)
        const fiber = yield* controls.step(
          step,
          RecordedCall,
          executeCall(inner, call, options, step, cancel, controls, store, runs, lease),
          // a read-only call that ran is simply run again by a resumed input
          { defer: (recorded) => !sideEffects && recorded._tag === "Outcome" }
        ).pipe(Effect.interruptible, Effect.forkIn(controls.scope))
        // Cancelled by the scheduler: stop the tool, and wait until the cancellation is recorded;
        // unless this runner lets go of the session meanwhile: then nothing will be recorded here.
        // The racers are made interruptible: forked from this (uninterruptible) handler they would
        // not be, and the loser could never be stopped (most often the endless `released` poll; or
        // the wait for a step whose message went to the session's next runner, never answered here).
        const exit = yield* Fiber.await(fiber).pipe(
          Effect.onInterrupt(() =>
            Effect.zipRight(
              Deferred.succeed(cancel, undefined),
              Effect.raceFirst(
                Effect.interruptible(Effect.asVoid(Fiber.await(fiber))),
                Effect.interruptible(runs.released(controls.sessionId))
              )
            )
          )
        )
        if (Exit.isFailure(exit)) return yield* Effect.failCause(exit.cause)
        const { executedHere, value: recorded } = exit.value
        if (!executedHere) {
          controls.noteReplayed()
          yield* noteReplayedCall(call)
        }
        if (recorded._tag === "Outcome") return restore(recorded.outcome)
        // A cancellation that happened here: the scheduler interrupted us and answers the call itself.
        if (executedHere) return yield* Effect.interrupt
        return yield* replayCancelled(recorded, controls)
      })
    const run = (call: PreparedCall, options: RunCallOptions) => measureCall(call, runDurable(call, options))
    return { ...inner, run } satisfies CallPipelineService
  })
