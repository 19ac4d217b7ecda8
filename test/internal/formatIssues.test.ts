/**
 * Validation texts as Claude Code 2.1.332 writes them (zod 4 issues; the expected texts below are
 * what Claude Code sent in the conformance goldens or what zod 4 prints for the same check).
 */
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { displayName, rawIssueList, sentences, validationText, zodIssues } from "../../src/internal/formatIssues.js"
import { nonEmptyString, optional, SafeIntLike } from "../../src/tools/schemas.js"

const textFor = (name: string, schema: Schema.Schema<any, any, never>, input: unknown): string => {
  const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "all" })(input)
  if (Either.isRight(decoded)) throw new Error("expected a failure")
  return validationText(name, zodIssues(decoded.left.issue))
}

const Grep = Schema.Struct({
  pattern: Schema.String,
  output_mode: optional(Schema.Literal("content", "files_with_matches", "count"))
})
const Read = Schema.Struct({
  file_path: Schema.String,
  offset: optional(SafeIntLike({ minimum: 0 })),
  limit: optional(SafeIntLike({ exclusiveMinimum: 0 }))
})

describe("validation texts", () => {
  it("only non-type issues: zod's own list, pretty-printed", () => {
    expect(textFor("Grep", Grep, { pattern: "x", output_mode: "lines" })).toBe(`[
  {
    "code": "invalid_value",
    "values": [
      "content",
      "files_with_matches",
      "count"
    ],
    "path": [
      "output_mode"
    ],
    "message": "Invalid option: expected one of \\"content\\"|\\"files_with_matches\\"|\\"count\\""
  }
]`)
    expect(JSON.parse(textFor("Read", Read, { file_path: "a", limit: 1e17 }))).toEqual([
      {
        code: "too_big",
        maximum: Number.MAX_SAFE_INTEGER,
        note: "Integers must be within the safe integer range.",
        origin: "int",
        inclusive: true,
        path: ["limit"],
        message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`
      }
    ])
    expect(JSON.parse(textFor("Read", Read, { file_path: "a", offset: -1 }))[0]).toEqual({
      origin: "number",
      code: "too_small",
      minimum: 0,
      inclusive: true,
      path: ["offset"],
      message: "Too small: expected number to be >=0"
    })
    const Todo = Schema.Struct({ content: nonEmptyString("Content cannot be empty") })
    expect(JSON.parse(textFor("TodoWrite", Todo, { content: "" }))[0].message).toBe("Content cannot be empty")
  })

  it("a missing enum is zod's invalid option, not a missing parameter", () => {
    const Status = Schema.Struct({ status: Schema.Literal("pending", "done") })
    expect(JSON.parse(textFor("T", Status, {}))[0]).toEqual({
      code: "invalid_value",
      values: ["pending", "done"],
      path: ["status"],
      message: "Invalid option: expected one of \"pending\"|\"done\""
    })
  })

  it("sentences: missing parameters first, then unexpected ones, then type mismatches, then the rest", () => {
    expect(textFor("Read", Read, { path: "x", limit: "abc" })).toBe(
      "Read failed due to the following issues:\nThe required parameter `file_path` is missing\nAn unexpected parameter `path` was provided\nThe parameter `limit` type is expected as `number` but provided as `string`"
    )
    expect(textFor("Grep", Grep, { output_mode: "lines" })).toBe(
      "Grep failed due to the following issues:\nThe required parameter `pattern` is missing\nThe parameter `output_mode` is invalid: Invalid option: expected one of \"content\"|\"files_with_matches\"|\"count\""
    )
    expect(textFor("Read", Read, { file_path: "a", offset: 1.5 })).toBe(
      "Read failed due to the following issue:\nThe parameter `offset` type is expected as `int` but provided as `number`"
    )
  })

  it("lists at most 20 parameters (21 when that is all), then counts the rest", () => {
    const fields = (n: number) =>
      Schema.Struct(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, Schema.String])))
    const lines = (n: number) => {
      const decoded = Schema.decodeUnknownEither(fields(n), { errors: "all" })({})
      return Either.isLeft(decoded) ? sentences(zodIssues(decoded.left.issue)) : []
    }
    expect(lines(21)).toHaveLength(21)
    expect(lines(22)).toHaveLength(21)
    expect(lines(22)[20]).toBe("(2 more parameters not listed)")
  })

  it("odd keys are escaped and long ones shortened; a list naming them is written as sentences", () => {
    expect(displayName("a`b<c>")).toBe("a'b\u2039c\u203A")
    expect(displayName(" x")).toBe("\\u{20}x")
    const long = "k".repeat(100)
    expect(displayName(long)).toBe(`${"k".repeat(40)}\u2026 [+36 chars] \u2026${"k".repeat(24)}`)
    const Odd = Schema.Struct({ [long]: Schema.Literal("a", "b") })
    const decoded = Schema.decodeUnknownEither(Odd, { errors: "all" })({ [long]: "c" })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    expect(rawIssueList(zodIssues(decoded.left.issue))).toBeUndefined()
    expect(textFor("Odd", Odd, { [long]: "c" })).toBe(
      `Odd failed due to the following issue:\nThe parameter \`${
        displayName(long)
      }\` is invalid: Invalid option: expected one of "a"|"b"`
    )
  })
})
