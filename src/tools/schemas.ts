/**
 * Schema pieces for tool inputs. Claude Code coerces numeric strings and "true"/"false" in some
 * fields before validation (numbers and booleans sent as strings); these do the same while the JSON
 * Schema the model sees still says `number` / `boolean`.
 */
import { ParseResult, Schema, SchemaAST } from "effect"
import { ZodIssue, zodIssue } from "../internal/formatIssues.js"

/** A number, or a string holding one (`"120000"` → 120000). */
export const NumberLike = Schema.transformOrFail(Schema.Unknown, Schema.Number, {
  strict: true,
  decode: (u) =>
    typeof u === "number"
      ? ParseResult.succeed(u)
      : typeof u === "string" && u.trim() !== "" && Number.isFinite(Number(u))
      ? ParseResult.succeed(Number(u))
      : ParseResult.fail(new ParseResult.Type(Schema.Number.ast, u)),
  encode: ParseResult.succeed
}).annotations({ jsonSchema: { type: "number" } })

/**
 * zod's `int()` with a lower bound, on a number or a string holding one: an integer within the
 * safe integers and at or above `minimum` (above `exclusiveMinimum`). Failures are zod's issues.
 */
export const SafeIntLike = (bound: { readonly minimum: number } | { readonly exclusiveMinimum: number }) => {
  const [lowest, inclusive] = "minimum" in bound ? [bound.minimum, true] : [bound.exclusiveMinimum, false]
  return NumberLike.pipe(
    Schema.filter((n) => Number.isInteger(n), {
      [ZodIssue]: () => zodIssue.invalidType("int", "number", { format: "safeint" })
    }),
    Schema.filter((n) => Number.isSafeInteger(n), { [ZodIssue]: () => zodIssue.unsafeInteger() }),
    Schema.filter((n) => (inclusive ? n >= lowest : n > lowest), {
      [ZodIssue]: () => zodIssue.tooSmall("number", lowest, inclusive)
    })
  ).annotations({
    jsonSchema: {
      type: "integer",
      ...("minimum" in bound ? { minimum: lowest } : { exclusiveMinimum: lowest }),
      maximum: Number.MAX_SAFE_INTEGER
    }
  })
}

/** A string of at least one character (zod's `min(1)`), with zod's message or the given one. */
export const nonEmptyString = (message?: string) =>
  Schema.String.pipe(
    Schema.filter((s) => s.length >= 1, {
      [ZodIssue]: () => ({ ...zodIssue.tooSmall("string", 1, true), ...(message === undefined ? {} : { message }) })
    })
  ).annotations({ jsonSchema: { type: "string", minLength: 1 } })

/** A boolean, or the strings "true" / "false". */
export const BooleanLike = Schema.transformOrFail(Schema.Unknown, Schema.Boolean, {
  strict: true,
  decode: (u) =>
    typeof u === "boolean"
      ? ParseResult.succeed(u)
      : u === "true"
      ? ParseResult.succeed(true)
      : u === "false"
      ? ParseResult.succeed(false)
      : ParseResult.fail(new ParseResult.Type(Schema.Boolean.ast, u)),
  encode: ParseResult.succeed
}).annotations({ jsonSchema: { type: "boolean" } })

/** An optional field that is absent rather than `undefined`. */
export const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * Adds a description; where the schema carries its own JSON Schema annotation (the coercing
 * types above), the description goes into it too, since that annotation is what the model sees.
 */
export const described = <S extends Schema.Schema.Any>(schema: S, description: string): S => {
  const own = SchemaAST.getJSONSchemaAnnotation(schema.ast)
  return (
    own._tag === "Some"
      ? schema.annotations({ description, jsonSchema: { ...(own.value as object), description } })
      : schema.annotations({ description })
  ) as S
}
