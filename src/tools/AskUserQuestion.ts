/**
 * AskUserQuestion: the model asks the person one to four multiple-choice questions and gets the
 * answers back. The asking is the approval: the call always asks (no mode or rule skips it), and
 * whatever answers an "ask" — the terminal's question form, a library callback — puts the
 * answers into the input (`answers`: question text → the chosen label, several labels joined
 * with ", ", or the person's own words). The result text is Claude Code's.
 *
 * Where nobody can answer (print mode, JSON output), the session withholds the tool: the model
 * does not see it, and a call gets Claude Code's "disabled for this session" text.
 */
import { Effect, Schema } from "effect"
import { buildTool } from "../Tool.js"
import { ask } from "../Permission.js"

export const ASK_USER_QUESTION_TOOL_NAME = "AskUserQuestion"

/** What a call gets where nobody can answer (after "No such tool available: AskUserQuestion."). */
export const ASK_USER_QUESTION_DISABLED =
  `${ASK_USER_QUESTION_TOOL_NAME} is disabled for this session, in subagents as well as here.`

/** A question may carry notes and no option: Claude Code's placeholder answer for that. */
export const NOTES_ONLY = "(notes only)"

const HEADER_MAX = 12

export const QuestionOption = Schema.Struct({
  label: Schema.String.annotations({ description: "What the person sees and picks: one to five words" }),
  description: Schema.String.annotations({ description: "What choosing this option means or leads to" }),
  preview: Schema.optional(
    Schema.String.annotations({ description: "Optional text shown beside the option (a code snippet, a mockup)" })
  )
})

export const Question = Schema.Struct({
  question: Schema.String.annotations({ description: "The whole question, ending with a question mark" }),
  header: Schema.String.annotations({
    description: `A very short label for the question (at most ${HEADER_MAX} characters), e.g. "Library"`
  }),
  options: Schema.Array(QuestionOption)
    .pipe(Schema.minItems(2), Schema.maxItems(4))
    .annotations({
      description: "Two to four distinct choices; the person can always type another answer, so add no 'Other'"
    }),
  multiSelect: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "True when the person may pick several options"
  })
})
export type Question = typeof Question.Type

const uniqueTexts = (input: { readonly questions: ReadonlyArray<Question> }): boolean => {
  const texts = input.questions.map((q) => q.question)
  if (new Set(texts).size !== texts.length) return false
  return input.questions.every((q) => new Set(q.options.map((o) => o.label)).size === q.options.length)
}

export const AskUserQuestionInput = Schema.Struct({
  questions: Schema.Array(Question).pipe(Schema.minItems(1), Schema.maxItems(4)).annotations({
    description: "One to four questions"
  }),
  answers: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
      description: "Filled in by whoever answers; leave it out"
    })
  ),
  annotations: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Struct({ preview: Schema.optional(Schema.String), notes: Schema.optional(Schema.String) })
    })
  ),
  metadata: Schema.optional(Schema.Struct({ source: Schema.optional(Schema.String) }))
}).pipe(
  Schema.filter(uniqueTexts, {
    message: () => "Question texts must be unique, option labels must be unique within each question"
  })
)
export type AskUserQuestionInput = typeof AskUserQuestionInput.Type

export interface AskUserQuestionOutput {
  readonly questions: ReadonlyArray<Question>
  readonly answers: Readonly<Record<string, string>>
  readonly annotations?: AskUserQuestionInput["annotations"]
}

const PROMPT = `Asks the user one to four multiple-choice questions and returns their answers.

Use it when a decision is theirs to make and you cannot settle it from what you have: a preference, an ambiguous requirement, a choice between approaches with real trade-offs.
- Each question has two to four options, each a short label with a one-line description; the user can always answer in their own words instead, so add no "Other" option.
- Set multiSelect when several options can be chosen together.
- Put the option you recommend first and add "(Recommended)" to its label.
- Do not ask about things you can find out yourself by reading the code or running a command.`

/** The labels an answer picks: one label, or several joined with ", " for a multi-select question. */
const pickedLabels = (answer: string, question: Question): boolean => {
  const labels = new Set(question.options.map((o) => o.label))
  if (labels.has(answer)) return true
  if (!question.multiSelect) return false
  const parts = answer.split(", ")
  return parts.length > 0 && parts.every((p) => labels.has(p))
}

/** Claude Code's text for the answers. */
export const answersText = (output: AskUserQuestionOutput): string => {
  const parts = output.questions.flatMap((q) => {
    const answer = output.answers[q.question]
    const notes = output.annotations?.[q.question]
    const answered = answer !== undefined && answer !== "" && answer !== NOTES_ONLY
    if (!answered && notes?.notes === undefined) return []
    const items = [answered ? `"${q.question}"="${answer}"` : `"${q.question}"=(no option selected)`]
    if (notes?.preview !== undefined) items.push(`selected preview:\n${notes.preview}`)
    if (notes?.notes !== undefined) items.push(`notes: ${notes.notes}`)
    return [items.join(" ")]
  })
  if (parts.length === 0) return "The user did not answer the questions."
  const joined = parts.join(", ")
  const onlyOptions = output.questions.every((q) => {
    if (output.annotations?.[q.question]?.notes !== undefined) return false
    const answer = output.answers[q.question]
    return answer === undefined || answer === "" || answer === NOTES_ONLY || pickedLabels(answer, q)
  })
  return onlyOptions
    ? `Your questions have been answered: ${joined}. You can now continue with these answers in mind.`
    : `The user answered: ${joined}. Read the answers carefully \u2014 they may request clarification, changes, or that you not proceed \u2014 and follow what they actually say.`
}

export const AskUserQuestionTool = buildTool({
  name: ASK_USER_QUESTION_TOOL_NAME,
  description: PROMPT,
  prompt: PROMPT,
  inputSchema: AskUserQuestionInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  requiresUserInteraction: true,
  checkPermissions: () => Effect.succeed(ask("Answer questions?", { kind: "safety" })),
  call: (input) =>
    Effect.succeed({
      data: {
        questions: input.questions,
        answers: input.answers ?? {},
        ...(input.annotations === undefined ? {} : { annotations: input.annotations })
      } satisfies AskUserQuestionOutput
    }),
  mapResult: answersText,
  renderUse: (input) => input.questions.map((q) => q.header).join(", "),
  renderResult: (output) =>
    output.questions.map((q) => `${q.header}: ${output.answers[q.question] ?? "(no answer)"}`).join("\n")
})
