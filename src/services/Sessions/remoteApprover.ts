/**
 * The Approver of a served session: a permission question is stored (so any runner can show and
 * answer it), announced on the session's event stream, and waits for an answer over HTTP. An
 * answer wakes it at once on the runner running the call (the session entity routes it there);
 * answers that land elsewhere are picked up by polling. A question nobody answers in time is
 * denied, and so is one asked outside a served input (fail closed).
 *
 * A run resumed after a crash finds its questions in storage: an answered one is not asked again,
 * an open one keeps its original deadline.
 */
import { Clock, Deferred, Duration, Effect, Option, Schema } from "effect"
import { offeredRules, type ApprovalAnswer, type ApprovalRequest, type ApproverService } from "../Approver.js"
import { toJsonValue } from "./json.js"
import { CurrentRun, type RunControls } from "./run.js"
import { SessionStore, type ApprovalRow, type SessionStoreService } from "./store.js"
import { measureApproval, noteTimedOut } from "./telemetry.js"

export const StoredAnswer = Schema.Union(
  Schema.Struct({
    behavior: Schema.Literal("allow"),
    scope: Schema.Literal("once", "session", "always"),
    updatedInput: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true }),
    rules: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
  }),
  Schema.Struct({
    behavior: Schema.Literal("deny"),
    feedback: Schema.optionalWith(Schema.String, { exact: true }),
    interrupt: Schema.optionalWith(Schema.Boolean, { exact: true })
  })
)

const decodeAnswer = (u: unknown): ApprovalAnswer =>
  Option.getOrElse(
    Schema.decodeUnknownOption(StoredAnswer)(u),
    (): ApprovalAnswer => ({ behavior: "deny", feedback: "the stored answer could not be read" })
  )

export interface RemoteApproverOptions {
  /** How often a waiting question looks for an answer given through another runner. */
  readonly pollInterval?: Duration.DurationInput
}

const timedOut = (seconds: number): ApprovalAnswer => ({
  behavior: "deny",
  feedback: `No one answered the permission question within ${seconds} seconds, so the call was denied.`
})

export const makeRemoteApprover = (sessionId: string, options: RemoteApproverOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const pollInterval = Duration.toMillis(options.pollInterval ?? Duration.seconds(1))

    const wait = (run: RunControls, row: ApprovalRow): Effect.Effect<ApprovalAnswer> =>
      Effect.gen(function*() {
        for (;;) {
          // registered before reading storage, so an answer stored in between still wakes us
          const waiter = yield* Deferred.make<void>()
          run.answerWaiters.set(row.toolUseId, waiter)
          const stored = yield* store.approval(run.executionId, row.toolUseId).pipe(Effect.orDie)
          if (Option.isSome(stored) && stored.value.answeredAt !== undefined) return decodeAnswer(stored.value.answer)
          const remaining = row.expiresAt - (yield* Clock.currentTimeMillis)
          if (remaining <= 0) {
            const answer = noteTimedOut(timedOut(Math.round((row.expiresAt - row.askedAt) / 1000)))
            // an answer that won the race is read on the next round
            if (
              yield* store.answer(run.executionId, row.toolUseId, answer, yield* Clock.currentTimeMillis).pipe(
                Effect.orDie
              )
            ) {
              yield* run.events.emit("approval_timed_out", { toolUseId: row.toolUseId })
              return answer
            }
            continue
          }
          yield* Effect.raceFirst(
            Deferred.await(waiter),
            Effect.sleep(Duration.millis(Math.min(remaining, pollInterval)))
          )
        }
      }).pipe(Effect.ensuring(Effect.sync(() => run.answerWaiters.delete(row.toolUseId))))

    const ask = (store: SessionStoreService, run: RunControls, request: ApprovalRequest) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const rules = offeredRules(request.suggestions)
        const row = yield* store
          .ask({
            executionId: run.executionId,
            toolUseId: request.toolUseId,
            sessionId,
            inputKey: run.inputKey,
            request: { tool: request.tool.name, input: toJsonValue(request.input), message: request.message, rules },
            askedAt: now,
            expiresAt: now + run.approvalTimeoutMs
          })
          .pipe(Effect.orDie)
        if (row.answeredAt !== undefined) return decodeAnswer(row.answer)
        const step = run.callSteps.get(request.toolUseId)
        if (step !== undefined) yield* store.setStepState(run.executionId, step, "asking").pipe(Effect.orDie)
        yield* run.events.emit("approval_requested", {
          toolUseId: request.toolUseId,
          tool: request.tool.name,
          input: toJsonValue(request.input),
          message: request.message,
          rules,
          expiresAt: row.expiresAt
        })
        const answer = yield* wait(run, row).pipe(
          // a question the user interrupted is closed; one cut short by a runner shutting down stays
          // open for the run that resumes elsewhere
          Effect.onInterrupt(() =>
            run.interruptCount() === 0
              ? Effect.void
              : Effect.flatMap(Clock.currentTimeMillis, (at) =>
                store.answer(run.executionId, request.toolUseId, { behavior: "deny", feedback: "interrupted" }, at)
                  .pipe(Effect.ignore))
          ),
          (waiting) => measureApproval({ sessionId, toolUseId: request.toolUseId, tool: request.tool.name }, waiting)
        )
        if (step !== undefined) yield* store.setStepState(run.executionId, step, "started").pipe(Effect.orDie)
        return answer
      })

    const request = (req: ApprovalRequest): Effect.Effect<ApprovalAnswer> =>
      Effect.gen(function*() {
        const current = yield* Effect.serviceOption(CurrentRun)
        if (Option.isNone(current)) {
          return { behavior: "deny", feedback: "no one can answer outside a served input" } satisfies ApprovalAnswer
        }
        const run = current.value
        const answer = yield* ask(store, run, req)
        yield* run.events.emit("approval_answered", { toolUseId: req.toolUseId, answer })
        yield* run.transcript.write({
          type: "approval",
          at: new Date(yield* Clock.currentTimeMillis).toISOString(),
          tool_use_id: req.toolUseId,
          tool: req.tool.name,
          input: toJsonValue(req.input),
          message: req.message,
          answer
        })
        if (answer.behavior === "allow" && answer.scope !== "once") {
          const rules = answer.rules ?? offeredRules(req.suggestions)
          if (rules.length > 0) {
            yield* store.addGrantedRules(sessionId, rules, yield* Clock.currentTimeMillis).pipe(Effect.orDie)
          }
        }
        return answer
      })

    return { canAsk: true, request } satisfies ApproverService
  })
