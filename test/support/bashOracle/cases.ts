/**
 * The named regression cases (test/fixtures/bash/oracle-cases.json): every failure the oracle
 * found, minimised, grouped by class, with what bash did that the analyzer did not say. The test
 * replays each every run.
 */
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { OracleContext } from "./contexts.js"

export const OracleRegression = Schema.Struct({
  name: Schema.String,
  /** The construct that makes bash and the analyzer part ways (a key of `classes`). */
  class: Schema.String,
  command: Schema.String,
  context: OracleContext,
  /** What bash did that the analyzer did not name, when the case was found. */
  problem: Schema.String
})
export type OracleRegression = typeof OracleRegression.Type

export const OracleRegressions = Schema.Struct({
  /** What each class of failure is. */
  classes: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  cases: Schema.Array(OracleRegression)
})

export const CASES_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/bash/oracle-cases.json"
)

export const loadRegressions = (file = CASES_FILE): ReadonlyArray<OracleRegression> =>
  Schema.decodeUnknownSync(Schema.parseJson(OracleRegressions))(fs.readFileSync(file, "utf8")).cases
