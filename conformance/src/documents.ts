/**
 * Reading and writing the suite's JSON documents (scenarios, goldens, expectations) through their
 * Schemas. Every problem is one kind of error naming the file and the path inside it.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

export class DocumentError extends Schema.TaggedError<DocumentError>()("DocumentError", {
  file: Schema.String,
  path: Schema.String,
  message: Schema.String
}) {
  override toString() {
    return `${this.file}${this.path === "" ? "" : ` at ${this.path}`}: ${this.message}`
  }
}

const pathText = (keys: ReadonlyArray<PropertyKey>): string =>
  keys.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
    ""
  )

/** Decodes `value` (already parsed JSON) as `schema`; unknown keys are errors. */
export const decodeValue = <A, I>(
  file: string,
  schema: Schema.Schema<A, I>,
  value: unknown
): Either.Either<A, DocumentError> =>
  Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "all" })(value).pipe(
    Either.mapLeft((error) => {
      const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
      return new DocumentError({
        file,
        path: pathText(first?.path ?? []),
        message: first?.message ?? "invalid document"
      })
    })
  )

export const decodeDocument = <A, I>(file: string, schema: Schema.Schema<A, I>): Effect.Effect<A, DocumentError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(file, "utf8"),
      catch: (e) => new DocumentError({ file, path: "", message: `cannot read: ${(e as Error).message}` })
    })
    const parsed = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new DocumentError({ file, path: "", message: `invalid JSON: ${(e as Error).message}` })
    })
    return yield* decodeValue(file, schema, parsed)
  })

/** Encodes and writes a document (two-space JSON and a final newline), replacing it atomically. */
export const writeDocument = <A, I>(
  file: string,
  schema: Schema.Schema<A, I>,
  value: A
): Effect.Effect<void, DocumentError> =>
  Effect.try({
    try: () => {
      const encoded = Schema.encodeSync(schema)(value)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temp, `${JSON.stringify(encoded, null, 2)}\n`)
      fs.renameSync(temp, file)
    },
    catch: (e) => new DocumentError({ file, path: "", message: `cannot write: ${(e as Error).message}` })
  })
