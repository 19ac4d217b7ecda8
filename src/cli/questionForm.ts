/**
 * AskUserQuestion at the terminal: each question with its numbered options (and "Other" for an
 * answer in the person's own words), one answer line per question. The answers go back as the
 * approval's updated input; Ctrl-C stops the turn, Ctrl-D leaves the rest unanswered.
 */
import { Effect } from "effect"
import * as readline from "node:readline"
import {
  escapeForDisplay,
  question,
  type ApprovalAnswer,
  type ApprovalRequest,
  type TerminalIO
} from "../services/Approver.js"
import type { AskUserQuestionInput, Question } from "../tools/AskUserQuestion.js"
import { bold, dim } from "./render.js"

const isQuestions = (input: unknown): input is AskUserQuestionInput =>
  input !== null && typeof input === "object" && Array.isArray((input as { questions?: unknown }).questions)

const optionLines = (q: Question): Array<string> => [
  ...q.options.map((o, i) =>
    `  ${i + 1}. ${escapeForDisplay(o.label)}${
      o.description === "" ? "" : dim(` — ${escapeForDisplay(o.description)}`)
    }`
  ),
  `  ${q.options.length + 1}. Other: type your own answer`
]

/** The answer a line gives: labels picked by number, or the person's own words; undefined to ask again. */
export const answerOf = (
  line: string,
  q: Question
):
  | { readonly _tag: "Answer"; readonly text: string }
  | { readonly _tag: "Other" }
  | { readonly _tag: "Skip" }
  | undefined =>
{
  const text = line.trim()
  if (text === "") return { _tag: "Skip" }
  if (/^\d+(\s*,\s*\d+)*$/.test(text)) {
    const picks = Array.from(new Set(text.split(",").map((n) => Number(n.trim()))))
    if (picks.length === 1 && picks[0] === q.options.length + 1) return { _tag: "Other" }
    if (picks.some((n) => n < 1 || n > q.options.length)) return undefined
    if (picks.length > 1 && !q.multiSelect) return undefined
    return { _tag: "Answer", text: picks.map((n) => q.options[n - 1]!.label).join(", ") }
  }
  return { _tag: "Answer", text }
}

export const askQuestions = (io: TerminalIO, request: ApprovalRequest): Effect.Effect<ApprovalAnswer> =>
  Effect.scoped(
    Effect.gen(function*() {
      const input = request.input
      if (!isQuestions(input)) return { behavior: "deny" } satisfies ApprovalAnswer
      const rl = yield* Effect.acquireRelease(
        Effect.sync(() => readline.createInterface({ input: io.input, output: io.output, terminal: true })),
        (rl) => Effect.sync(() => rl.close())
      )
      const answers: Record<string, string> = {}
      io.output.write(`\n${bold("── Claude has a question for you ──")}\n`)
      for (const q of input.questions) {
        const range = `1-${q.options.length + 1}`
        io.output.write(
          `\n${bold(`[${escapeForDisplay(q.header)}]`)} ${escapeForDisplay(q.question)}${
            q.multiSelect ? dim(" (one or more, e.g. 1,3)") : ""
          }\n${optionLines(q).join("\n")}\n`
        )
        for (;;) {
          const line = yield* question(rl, `Answer [${range}, or type your answer; Enter skips]: `)
          if (line._tag === "Interrupt") return { behavior: "deny", interrupt: true } satisfies ApprovalAnswer
          if (line._tag === "Closed") {
            return { behavior: "allow", scope: "once", updatedInput: { ...input, answers } } satisfies ApprovalAnswer
          }
          const answer = answerOf(line.line, q)
          if (answer === undefined) {
            io.output.write(
              `Please answer with ${
                q.multiSelect ? "option numbers" : "one option number"
              } (${range}) or in your own words.\n`
            )
            continue
          }
          if (answer._tag === "Skip") {
            break
          }
          if (answer._tag === "Answer") {
            answers[q.question] = answer.text
            break
          }
          const own = yield* question(rl, "Your answer: ")
          if (own._tag === "Interrupt") return { behavior: "deny", interrupt: true } satisfies ApprovalAnswer
          if (own._tag === "Line" && own.line.trim() !== "") answers[q.question] = own.line.trim()
          break
        }
      }
      return { behavior: "allow", scope: "once", updatedInput: { ...input, answers } } satisfies ApprovalAnswer
    })
  )
