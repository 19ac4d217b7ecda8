/**
 * `--input-format stream-json`: user messages on stdin, one JSON object a line, as Claude Code
 * reads them (`{"type":"user","message":{"role":"user","content":"…" | [blocks]}}`). Each line is
 * one prompt, run as it arrives; a line that is not such a message ends the input with an error
 * naming the line and the path inside it.
 */
import { Effect, Either, Schema, Stream } from "effect"
import * as readline from "node:readline"
import { BadRequest } from "../Errors.js"
import { documentIssue, parseJsonText } from "../internal/documentIssue.js"

export type PromptContent = string | ReadonlyArray<Readonly<Record<string, unknown>>>

const UserLine = Schema.Struct({
  type: Schema.Literal("user"),
  message: Schema.Struct({
    role: Schema.Literal("user"),
    content: Schema.Union(Schema.String, Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
  })
})
const decodeUserLine = Schema.decodeUnknownEither(UserLine)

/** One stdin line as a prompt (blank lines are skipped by the caller). */
export const promptOfLine = (line: string, lineNumber: number): Either.Either<PromptContent, BadRequest> => {
  const where = `stdin line ${lineNumber}`
  const parsed = Either.try(() => parseJsonText(line))
  if (Either.isLeft(parsed)) return Either.left(new BadRequest({ reason: `${where}: not valid JSON` }))
  const decoded = decodeUserLine(parsed.right)
  if (Either.isLeft(decoded)) return Either.left(new BadRequest({ reason: `${where}: ${documentIssue(decoded.left)}` }))
  return Either.right(decoded.right.message.content)
}

/** The prompts of a stream of JSON lines, as they arrive. */
export const streamJsonPrompts = (input: NodeJS.ReadableStream): Stream.Stream<PromptContent, BadRequest> =>
  Stream.suspend(() => {
    let n = 0
    return Stream.fromAsyncIterable(
      readline.createInterface({ input, crlfDelay: Infinity }),
      (e) => new BadRequest({ reason: `cannot read stdin: ${String(e)}` })
    ).pipe(
      Stream.map((line) => ({ line, number: ++n })),
      Stream.filter(({ line }) => line.trim() !== ""),
      Stream.mapEffect(({ line, number }) => Effect.suspend(() => promptOfLine(line, number)))
    )
  })
