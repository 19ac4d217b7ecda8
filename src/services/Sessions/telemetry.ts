/**
 * What a served runner measures: spans around each input, tool call and permission wait, and
 * counters and histograms of them. Spans are made only when a tracer is installed (Effect's
 * default one keeps them in memory only); a metric update is a map lookup.
 * `src/layers/Telemetry.ts` exports them over OTLP when the environment names an endpoint.
 *
 * Only names, ids, tags and timings are recorded, never what a tool was asked or answered, and
 * only attributes under `toolgate.` leave the process (see src/internal/exportedSpans.ts).
 */
import { Cause, Clock, Effect, Exit, Metric, MetricBoundaries, MetricLabel } from "effect"
import type { CallError } from "../../Errors.js"
import type { ApprovalAnswer } from "../Approver.js"
import type { CallOutcome, PreparedCall } from "../CallPipeline.js"

/** Spans and attributes with this prefix are the ones exported. */
export const PREFIX = "toolgate."

export const SPAN_INPUT = "toolgate.input"
export const SPAN_CALL = "toolgate.call"
export const SPAN_APPROVAL = "toolgate.approval"

/** Seconds, from a millisecond to ten minutes. */
const SECONDS = MetricBoundaries.fromIterable([
  0.001,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
  120,
  300,
  600
])

export const sessionsCreated = Metric.counter("toolgate.sessions.created", {
  description: "Sessions created through this runner",
  incremental: true
})
export const inputs = Metric.counter("toolgate.inputs", {
  description: "Inputs finished on this runner, by kind (prompt, tool_uses) and status (done, failed)",
  incremental: true
})
export const inputDuration = Metric.histogram(
  "toolgate.input.duration",
  SECONDS,
  "Seconds from an input being stored to its result being stored, by kind and status"
)
export const calls = Metric.counter("toolgate.calls", {
  description: "Tool calls answered on this runner, by tool and outcome",
  incremental: true
})
export const callDuration = Metric.histogram(
  "toolgate.call.duration",
  SECONDS,
  "Seconds a tool call took to be answered (permission waits included), by tool and outcome"
)
export const approvals = Metric.counter("toolgate.approvals", {
  description: "Permission questions that waited for an answer, by decision (allow, deny, timeout, interrupted)",
  incremental: true
})
export const approvalWait = Metric.histogram(
  "toolgate.approval.wait",
  SECONDS,
  "Seconds a permission question waited for its answer, by decision"
)
export const runnerLost = Metric.counter("toolgate.runner_lost", {
  description: "Calls answered RunnerLost (started on a runner that went away, never run twice), by tool",
  incremental: true
})

/**
 * The same labels as the same array each time: Effect finds a metric's tagged series by the
 * array's identity (a new array is hashed and looked up again, about ten times the cost).
 */
const labelSets = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
const labels = (...pairs: ReadonlyArray<readonly [string, string]>): ReadonlyArray<MetricLabel.MetricLabel> => {
  const key = pairs.map(([k, v]) => `${k}\0${v}`).join("\0")
  let set = labelSets.get(key)
  if (set === undefined) {
    set = pairs.map(([k, v]) => MetricLabel.make(k, v))
    labelSets.set(key, set)
  }
  return set
}

/**
 * The tracer Effect has when none is installed: it only keeps spans in memory, so none is made
 * for it (a span and its attributes cost tens of microseconds a call).
 */
const defaultTracer = Effect.runSync(Effect.tracer)

