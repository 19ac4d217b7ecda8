/**
 * The CLI's Approver at a terminal: permission questions drawn by `approvalView` (diffs, the
 * narrowest "always" rule, where it is saved), and AskUserQuestion's question form. One question
 * on the terminal at a time. Without a terminal nothing can ask, and every ask is denied.
 */
import { Effect, Layer } from "effect"
import { Approver, layerDeny, makeTerminal, type TerminalIO } from "../services/Approver.js"
import { ASK_USER_QUESTION_TOOL_NAME } from "../tools/AskUserQuestion.js"
import { renderApproval } from "./approvalView.js"
import { around } from "./asking.js"
import { askQuestions } from "./questionForm.js"

export const makeCliTerminal = (io: TerminalIO) =>
  Effect.gen(function*() {
    const approvals = yield* makeTerminal(io, renderApproval)
    const questions = yield* Effect.makeSemaphore(1)
    return Approver.of({
      canAsk: true,
      request: (request) =>
        around(
          request.tool.name === ASK_USER_QUESTION_TOOL_NAME
            ? questions.withPermits(1)(askQuestions(io, request))
            : approvals.request(request)
        )
    })
  })

export const layerCliTerminal: Layer.Layer<Approver> = Layer.unwrapEffect(
  Effect.sync(() =>
    process.stdin.isTTY === true && process.stdout.isTTY === true
      ? Layer.effect(Approver, makeCliTerminal({ input: process.stdin, output: process.stdout }))
      : layerDeny
  )
)
