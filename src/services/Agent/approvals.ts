/**
 * Approvals in a recorded session: the answers a person gave are written to the transcript
 * (`approval` lines), and a replay answers the same calls the same way — an "always" becomes
 * "session" so a replay never writes settings files; a call with no recorded answer is denied.
 */
import { Effect, Layer } from "effect"
import { Approver, type ApprovalAnswer, type ApprovalRequest } from "../Approver.js"
import type { RecordedApproval, Transcript } from "./transcript.js"

export interface ApprovalRecorder {
  /** Wraps an approver: each question runs inside `around` (e.g. to pause a status line); each answer is recorded. */
  readonly wrap: (inner: Layer.Layer<Approver>) => Layer.Layer<Approver>
  readonly attach: (transcript: Transcript) => void
  readonly setAround: (around: <A>(asking: Effect.Effect<A>) => Effect.Effect<A>) => void
}

export const makeApprovalRecorder = (): ApprovalRecorder => {
  let transcript: Transcript | undefined
  let around: <A>(asking: Effect.Effect<A>) => Effect.Effect<A> = (asking) => asking
  const record = (request: ApprovalRequest, answer: ApprovalAnswer) =>
    transcript === undefined
      ? Effect.void
      : transcript.write({
        type: "approval",
        at: new Date().toISOString(),
        tool_use_id: request.toolUseId,
        tool: request.tool.name,
        input: request.input,
        message: request.message,
        answer
      })
  return {
    wrap: (inner) =>
      Layer.effect(
        Approver,
        Effect.map(Approver, (approver) =>
          Approver.of({
            canAsk: approver.canAsk,
            request: (request) =>
              Effect.suspend(() => around(approver.request(request))).pipe(
                Effect.tap((answer) => record(request, answer))
              )
          }))
      ).pipe(Layer.provide(inner)),
    attach: (t) => {
      transcript = t
    },
    setAround: (f) => {
      around = f
    }
  }
}

const isAnswer = (u: Readonly<Record<string, unknown>>): u is ApprovalAnswer =>
  u.behavior === "allow" || u.behavior === "deny"

/** Answers each ask as the transcript recorded it (by tool_use id); anything else is denied. */
export const layerReplayed = (approvals: ReadonlyArray<RecordedApproval>): Layer.Layer<Approver> => {
  const answers = new Map(approvals.map((a) => [a.toolUseId, a.answer] as const))
  return Layer.succeed(
    Approver,
    Approver.of({
      canAsk: true,
      request: (request) =>
        Effect.sync((): ApprovalAnswer => {
          const answer = answers.get(request.toolUseId)
          if (answer === undefined || !isAnswer(answer)) {
            return { behavior: "deny", feedback: "no answer was recorded for this call" }
          }
          return answer.behavior === "allow" && answer.scope === "always" ? { ...answer, scope: "session" } : answer
        })
    })
  )
}
