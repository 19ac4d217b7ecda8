/**
 * One run of a session input on this process: what its durable steps share (its execution id,
 * step names, the session's model turn count), the controls the HTTP side reaches
 * through the session entity (permission answers, interrupts), and the live switch.
 *
 * A run after a crash replays the recorded steps of the input before it executes anything:
 * until its first step executes here, it is "replaying", and events and transcript lines are
 * not written again (the first run wrote them).
 */
import { EntityId, Sharding } from "@effect/cluster"
import { Context, Deferred, Duration, Effect, Layer, Queue, Schedule, type Scope } from "effect"
import type { Transcript } from "../Agent.js"
import { Session } from "./entities.js"
import { type ConversationCache, makeConversationCache } from "./conversations.js"
import type { EventWriter } from "./events.js"
import type { RunStep } from "./steps.js"

export interface RunControls {
  readonly sessionId: string
  readonly inputKey: string
  readonly executionId: string
  /** This process, as other runners name it (recorded on step marks). */
  readonly runner: string
  /** Runs a durable step of this input (its outcome stored, or the stored one given back). */
  readonly step: RunStep
  /** Lives as long as the run: steps forked into it outlive the fiber that started them. */
  readonly scope: Scope.Scope
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
  | "sessionId"
  | "inputKey"
  | "executionId"
  | "runner"
  | "step"
  | "scope"
  | "approvalTimeoutMs"
  | "turnsBefore"
  | "events"
  | "transcript"
>

export const makeRun = (options: NewRun): Effect.Effect<RunControls> =>
  Effect.gen(function*() {
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
        return replayed === 0
          ? Effect.void
          : options.events.emit("input_resumed", {
            key: options.inputKey,
            replayedSteps: replayed,
            runner: options.runner
          })
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
        })),
      awaitTurnRecorded: Effect.suspend(() => (turnRecord === undefined ? Effect.void : Deferred.await(turnRecord))),
      interrupts,
      interruptCount: () => interruptCount,
      interrupt: Effect.suspend(() => {
        interruptCount++
        return Queue.offer(interrupts, undefined)
      }),
      callSteps: new Map(),
      answerWaiters: new Map(),
      events: {
        emit: gated(options.events.emit),
        transcriptLine: gated(options.events.transcriptLine),
        flush: options.events.flush,
        handOver: options.events.handOver
      },
      transcript: {
        path: options.transcript.path,
        write: gated(options.transcript.write),
        failure: options.transcript.failure
      }
    }
    return run
  })

/** The runs on this process, by session: where the session entity finds a run's controls. */
export interface RunsService {
  readonly register: (run: RunControls) => Effect.Effect<void>
  readonly unregister: (run: RunControls) => Effect.Effect<void>
  readonly current: (sessionId: string) => RunControls | undefined
  /** Counts the effect (a session entity taking an input) as an input running here while it runs. */
  readonly track: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How many inputs run on this process. */
  readonly count: () => number
  /** Completes once no input runs on this process. */
  readonly idle: Effect.Effect<void>
  /**
   * Steps executing on this process, by execution and step name. A step delivered again while
   * its first attempt still runs here (a shard taken back and forth) joins that attempt.
   */
  readonly inflight: Map<string, Deferred.Deferred<unknown>>
  /** Done once this runner drains (SIGTERM): it finishes the inputs it runs and starts no other. */
  readonly draining: Deferred.Deferred<void>
  /**
   * Completes once this runner no longer holds the shard of the session: it went to another
   * runner, or this one shuts down. Whatever the session's run still waits for will not come here.
   */
  readonly released: (sessionId: string) => Effect.Effect<void>
  /** Whether this runner holds the shard of the session (false while it lets go of it). */
  readonly holds: (sessionId: string) => Effect.Effect<boolean>
  /** The messages of the conversations committed here last. */
  readonly conversations: ConversationCache
}

export class Runs extends Context.Tag("toolgate/Sessions/Runs")<Runs, RunsService>() {}

const POLL = Duration.millis(100)

/** Conversations whose messages a runner keeps in memory. */
const CACHED_CONVERSATIONS = 64

export const layerRuns: Layer.Layer<Runs, never, Sharding.Sharding> = Layer.effect(
  Runs,
  Effect.gen(function*() {
    const sharding = yield* Sharding.Sharding
    const bySession = new Map<string, RunControls>()
    let tracked = 0
    const count = () => Math.max(bySession.size, tracked)
    const draining = yield* Deferred.make<void>()
    const holds = (sessionId: string) => {
      const entityId = EntityId.make(sessionId)
      const shard = sharding.getShardId(entityId, Session.getShardGroup(entityId))
      return Effect.sync(() => sharding.hasShardId(shard))
    }
    return Runs.of({
      register: (run) => Effect.sync(() => void bySession.set(run.sessionId, run)),
      unregister: (run) =>
        Effect.sync(() => {
          if (bySession.get(run.sessionId) === run) bySession.delete(run.sessionId)
        }),
      current: (sessionId) => bySession.get(sessionId),
      track: (effect) =>
        Effect.acquireUseRelease(
          Effect.sync(() => void tracked++),
          () => effect,
          () => Effect.sync(() => void tracked--)
        ),
      count,
      idle: Effect.repeat(Effect.sync(() => count() === 0), {
        until: (empty) => empty,
        schedule: Schedule.spaced(POLL)
      }).pipe(Effect.asVoid),
      inflight: new Map(),
      draining,
      released: (sessionId) =>
        Effect.repeat(holds(sessionId), { until: (held) => !held, schedule: Schedule.spaced(POLL) }).pipe(
          Effect.asVoid
        ),
      holds,
      conversations: makeConversationCache(CACHED_CONVERSATIONS)
    })
  })
)
