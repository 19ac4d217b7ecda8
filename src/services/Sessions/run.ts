/**
 * One run of a session input on this process: what its durable steps share (the workflow it
 * belongs to, step names, the session's model turn count), the controls the HTTP side reaches
 * through the session entity (permission answers, interrupts), and the live switch.
 *
 * A run after a crash replays the recorded steps of the input before it executes anything:
 * until its first step executes here, it is "replaying", and events and transcript lines are
 * not written again (the first run wrote them).
 */
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import { Context, Deferred, Duration, Effect, Layer, Queue } from "effect"
import type { Transcript } from "../Agent.js"
import type { EventWriter } from "./events.js"

export interface RunControls {
  readonly sessionId: string
  readonly inputKey: string
  readonly executionId: string
  /** This process, as other runners name it (recorded on step marks). */
  readonly runner: string
  readonly engine: WorkflowEngine["Type"]
  readonly instance: WorkflowInstance["Type"]
  readonly approvalTimeoutMs: number
  /** The session's model turns before this input (the scripted model's position). */
  readonly turnsBefore: number
  readonly isLive: () => boolean
  /** Called when a step executes here; the first call ends the replay. */
  readonly goLive: Effect.Effect<void>
  /** Called when a step's recorded result was used instead of executing it. */
  readonly noteReplayed: () => void
  /** A name for a step, unique within the run (a repeated base gets `#2`, `#3`, …). */
  readonly stepName: (base: string) => string
  readonly nextModelTurn: () => number
  /** A model turn starts: its record is awaited by side-effecting calls (completed when stored). */
  readonly beginTurn: Effect.Effect<Deferred.Deferred<void>>
  /** Waits until the current model turn is stored (a side-effecting call never runs before its turn is). */
  readonly awaitTurnRecorded: Effect.Effect<void>
  /** User interrupts for the agent loop (each element is one Ctrl-C). */
  readonly interrupts: Queue.Queue<void>
  readonly interruptCount: () => number
  readonly interrupt: Effect.Effect<void>
  /** The step each running call executes in, by tool_use id (the approver marks it while it asks). */
  readonly callSteps: Map<string, string>
  /** Waiters for permission answers, by tool_use id; an answer wakes them. */
  readonly answerWaiters: Map<string, Deferred.Deferred<void>>
  readonly events: EventWriter
  readonly transcript: Transcript
}

export class CurrentRun extends Context.Tag("toolgate/Sessions/CurrentRun")<CurrentRun, RunControls>() {}

/** Set while a durable step executes: nested model turns and calls (subagents) are part of it. */
export class InStep extends Context.Reference<InStep>()("toolgate/Sessions/InStep", { defaultValue: () => false }) {}

/** What a run starts from; the rest of its controls are made for it. */
export type NewRun = Pick<
  RunControls,
  "sessionId" | "inputKey" | "executionId" | "runner" | "engine" | "instance" | "approvalTimeoutMs" | "turnsBefore" | "events" | "transcript"
>

export const makeRun = (options: NewRun): Effect.Effect<RunControls> =>
  Effect.gen(function* () {
    const interrupts = yield* Queue.unbounded<void>()
    let live = false
    let interruptCount = 0
    let modelTurns = 0
    let replayed = 0
    const occurrences = new Map<string, number>()
    let turnRecord: Deferred.Deferred<void> | undefined
    const gated = <A extends ReadonlyArray<unknown>>(f: (...args: A) => Effect.Effect<void>) => (...args: A) =>
      Effect.suspend(() => (live ? f(...args) : Effect.void))
    const run: RunControls = {
      ...options,
      isLive: () => live,
      goLive: Effect.suspend(() => {
        if (live) return Effect.void
        live = true
        // after a crash: the recorded steps were replayed, this one runs again
        return replayed === 0 ? Effect.void : options.events.emit("input_resumed", { key: options.inputKey, replayedSteps: replayed })
      }),
      noteReplayed: () => {
        replayed++
      },
      stepName: (base) => {
        const n = (occurrences.get(base) ?? 0) + 1
        occurrences.set(base, n)
        return n === 1 ? base : `${base}#${n}`
      },
      nextModelTurn: () => options.turnsBefore + ++modelTurns,
      beginTurn: Effect.tap(Deferred.make<void>(), (d) =>
        Effect.sync(() => {
          turnRecord = d
        })
      ),
      awaitTurnRecorded: Effect.suspend(() => (turnRecord === undefined ? Effect.void : Deferred.await(turnRecord))),
      interrupts,
      interruptCount: () => interruptCount,
      interrupt: Effect.suspend(() => {
        interruptCount++
        return Queue.offer(interrupts, undefined)
      }),
      callSteps: new Map(),
      answerWaiters: new Map(),
      events: { emit: gated(options.events.emit), flush: options.events.flush },
      transcript: { path: options.transcript.path, write: gated(options.transcript.write), failure: options.transcript.failure }
    }
    return run
  })

/** The runs on this process, by session: where the session entity finds a run's controls. */
export interface RunsService {
  readonly register: (run: RunControls) => Effect.Effect<void>
  readonly unregister: (run: RunControls) => Effect.Effect<void>
  readonly current: (sessionId: string) => RunControls | undefined
  /**
   * Steps executing on this process, by execution and step name. A step delivered again while
   * its first attempt still runs here (a shard taken back and forth) joins that attempt.
   */
  readonly inflight: Map<string, Deferred.Deferred<unknown>>
  /**
   * Done when this runner begins to shut down. A step that is still running then stops its work
   * and records nothing: the run resumes on the next runner, as after a crash.
   */
  readonly stopping: Deferred.Deferred<void>
  readonly shutdown: Effect.Effect<void>
  /** How long a running call may still finish (and be recorded) once the runner shuts down. */
  readonly shutdownGrace: Duration.Duration
}

export class Runs extends Context.Tag("toolgate/Sessions/Runs")<Runs, RunsService>() {}

export const layerRuns = (options: { readonly shutdownGrace?: Duration.DurationInput } = {}): Layer.Layer<Runs> =>
  Layer.effect(
    Runs,
    Effect.gen(function* () {
      const bySession = new Map<string, RunControls>()
      const stopping = yield* Deferred.make<void>()
      return Runs.of({
        register: (run) => Effect.sync(() => void bySession.set(run.sessionId, run)),
        unregister: (run) =>
          Effect.sync(() => {
            if (bySession.get(run.sessionId) === run) bySession.delete(run.sessionId)
          }),
        current: (sessionId) => bySession.get(sessionId),
        inflight: new Map(),
        stopping,
        shutdown: Deferred.succeed(stopping, undefined),
        shutdownGrace: Duration.decode(options.shutdownGrace ?? Duration.seconds(3))
      })
    })
  )