/** `effect` in a span named `name`, when a tracer is installed. */
const spanned = (name: string, attributes: Record<string, unknown>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tracerWith((tracer) =>
    tracer === defaultTracer ? effect : Effect.withSpan(effect, name, { attributes, captureStackTrace: false })
  )

/** Attributes of the current span, when a tracer is installed. */
const annotate = (values: Record<string, unknown>): Effect.Effect<void> =>
  Effect.tracerWith((tracer) => (tracer === defaultTracer ? Effect.void : Effect.annotateCurrentSpan(values)))

export const sessionCreated: Effect.Effect<void> = Effect.sync(() => sessionsCreated.unsafeUpdate(1, []))

export type CallOutcomeName = "ok" | "error" | "denied" | "not_approved" | "runner_lost" | "interrupted"

/** A call's outcome, in a few words: what a dashboard groups calls by. */
export const outcomeOf = (error: CallError | undefined): CallOutcomeName => {
  if (error === undefined) return "ok"
  switch (error._tag) {
    case "PermissionDenied":
      return "denied"
    case "NotApproved":
      return "not_approved"
    case "RunnerLost":
      return "runner_lost"
    case "Interrupted":
    case "CancelledBySibling":
      return "interrupted"
    default:
      return "error"
  }
}

/** The tool's own name (a model may name a tool that does not exist: that is not a label). */
const toolOf = (call: PreparedCall): string => call.tool?.name ?? "unknown"

/** Calls whose recorded outcome was given back (a resumed run): the runner that ran them counted them. */
const replayedCalls = new WeakSet<PreparedCall>()
export const noteReplayedCall = (call: PreparedCall): Effect.Effect<void> =>
  Effect.sync(() => void replayedCalls.add(call))

const secondsSince = (start: number) => Effect.map(Clock.currentTimeMillis, (now) => Math.max(0, now - start) / 1000)

/** One tool call of a served input: a `toolgate.call` span, the call counters and its duration. */
export const measureCall = <E, R>(
  call: PreparedCall,
  effect: Effect.Effect<CallOutcome, E, R>
): Effect.Effect<CallOutcome, E, R> => {
  const tool = toolOf(call)
  return Effect.flatMap(Clock.currentTimeMillis, (start) =>
    effect.pipe(
      Effect.onExit((exit) =>
        Effect.gen(function*() {
          const outcome: CallOutcomeName = Exit.isSuccess(exit)
            ? outcomeOf(exit.value.error)
            : Cause.isInterruptedOnly(exit.cause)
            ? "interrupted"
            : "error"
          const replayed = replayedCalls.has(call)
          yield* annotate({
            "toolgate.call.outcome": outcome,
            "toolgate.call.replayed": replayed,
            ...(Exit.isSuccess(exit) && exit.value.error !== undefined
              ? { "toolgate.call.error": exit.value.error._tag }
              : {}),
            ...(Exit.isSuccess(exit) && exit.value.decision !== undefined
              ? { "toolgate.call.permission": exit.value.decision._tag.toLowerCase() }
              : {})
          })
          if (replayed) return
          const tags = labels(["tool", tool], ["outcome", outcome])
          calls.unsafeUpdate(1, tags)
          callDuration.unsafeUpdate(yield* secondsSince(start), tags)
          if (outcome === "runner_lost") runnerLost.unsafeUpdate(1, labels(["tool", tool]))
        })
      ),
      spanned(SPAN_CALL, { "toolgate.tool": tool, "toolgate.tool_use.id": call.block.id })
    ))
}

/** What the scheduler answers without running the call (no span: nothing ran). */
const NEVER_RAN: ReadonlySet<string> = new Set(["UnknownTool", "InvalidToolInput", "NotStarted", "DuplicateToolUseId"])

/** Counts a call the scheduler answered without running it (`measureCall` counts the others). */
export const callAnsweredUnrun = (outcome: CallOutcome): Effect.Effect<void> =>
  Effect.sync(() => {
    const tag = outcome.error?._tag
    if (tag === undefined || !NEVER_RAN.has(tag)) return
    const tool = tag === "UnknownTool" ? "unknown" : outcome.toolName
    calls.unsafeUpdate(1, labels(["tool", tool], ["outcome", "error"]))
  })

/** Answers that are a question's time running out (told apart from a person's deny). */
const timedOutAnswers = new WeakSet<ApprovalAnswer>()
export const noteTimedOut = <A extends ApprovalAnswer>(answer: A): A => {
  timedOutAnswers.add(answer)
  return answer
}

/** One wait for a permission answer: a `toolgate.approval` span, the approval counter and the wait. */
export const measureApproval = <E, R>(
  question: { readonly sessionId: string; readonly toolUseId: string; readonly tool: string },
  wait: Effect.Effect<ApprovalAnswer, E, R>
): Effect.Effect<ApprovalAnswer, E, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    wait.pipe(
      Effect.onExit((exit) =>
        Effect.gen(function*() {
          const decision = Exit.isSuccess(exit)
            ? timedOutAnswers.has(exit.value) ? "timeout" : exit.value.behavior
            : "interrupted"
          yield* annotate({
            "toolgate.approval.decision": decision,
            ...(Exit.isSuccess(exit) && exit.value.behavior === "allow"
              ? { "toolgate.approval.scope": exit.value.scope }
              : {})
          })
          const tags = labels(["decision", decision])
          approvals.unsafeUpdate(1, tags)
          approvalWait.unsafeUpdate(yield* secondsSince(start), tags)
        })
      ),
      spanned(SPAN_APPROVAL, {
        "toolgate.session.id": question.sessionId,
        "toolgate.tool_use.id": question.toolUseId,
        "toolgate.tool": question.tool
      })
    ))

/** An input finished here: counted, and timed from when it was stored. */
export const inputFinished = (
  input: { readonly kind: string; readonly status: "done" | "failed"; readonly createdAt: number; readonly now: number }
): Effect.Effect<void> =>
  Effect.sync(() => {
    const tags = labels(["kind", input.kind], ["status", input.status])
    inputs.unsafeUpdate(1, tags)
    inputDuration.unsafeUpdate(Math.max(0, input.now - input.createdAt) / 1000, tags)
  })

/** A `toolgate.input` span around one run of an input on this runner, with the status it ended in. */
export const measureInput = (
  input: {
    readonly sessionId: string
    readonly key: string
    readonly kind: string
    readonly seq: number
    readonly runner: string
    readonly resumed: boolean
  }
) =>
<A extends { readonly status: string }, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  run.pipe(
    Effect.tap((result) => annotate({ "toolgate.input.status": result.status })),
    spanned(SPAN_INPUT, {
      "toolgate.session.id": input.sessionId,
      "toolgate.input.key": input.key,
      "toolgate.input.kind": input.kind,
      "toolgate.input.seq": input.seq,
      "toolgate.runner": input.runner,
      "toolgate.input.resumed": input.resumed
    })
  )
