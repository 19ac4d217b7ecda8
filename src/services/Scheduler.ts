/**
 * Runs the tool calls of one assistant message.
 *
 * One coordinator fiber owns all scheduling state and reacts to signals: a call arrived (its
 * tool_use block stopped), the model moved on, the message ended, a call finished, the user
 * interrupted. Each call runs in its own fiber. Rules:
 * - a call may start when nothing runs, or when it and everything running are concurrency-safe
 *   (batches mode), or when no earlier unfinished call conflicts with it (footprints mode: a
 *   write conflicts with a read or write of an overlapping path; a call without a footprint
 *   conflicts with every call unless both are concurrency-safe); never more than the cap at once;
 * - a concurrency-safe call may start as soon as its block stopped; any other call only once the
 *   model has moved on; an unsafe call that may not start yet holds back every later call;
 * - results come out in tool_use order; calls that never started when the message ended
 *   otherwise than with `tool_use` get an error result saying so.
 *
 * @since 0.1.0
 */
import { Cause, Config, Context, Effect, Either, Exit, Fiber, Layer, Option, Queue, Runtime, Stream } from "effect"
import {
  CancelledBySibling,
  DuplicateToolUseId,
  Interrupted,
  NotStarted,
  ToolDefect,
  type CallError
} from "../Errors.js"
import { contentText, layoutToolResults, type ToolResultsMessage, type ToolUseBlock } from "../Messages.js"
import { isWithin } from "../internal/expandPath.js"
import type { SessionContext } from "../Session.js"
import type { Footprint, ToolProgress } from "../Tool.js"
import { CallPipeline, type CallOutcome, type Halt, type PreparedCall } from "./CallPipeline.js"
import { Hooks } from "./Hooks.js"

/**
 * What the model stream tells the scheduler.
 *
 * @since 0.1.0
 * @category models
 */
export type CallStreamEvent =
  /** A tool_use block stopped: its input is complete. */
  | { readonly _tag: "ToolUse"; readonly block: ToolUseBlock }
  /** A new content block started: the model moved on from every earlier block. */
  | { readonly _tag: "BlockStarted" }
  /** The message's stop reason is known (`tool_use`, `max_tokens`, `refusal`, …). */
  | { readonly _tag: "StopReason"; readonly stopReason: string }

/**
 * @since 0.1.0
 * @category models
 */
export type ScheduleMode = "batches" | "footprints"

/**
 * @since 0.1.0
 * @category models
 */
export type SchedulerEvent =
  | {
    readonly _tag: "CallArrived"
    readonly toolUseId: string
    readonly toolName: string
    readonly index: number
    readonly input: unknown
  }
  | {
    readonly _tag: "CallStarted"
    readonly toolUseId: string
    readonly index: number
    readonly batch: number
    readonly atMs: number
  }
  | { readonly _tag: "CallProgress"; readonly toolUseId: string; readonly progress: ToolProgress }
  | { readonly _tag: "CallFinished"; readonly index: number; readonly outcome: CallOutcome; readonly atMs: number }
  /** The next result in tool_use order is ready (emitted strictly in order). */
  | { readonly _tag: "ResultReady"; readonly index: number; readonly outcome: CallOutcome }

/**
 * @since 0.1.0
 * @category models
 */
