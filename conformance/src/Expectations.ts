/**
 * Where toolgate is expected to differ from a golden, always with the reason:
 * - `deliberate`: toolgate differs on purpose (safer, or the seeds demand it; each one is listed
 *   in conformance/DIFFERENCES.md). The case states what toolgate sends instead: results by
 *   tool_use id (a list when the deliberate behaviour makes the outcome depend on timing: any one
 *   of them), files by path. Everything else must still match the golden.
 * - `timing`: toolgate behaves as Claude Code, but the outcome depends on timing (which of two
 *   parallel calls finishes first decides where hook reminders go): the golden's results, or any
 *   of the ones listed. Counts as agreeing, not as a deliberate difference.
 * - `open`: a known difference nobody has closed yet. The case is reported, not failed; once
 *   toolgate matches the golden, the entry must go (the suite fails until it does).
 * `tools.only_toolgate` names tools toolgate offers that Claude Code does not.
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { decodeDocument, type DocumentError } from "./documents.js"
import { FileEntry } from "./layout.js"

export const ResultOverride = Schema.Struct({ is_error: Schema.Boolean, text: Schema.String })
export type ResultOverride = typeof ResultOverride.Type

/** One expected result, or the results that may come out depending on timing. */
export const ExpectedResult = Schema.Union(ResultOverride, Schema.NonEmptyArray(ResultOverride))
export type ExpectedResult = typeof ExpectedResult.Type

export const CaseExpectation = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("deliberate"),
    reason: Schema.String,
    results: Schema.optionalWith(Schema.Record({ key: Schema.String, value: ExpectedResult }), { exact: true }),
    files: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.NullOr(FileEntry) }), { exact: true })
  }),
  Schema.Struct({
    kind: Schema.Literal("timing"),
    reason: Schema.String,
    results: Schema.Record({ key: Schema.String, value: ExpectedResult })
  }),
  Schema.Struct({
    kind: Schema.Literal("open"),
    reason: Schema.String
  })
)
export type CaseExpectation = typeof CaseExpectation.Type

export const Expectations = Schema.Struct({
  tools: Schema.Struct({
    only_toolgate: Schema.Record({ key: Schema.String, value: Schema.String })
  }),
  cases: Schema.Record({ key: Schema.String, value: CaseExpectation })
})
export type Expectations = typeof Expectations.Type

export const EXPECTATIONS_FILE = path.resolve(import.meta.dirname, "..", "expectations.json")

export const loadExpectations = (file: string = EXPECTATIONS_FILE): Effect.Effect<Expectations, DocumentError> =>
  fs.existsSync(file) ? decodeDocument(file, Expectations) : Effect.succeed({ tools: { only_toolgate: {} }, cases: {} })
