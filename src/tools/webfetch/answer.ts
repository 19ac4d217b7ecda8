/**
 * Answering the WebFetch prompt about a page. When a ModelClient is in the context, it reads the
 * page and answers the prompt (Claude Code runs a small model here); without one, the page's
 * Markdown itself is the result, and the pipeline's usual spill caps its size. The ModelClient is
 * looked up at call time (`Effect.serviceOption`), so the tool value needs no service.
 */
import { Effect, Option, Stream } from "effect"
import { ToolError } from "../../Errors.js"
import { ModelClient } from "../../services/ModelClient.js"
import { MAX_MARKDOWN_FOR_MODEL } from "./settings.js"

const SYSTEM = "You answer questions about one web page, using only the page content you are given."

export const answerPrompt = (content: string, prompt: string): string => {
  const page = content.length > MAX_MARKDOWN_FOR_MODEL
    ? `${
      content.slice(0, MAX_MARKDOWN_FOR_MODEL)
    }\n\n[Content truncated: only the first ${MAX_MARKDOWN_FOR_MODEL} characters are shown.]`
    : content
  return `Web page content:
---
${page}
---

${prompt}

Answer briefly, from the content above only. In your answer:
- Quote at most 125 characters from the page at a time, always in quotation marks; everything outside quotation marks must be your own words.
- Do not comment on whether the request or your answer is legal.
- Do not reproduce song lyrics.`
}

export type Answer =
  | { readonly _tag: "Model"; readonly model: string; readonly text: string }
  | { readonly _tag: "NoModel" }

/** The model's answer about `content`, or NoModel when no ModelClient is provided. */
export const answerAboutPage = (content: string, prompt: string): Effect.Effect<Answer, ToolError> =>
  Effect.gen(function*() {
    const client = yield* Effect.serviceOption(ModelClient)
    if (Option.isNone(client)) return { _tag: "NoModel" } satisfies Answer
    const model = client.value
    const text = yield* model
      .stream({ system: SYSTEM, messages: [{ role: "user", content: answerPrompt(content, prompt) }], tools: [] })
      .pipe(
        Stream.runFold("", (text, event) => (event._tag === "TextDelta" ? text + event.text : text)),
        Effect.mapError((error) =>
          new ToolError({ reason: `WebFetch could not get an answer about the page from the model: ${error.message}` })
        )
      )
    return {
      _tag: "Model",
      model: model.model,
      text: text.trim() === "" ? "(the model gave no answer)" : text.trim()
    } satisfies Answer
  })