export interface SchedulerOptions {
  readonly session: SessionContext
  /** Most calls running at once; defaults to the configured cap. */
  readonly maxConcurrency?: number
  /** Cancel the concurrent siblings of a failing Bash call (default true). */
  readonly siblingCancellation?: boolean
  readonly mode?: ScheduleMode
  readonly onEvent?: (event: SchedulerEvent) => Effect.Effect<void>
  /**
   * Each element is one user interrupt: the first cancels `cancel` calls, the second everything.
   * A queue the interrupts are offered to is taken from directly, which costs less per message
   * than running a stream.
   */
  readonly interrupts?: Stream.Stream<void> | Queue.Dequeue<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export type CallOutcomeKind = "ok" | "error" | "interrupted" | "cancelled" | "not_started"

/**
 * @since 0.1.0
 * @category models
 */
export interface TimelineEntry {
  readonly toolUseId: string
  readonly toolName: string
  readonly index: number
  /** 1-based number of the concurrent set the call ran in; undefined when it never started. */
  readonly batch: number | undefined
  readonly startedMs: number | undefined
  readonly endedMs: number
  readonly outcome: CallOutcomeKind
  readonly concurrencySafe: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface MessageRun {
  /** One per tool_use, in tool_use order. */
  readonly outcomes: ReadonlyArray<CallOutcome>
  /** The user message answering the assistant message. */
  readonly message: ToolResultsMessage
  /** The session after context modifiers (e.g. a Bash `cd`). */
  readonly session: SessionContext
  readonly timeline: ReadonlyArray<TimelineEntry>
  readonly interrupted: boolean
  readonly halt: Halt | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SchedulerService {
  /** Runs a message whose tool_use blocks are all known (as after `stop_reason: tool_use`). */
  readonly runMessage: (blocks: ReadonlyArray<ToolUseBlock>, options: SchedulerOptions) => Effect.Effect<MessageRun>
  /** Runs calls as they stream in. A stream failure ends the message like a non-tool_use stop. */
  readonly runStream: <E>(
    events: Stream.Stream<CallStreamEvent, E>,
    options: SchedulerOptions
  ) => Effect.Effect<MessageRun>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Scheduler extends Context.Tag("toolgate/Scheduler")<Scheduler, SchedulerService>() {}

/**
 * `TOOLGATE_MAX_TOOL_USE_CONCURRENCY`, then `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`, default 10.
 *
 * @since 0.1.0
 * @category utils
 */
export const maxConcurrencyConfig: Config.Config<number> = Config.integer("TOOLGATE_MAX_TOOL_USE_CONCURRENCY").pipe(
  Config.orElse(() => Config.integer("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
  Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(10)
)

/**
 * User interrupts from an AbortSignal (for callers outside Effect): aborting is one interrupt.
 *
 * @since 0.1.0
 * @category utils
 */
export const interruptsFromAbortSignal = (signal: AbortSignal): Stream.Stream<void> =>
  Stream.async<void>((emit) => {
    if (signal.aborted) {
      void emit.single(undefined)
      return
    }
    const onAbort = () => void emit.single(undefined)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

type Signal =
  | { readonly _tag: "Model"; readonly event: CallStreamEvent }
  | { readonly _tag: "StreamEnded"; readonly error: string | undefined }
  /** `atMs`: when the call's fiber ended (the coordinator may read the signal later). */
  | { readonly _tag: "Finished"; readonly index: number; readonly exit: Exit.Exit<CallOutcome>; readonly atMs: number }
  | { readonly _tag: "Interrupt" }

interface Slot {
  readonly call: PreparedCall
  status: "waiting" | "running" | "done"
  movedOn: boolean
  batch: number | undefined
  startedMs: number | undefined
  endedMs: number
  outcome: CallOutcome | undefined
  kind: CallOutcomeKind
  fiber: Fiber.RuntimeFiber<CallOutcome> | undefined
  /** Why the coordinator interrupted it, if it did. */
  cancelledWith: CallError | undefined
  /** Footprint under the current session; recomputed after a context change. */
  footprint: Footprint | undefined | "unknown"
}

const overlaps = (a: string, b: string) => isWithin(a, b) || isWithin(b, a)

const footprintsConflict = (a: Footprint | undefined, b: Footprint | undefined): boolean => {
  if (a === undefined || b === undefined) return true
  const hits = (writes: ReadonlyArray<string>, other: Footprint) =>
    writes.some((w) => other.reads.some((r) => overlaps(w, r)) || other.writes.some((x) => overlaps(w, x)))
  return hits(a.writes, b) || hits(b.writes, a)
}

/** The model's events: a live stream, or the blocks of a finished message. */
type Source<E> =
  | { readonly _tag: "Stream"; readonly events: Stream.Stream<CallStreamEvent, E> }
  | { readonly _tag: "Known"; readonly blocks: ReadonlyArray<ToolUseBlock> }

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const pipeline = yield* CallPipeline
  const hooks = yield* Hooks
  const defaultCap = yield* maxConcurrencyConfig.pipe(Effect.orElseSucceed(() => 10))

  // The coordinator's bookkeeping is plain synchronous code, and so is the way signals reach it
  // (an array and one waiting callback, not a Queue): Effects only where it forks, interrupts,
  // prepares a call or tells a listener. A generator made per event, a queue hop per signal and a
  // finaliser per call cost more than the calls themselves (bench/overhead.ts).
  const run = Effect.fnUntraced(function*(source: Source<unknown>, options: SchedulerOptions) {
    const cap = Math.max(1, options.maxConcurrency ?? defaultCap)
    const siblingCancellation = options.siblingCancellation ?? true
    const mode = options.mode ?? "batches"
    const listener = options.onEvent
    const clock = yield* Effect.clock
    const coordinator = yield* Effect.fiberId
    // Calls are forked from plain code (no Effect step per fork) with this fiber's context and
    // FiberRefs; they are not its children, so the exit handler below interrupts what still runs.
    const forkCall = Runtime.runFork(yield* Effect.runtime<never>())
    const t0 = clock.unsafeCurrentTimeMillis()
    const now = () => clock.unsafeCurrentTimeMillis() - t0

    // Signals, in arrival order, and the coordinator's wake-up call while it waits for one.
    const signals: Array<Signal> = []
    let nextSignal = 0
    let wake: (() => void) | undefined
    const signal = (s: Signal) => {
      signals.push(s)
      if (wake !== undefined) {
        const resume = wake
        wake = undefined
        resume()
      }
    }
    const waitForSignal = Effect.async<void>((resume) => {
      if (nextSignal < signals.length) return resume(Effect.void)
      wake = () => resume(Effect.void)
      return Effect.sync(() => {
        wake = undefined
      })
    })

    let session = options.session
    const slots: Array<Slot> = []
    const running = new Set<Slot>()
    const seenIds = new Set<string>()
    let arrivals = 0
    let streamEnded = false
    let stopReason: string | undefined
    let endReason: string | undefined
    let interrupts = 0
    let halt: Halt | undefined
    let batch = 0
    let batchHasUnsafe = false
    let runningUnsafe = 0
    let nextToEmit = 0
    let settled = 0
    /** Every slot before this one has left "waiting" (dispatch starts its scan here). */
    let firstWaiting = 0
    /** What the synchronous handlers decided, in order: events to tell, calls to fork. */
    let actions: Array<
      { readonly _tag: "Emit"; readonly event: SchedulerEvent } | { readonly _tag: "Start"; readonly slot: Slot }
    > = []
    const emit = (event: SchedulerEvent) => {
      if (listener !== undefined) actions.push({ _tag: "Emit", event })
    }
    /** Fibers feeding model events and interrupts; stopped when the message ends. */
    const feeders: Array<Fiber.RuntimeFiber<unknown, unknown>> = []

    // The model's events, then an end marker (with the error if the stream failed). A message
    // whose blocks are all known needs no stream and no fiber to feed them.
    /** A known message's calls, looked up and decoded before the first is handled (duplicates excepted). */
    let prepared: Array<PreparedCall | undefined> | undefined
    if (source._tag === "Known") {
      const ids = new Set<string>()
      prepared = yield* Effect.forEach(source.blocks, (block, index) => {
        if (ids.has(block.id)) return Effect.succeed(undefined)
        ids.add(block.id)
        return pipeline.prepare(block, index)
      })
      for (const block of source.blocks) signals.push({ _tag: "Model", event: { _tag: "ToolUse", block } })
      signals.push({ _tag: "Model", event: { _tag: "StopReason", stopReason: "tool_use" } }, {
        _tag: "StreamEnded",
        error: undefined
      })
    } else {
      feeders.push(
        yield* source.events.pipe(
          Stream.runForEach((event) => Effect.sync(() => signal({ _tag: "Model", event }))),
          Effect.matchCause({
            onSuccess: (): Signal => ({ _tag: "StreamEnded", error: undefined }),
            onFailure: (cause): Signal => ({
              _tag: "StreamEnded",
              error: Cause.pretty(cause).split("\n")[0] ?? "stream error"
            })
          }),
          Effect.flatMap((end) => Effect.sync(() => signal(end))),
          Effect.fork
        )
      )
    }
    if (options.interrupts !== undefined) {
      const interrupt = Effect.sync(() => signal({ _tag: "Interrupt" }))
      const interrupts = options.interrupts
      feeders.push(
        yield* Effect.fork(
          Queue.isDequeue(interrupts)
            ? Effect.forever(Effect.zipRight(Queue.take(interrupts), interrupt))
            : Stream.runForEach(interrupts, () => interrupt)
        )
      )
    }

    const settle = (slot: Slot, outcome: CallOutcome, kind: CallOutcomeKind, endedMs = now()) => {
      settled++
      slot.status = "done"
      slot.outcome = outcome
      slot.kind = kind
      slot.endedMs = endedMs
      emit({ _tag: "CallFinished", index: slot.call.index, outcome, atMs: slot.endedMs })
      while (nextToEmit < slots.length && slots[nextToEmit]!.status === "done") {
        emit({ _tag: "ResultReady", index: nextToEmit, outcome: slots[nextToEmit]!.outcome! })
        nextToEmit++
      }
    }

    const endWithoutRunning = (slot: Slot, error: CallError, kind: CallOutcomeKind) =>
      settle(slot, pipeline.errorOutcome(slot.call, error), kind)

    /** Footprints mode: the footprint (under the current session) of every call still to finish. */
    const computeFootprints = Effect.suspend(() => {
      const unknown = slots.filter((s) => s.status !== "done" && s.footprint === "unknown")
      return Effect.forEach(
        unknown,
        (slot) => {
          const { tool, decoded } = slot.call
          if (tool?.footprint === undefined || decoded._tag === "Left") {
            slot.footprint = undefined
            return Effect.void
          }
          return tool.footprint(decoded.right, session).pipe(
            Effect.catchAllCause(() => Effect.succeed(undefined)),
            Effect.map((footprint) => {
              slot.footprint = footprint
            })
          )
        },
        { discard: true }
      )
    })
    const footprintOf = (
      slot: Slot
    ): Footprint | undefined => (slot.footprint === "unknown" ? undefined : slot.footprint)

    const start = (slot: Slot) => {
      const safe = slot.call.concurrencySafe
      if (running.size === 0 || !safe || batchHasUnsafe) {
        batch++
        batchHasUnsafe = false
      }
      if (!safe) {
        batchHasUnsafe = true
        runningUnsafe++
      }
      slot.batch = batch
      slot.status = "running"
      slot.startedMs = now()
      running.add(slot)
      if (listener === undefined) fork(slot)
      else {
        // the listener hears CallStarted before the call can report progress
        emit({
          _tag: "CallStarted",
          toolUseId: slot.call.block.id,
          index: slot.call.index,
          batch,
          atMs: slot.startedMs
        })
        actions.push({ _tag: "Start", slot })
      }
    }

    const onProgress = listener === undefined
      ? undefined
      : (toolUseId: string, progress: ToolProgress) => listener({ _tag: "CallProgress", toolUseId, progress })

    /**
     * Forks a started call. It runs at once, up to its first asynchronous step, on this stack:
     * scheduling it for later costs more than a no-op call. Its end comes back as a signal (the
     * handlers never run inside it).
     */
    const fork = (slot: Slot) => {
      const fiber = forkCall(pipeline.run(slot.call, onProgress === undefined ? { session } : { session, onProgress }))
      slot.fiber = fiber
      const index = slot.call.index
      fiber.addObserver((exit) => signal({ _tag: "Finished", index, exit, atMs: now() }))
      if (slot.cancelledWith !== undefined) fiber.unsafeInterruptAsFork(coordinator)
    }

    /** Starts every call the rules allow now, in tool_use order. */
    const dispatch = () => {
      while (firstWaiting < slots.length && slots[firstWaiting]!.status !== "waiting") firstWaiting++
      for (let i = firstWaiting; i < slots.length; i++) {
        const slot = slots[i]!
        if (slot.status !== "waiting") continue
        const { call } = slot
        if (call.decoded._tag === "Left") {
          // Nothing runs for an unknown tool or bad input; it never holds the queue.
          endWithoutRunning(slot, call.decoded.left, "error")
          continue
        }
        if (!call.concurrencySafe && !slot.movedOn) {
          if (mode === "batches") return
          continue
        }
        if (running.size >= cap) return
        if (mode === "batches") {
          if (call.concurrencySafe ? runningUnsafe > 0 : running.size > 0) return
          start(slot)
          if (!call.concurrencySafe) return
        } else {
          const mine = footprintOf(slot)
          let blocked = false
          for (const earlier of slots) {
            if (earlier === slot) break
            if (earlier.status === "done" || earlier.call.decoded._tag === "Left") continue
            // two concurrency-safe calls never conflict (batch mode runs them together too)
            if (call.concurrencySafe && earlier.call.concurrencySafe) continue
            if (footprintsConflict(mine, footprintOf(earlier))) {
              blocked = true
              break
            }
          }
          if (!blocked) start(slot)
        }
      }
    }

    const cancelRunning = (slot: Slot, error: CallError) => {
      if (slot.cancelledWith !== undefined) return
      slot.cancelledWith = error
      slot.fiber?.unsafeInterruptAsFork(coordinator)
    }

    const onInterrupt = () => {
      interrupts++
      for (const slot of slots) {
        if (slot.status === "waiting") {
          endWithoutRunning(slot, new Interrupted({ toolName: slot.call.block.name }), "interrupted")
        }
      }
      for (const slot of running) {
        if (interrupts >= 2 || slot.call.interruptBehavior === "cancel") {
          cancelRunning(slot, new Interrupted({ toolName: slot.call.block.name }))
        }
      }
    }

    /** A real Bash failure cancels the running and queued calls of its concurrent set. */
    const cancelSiblings = (failed: Slot, command: string) => {
      const cancelled = (slot: Slot) => new CancelledBySibling({ toolName: slot.call.block.name, sibling: command })
      for (const slot of running) {
        if (slot.batch === failed.batch && slot !== failed) cancelRunning(slot, cancelled(slot))
      }
      for (const slot of slots) {
        if (slot.call.index <= failed.call.index || slot.status !== "waiting") continue
        if (!slot.call.concurrencySafe) break
        endWithoutRunning(slot, cancelled(slot), "cancelled")
      }
    }

    const onFinished = (index: number, exit: Exit.Exit<CallOutcome>, endedMs: number) => {
      const slot = slots[index]!
      running.delete(slot)
      if (!slot.call.concurrencySafe) runningUnsafe--
      slot.fiber = undefined
      let outcome: CallOutcome
      let kind: CallOutcomeKind
      if (Exit.isSuccess(exit)) {
        outcome = exit.value
        kind = outcome.error === undefined ? "ok" : "error"
      } else if (Cause.isInterruptedOnly(exit.cause)) {
        const error = slot.cancelledWith ?? new Interrupted({ toolName: slot.call.block.name })
        outcome = pipeline.errorOutcome(slot.call, error)
        kind = error._tag === "CancelledBySibling" ? "cancelled" : "interrupted"
      } else {
        const defect = Cause.squash(exit.cause)
        outcome = pipeline.errorOutcome(
          slot.call,
          new ToolDefect({
            toolName: slot.call.block.name,
            reason: defect instanceof Error ? defect.message : String(defect)
          })
        )
        kind = "error"
      }
      settle(slot, outcome, kind, endedMs)
      if (outcome.contextModifier !== undefined) {
        const modifier = outcome.contextModifier
        const next = Option.getOrUndefined(Option.liftThrowable(() => modifier(session))())
        if (next !== undefined && next !== session) {
          session = next
          for (const s of slots) if (s.status === "waiting") s.footprint = "unknown"
        }
      }
      if (outcome.siblingFailure !== undefined && siblingCancellation && slot.call.concurrencySafe) {
        cancelSiblings(slot, outcome.siblingFailure)
      }
      if (outcome.halt !== undefined && halt === undefined) {
        halt = outcome.halt
        if (halt.kind === "userInterrupt") onInterrupt()
        else {
          for (const s of slots) {
            if (s.status === "waiting") {
              endWithoutRunning(
                s,
                new NotStarted({ toolName: s.call.block.name, reason: `a hook stopped execution (${halt.reason})` }),
                "not_started"
              )
            }
          }
        }
      }
    }

    const onModel = (event: Exclude<CallStreamEvent, { readonly _tag: "ToolUse" }>) => {
      if (event._tag === "StopReason") stopReason = event.stopReason
      if (event._tag === "BlockStarted" || event.stopReason === "tool_use") {
        for (const slot of slots) slot.movedOn = true
      }
    }

    const duplicateOf = (block: ToolUseBlock, index: number): PreparedCall => ({
      index,
      block,
      tool: undefined,
      decoded: Either.left(new DuplicateToolUseId({ toolName: block.name, toolUseId: block.id })),
      concurrencySafe: false,
      interruptBehavior: "cancel"
    })

    const onPrepared = (call: PreparedCall) => {
      const slot: Slot = {
        call,
        status: "waiting",
        movedOn: stopReason === "tool_use",
        batch: undefined,
        startedMs: undefined,
        endedMs: 0,
        outcome: undefined,
        kind: "ok",
        fiber: undefined,
        cancelledWith: undefined,
        footprint: "unknown"
      }
      slots[call.index] = slot
      if (interrupts > 0) endWithoutRunning(slot, new Interrupted({ toolName: call.block.name }), "interrupted")
      else if (halt !== undefined) {
        endWithoutRunning(
          slot,
          new NotStarted({ toolName: call.block.name, reason: `a hook stopped execution (${halt.reason})` }),
          "not_started"
        )
      }
    }

    const onStreamEnded = (error: string | undefined) => {
      streamEnded = true
      if (error === undefined && stopReason === "tool_use") return
      endReason = error !== undefined
        ? `the model's message ended with a stream error (${error}) before the call could start`
        : `the model's message ended with stop_reason "${stopReason ?? "none"}" before the call could start`
      for (const slot of slots) {
        if (slot.status === "waiting") {
          endWithoutRunning(slot, new NotStarted({ toolName: slot.call.block.name, reason: endReason }), "not_started")
        }
      }
    }

    const finished = () => streamEnded && settled === slots.length

    /** Tells the listener and forks the calls the handlers decided on, in their order. */
    const flush = Effect.suspend(() => {
      if (actions.length === 0) return Effect.void
      const todo = actions
      actions = []
      return Effect.forEach(
        todo,
        (action) => (action._tag === "Emit" ? listener!(action.event) : Effect.sync(() => fork(action.slot))),
        {
          discard: true
        }
      )
    })

    /** After a signal: start what may start now (footprints mode first learns the footprints). */
    const afterSignal: Effect.Effect<void> = Effect.suspend(() => {
      if (interrupts > 0 || halt !== undefined) return drain
      if (mode === "batches") {
        dispatch()
        return drain
      }
      return Effect.zipRight(
        computeFootprints,
        Effect.suspend(() => {
          dispatch()
          return drain
        })
      )
    })

    /**
     * Handles every signal that has arrived, in order, synchronously as long as no step needs an
     * Effect (preparing a streamed call, learning footprints); then tells and forks.
     */
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      while (nextSignal < signals.length) {
        const next = signals[nextSignal]!
        signals[nextSignal++] = undefined as unknown as Signal
        if (next._tag === "Model") {
          const event = next.event
          if (event._tag === "ToolUse") {
            const block = event.block
            const index = arrivals++
            emit({ _tag: "CallArrived", toolUseId: block.id, toolName: block.name, index, input: block.input })
            const duplicate = seenIds.has(block.id)
            seenIds.add(block.id)
            const known = duplicate ? duplicateOf(block, index) : prepared?.[index]
            if (known === undefined) {
              return Effect.zipRight(
                flush,
                Effect.flatMap(pipeline.prepare(block, index), (call) => {
                  onPrepared(call)
                  return afterSignal
                })
              )
            }
            onPrepared(known)
          } else onModel(event)
        } else if (next._tag === "Finished") onFinished(next.index, next.exit, next.atMs)
        else if (next._tag === "StreamEnded") onStreamEnded(next.error)
        else onInterrupt()
        if (interrupts === 0 && halt === undefined) {
          if (mode === "footprints") return afterSignal
          dispatch()
        }
      }
      return flush
    })

    const coordinate: Effect.Effect<void> = Effect.suspend(() =>
      finished()
        ? Effect.void
        : Effect.zipRight(nextSignal < signals.length ? drain : Effect.zipRight(waitForSignal, drain), coordinate)
    )

    // Interrupted from outside (or failed): no call and no feeder outlives the message.
    yield* coordinate.pipe(
      Effect.onExit(() => {
        const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = [...feeders]
        for (const slot of running) if (slot.fiber !== undefined) fibers.push(slot.fiber)
        return fibers.length === 0 ? Effect.void : Fiber.interruptAll(fibers)
      })
    )

    const outcomes = slots.map((s) => s.outcome!)
    const batchOutcome = outcomes.length === 0
      ? { reminders: [], notices: [] }
      : yield* hooks.postToolBatch({
        calls: outcomes.map((o) => ({
          toolName: o.toolName,
          toolInput: o.input,
          toolUseId: o.toolUseId,
          toolResponse: contentText(o.result.content)
        })),
        session
      })
    // reminders are placed in the order the calls finished, as Claude Code places them
    const finishOrder = slots.map((s, i) => ({ i, at: s.endedMs })).sort((a, b) => a.at - b.at || a.i - b.i).map((x) =>
      x.i
    )
    const content = layoutToolResults(outcomes, batchOutcome.reminders, finishOrder)
    const message: ToolResultsMessage = { role: "user", content }
    // each outcome carries its result as the model receives it (reminders folded in)
    const answered = outcomes.map((o, i) => {
      const sent = content[i]
      return sent !== undefined && sent.type === "tool_result" ? { ...o, result: sent } : o
    })
    const finalHalt: Halt | undefined = halt ??
      (batchOutcome.stop !== undefined ? { kind: "hookStop", reason: batchOutcome.stop.reason } : undefined)
    return {
      outcomes: answered,
      message,
      session,
      timeline: slots.map((s) => ({
        toolUseId: s.call.block.id,
        toolName: s.call.block.name,
        index: s.call.index,
        batch: s.batch,
        startedMs: s.startedMs,
        endedMs: s.endedMs,
        outcome: s.kind,
        concurrencySafe: s.call.concurrencySafe
      })),
      interrupted: interrupts > 0,
      halt: finalHalt
    } satisfies MessageRun
  })

  // One span per message (never per call); no captured stack trace, which cost a third of a
  // one-call message.
  const runStream = <E>(events: Stream.Stream<CallStreamEvent, E>, options: SchedulerOptions) =>
    run({ _tag: "Stream", events }, options).pipe(Effect.withSpan("Scheduler.runStream", { captureStackTrace: false }))

  const runMessage = (blocks: ReadonlyArray<ToolUseBlock>, options: SchedulerOptions) =>
    run({ _tag: "Known", blocks }, options).pipe(
      Effect.withSpan("Scheduler.runMessage", { attributes: { calls: blocks.length }, captureStackTrace: false })
    )

  return Scheduler.of({ runMessage, runStream })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = Layer.effect(Scheduler, make)
