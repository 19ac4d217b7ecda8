/**
 * Reading what the CLI is given: a file or stdin, JSON (a UTF-8 byte order mark allowed), and the
 * tool_use blocks of a message, decoded with Schemas so a problem is one error naming where in
 * the document it is.
 */
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import { BadRequest } from "../Errors.js"
import { documentIssue, parseJsonText } from "../internal/documentIssue.js"
import type { ToolUseBlock } from "../Messages.js"
import { isRecord } from "../internal/json.js"

/** The text of a file, or of stdin for `-`. */
export const readSource = (source: string): Effect.Effect<string, BadRequest> =>
  source === "-"
    ? Effect.tryPromise({
      try: async () => {
        const chunks: Array<Buffer> = []
        for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
        return Buffer.concat(chunks).toString("utf8")
      },
      catch: (e) => new BadRequest({ reason: `cannot read stdin: ${(e as Error).message}` })
    })
    : Effect.try({
      try: () => fs.readFileSync(source, "utf8"),
      catch: (e) =>
        new BadRequest({
          reason: `cannot read ${source}: ${
            (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message
          }`
        })
    })

export const parseJson = (text: string, what: string): Effect.Effect<unknown, BadRequest> =>
  Effect.try({
    try: () => parseJsonText(text),
    catch: (e) => new BadRequest({ reason: `${what} is not valid JSON: ${(e as Error).message}` })
  })

const decodeWith =
  <A, I>(schema: Schema.Schema<A, I>, what: string, base: ReadonlyArray<PropertyKey> = []) =>
  (value: unknown): Effect.Effect<A, BadRequest> =>
    Either.match(Schema.decodeUnknownEither(schema, { errors: "first" })(value), {
      onLeft: (error) => Effect.fail(new BadRequest({ reason: `${what}: ${documentIssue(error, base)}` })),
      onRight: Effect.succeed
    })

/** A tool's input given on the command line: a JSON object. */
export const decodeToolInput = (value: unknown): Effect.Effect<Readonly<Record<string, unknown>>, BadRequest> =>
  Array.isArray(value) || value === null || typeof value !== "object"
    ? Effect.fail(new BadRequest({ reason: "the input must be a JSON object" }))
    : Effect.succeed(value as Readonly<Record<string, unknown>>)

const ToolUse = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.NonEmptyString,
  name: Schema.String,
  input: Schema.optional(Schema.Unknown)
})
const Typed = Schema.Struct({ type: Schema.String })
const Message = Schema.Struct({
  role: Schema.optional(Schema.Literal("assistant")),
  content: Schema.Union(Schema.String, Schema.Array(Schema.Unknown))
})

const WHAT = "the message"

/** The tool_use blocks of a list of content blocks (`base`: where the list is in the document). */
const toolUsesIn = (blocks: ReadonlyArray<unknown>, base: ReadonlyArray<PropertyKey>) =>
  Effect.forEach(blocks, (block, i) =>
    Effect.gen(function*() {
      const at = [...base, i]
      const { type } = yield* decodeWith(Typed, WHAT, at)(block)
      if (type !== "tool_use") return []
      const use = yield* decodeWith(ToolUse, WHAT, at)(block)
      return [{ type: "tool_use", id: use.id, name: use.name, input: use.input } satisfies ToolUseBlock]
    })).pipe(Effect.map((lists) => lists.flat()))

/**
 * The tool_use blocks of a Messages API response, an assistant message, or an array of blocks
 * (a single tool_use block is accepted too). Other content blocks are skipped.
 */
export const toolUsesOf = (value: unknown): Effect.Effect<ReadonlyArray<ToolUseBlock>, BadRequest> =>
  Effect.gen(function*() {
    const record = isRecord(value) ? value : undefined
    let uses: ReadonlyArray<ToolUseBlock>
    if (Array.isArray(value)) uses = yield* toolUsesIn(value, [])
    else if (record?.type === "tool_use") uses = yield* toolUsesIn([value], [])
    else if (record !== undefined && "content" in record) {
      const message = yield* decodeWith(Message, WHAT)(value)
      uses = typeof message.content === "string" ? [] : yield* toolUsesIn(message.content, ["content"])
    } else {
      return yield* new BadRequest({
        reason: "expected a Messages API response, an assistant message, or an array of tool_use blocks"
      })
    }
    if (uses.length === 0) return yield* new BadRequest({ reason: "the message has no tool_use blocks" })
    return uses
  })
