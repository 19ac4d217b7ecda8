/**
 * Compares what toolgate sent the model on a scenario with Claude Code's golden: the offered
 * tools (names; input schemas without descriptions), every tool_result (is_error and text,
 * paired by tool_use id), the text beside them where the scenario asks, and the files left.
 * Results must come back in tool_use order (toolgate's rule; Claude Code sends them in
 * completion order, a difference listed in DIFFERENCES.md). Deliberate differences replace parts
 * of the golden explicitly (Expectations); nothing is compared loosely.
 */
import type { CaseExpectation, ExpectedResult, Expectations, ResultOverride } from "./Expectations.js"
import type { Golden, ResultEntry, ToolDefinitions } from "./Golden.js"
import type { FileEntry } from "./layout.js"
import type { Observation } from "./runScenario.js"
import { resultSteps, scriptOf, type Scenario } from "./Scenario.js"

export interface Mismatch {
  readonly what: string
  readonly expected?: string
  readonly actual?: string
}

const isRecord = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

/** A schema without its prose: `description` annotations go, a property named "description" stays. */
export const withoutDescriptions = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions)
  if (!isRecord(schema)) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "description" && typeof value === "string") || key === "$schema") continue
    out[key] = key === "properties" && isRecord(value)
      ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, withoutDescriptions(property)]))
      : withoutDescriptions(value)
  }
  return out
}

/** JSON with object keys sorted, so key order never counts. */
export const canonical = (value: unknown): string =>
  JSON.stringify(
    value,
    (_key, v: unknown) => isRecord(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v
  )

const show = (
  entry: ResultEntry | undefined
) => (entry === undefined ? "(none)" : `is_error=${entry.is_error}\n${entry.text}`)

const fileText = (
  entry: FileEntry | null | undefined
) => (entry === undefined || entry === null ? "(absent)" : JSON.stringify(entry))

export interface CompareInput {
  readonly scenario: Scenario
  readonly golden: Golden
  readonly definitions: ToolDefinitions | undefined
  readonly expectations: Expectations
  readonly observed: Observation
}

/** Expected tool schemas by name: the shared definitions, then the golden's own. */
const expectedSchemas = (golden: Golden, definitions: ToolDefinitions | undefined): Map<string, unknown> => {
  const schemas = new Map<string, unknown>()
  for (const tool of definitions?.tools ?? []) schemas.set(tool.name, tool.input_schema)
  for (const [name, schema] of Object.entries(golden.tool_schemas)) schemas.set(name, schema)
  return schemas
}

const compareTools = (input: CompareInput): ReadonlyArray<Mismatch> => {
  const { golden, observed, expectations } = input
  const out: Array<Mismatch> = []
  const extra = expectations.tools.only_toolgate
  const expected = [...golden.tools].sort()
  const actual = observed.tools.map((t) => t.name).filter((n) => !(n in extra && !golden.tools.includes(n))).sort()
  if (expected.join(",") !== actual.join(",")) {
    out.push({ what: "offered tools", expected: expected.join(", "), actual: actual.join(", ") })
  }
  const schemas = expectedSchemas(golden, input.definitions)
  for (const tool of observed.tools) {
    if (!golden.tools.includes(tool.name) || !schemas.has(tool.name)) continue
    const want = canonical(withoutDescriptions(schemas.get(tool.name)))
    const got = canonical(withoutDescriptions(tool.input_schema))
    if (want !== got) out.push({ what: `input schema of ${tool.name}`, expected: want, actual: got })
  }
  return out
}

const isResultList = (r: ExpectedResult): r is readonly [ResultOverride, ...Array<ResultOverride>] => Array.isArray(r)

/** What may come back for a call: the golden's result, or the deliberate difference's (one of them), or for a timing case either. */
const expectedResults = (golden: ResultEntry, override: CaseExpectation | undefined): ReadonlyArray<ResultEntry> => {
  const replaced = override?.kind === "deliberate" || override?.kind === "timing"
    ? override.results?.[golden.tool_use_id]
    : undefined
  if (replaced === undefined) return [golden]
  const options: ReadonlyArray<ResultOverride> = isResultList(replaced) ? replaced : [replaced]
  const listed = options.map((r) => ({ tool_use_id: golden.tool_use_id, ...r }))
  return override?.kind === "timing" ? [golden, ...listed] : listed
}

const compareSteps = (input: CompareInput, override: CaseExpectation | undefined): ReadonlyArray<Mismatch> => {
  const { scenario, golden, observed } = input
  const out: Array<Mismatch> = []
  const script = scriptOf(scenario)
  for (let k = 0; k < resultSteps(scenario); k++) {
    const want = golden.steps[k]
    const got = observed.steps[k]
    if (want === undefined || got === undefined) break
    const label = resultSteps(scenario) > 1 ? `step ${k + 1}: ` : ""
    const gotById = new Map(got.results.map((r) => [r.tool_use_id, r]))
    for (const entry of want.results) {
      const expected = expectedResults(entry, override)
      const actual = gotById.get(entry.tool_use_id)
      if (actual === undefined || !expected.some((e) => actual.is_error === e.is_error && actual.text === e.text)) {
        out.push({
          what: `${label}result ${entry.tool_use_id}`,
          expected: expected.map(show).join("\n  or:       "),
          actual: show(actual)
        })
      }
    }
    for (const extra of got.results.filter((r) => !want.results.some((w) => w.tool_use_id === r.tool_use_id))) {
      out.push({
        what: `${label}result ${extra.tool_use_id} that Claude Code did not send`,
        expected: "(none)",
        actual: show(extra)
      })
    }
    const callOrder = (script[k]?.blocks ?? []).flatMap((b) => (b.type === "tool_use" ? [b.id] : []))
    const order = got.results.map((r) => r.tool_use_id)
    const expectedOrder = callOrder.filter((id, i) => callOrder.indexOf(id) === i && order.includes(id))
    if (order.join(",") !== expectedOrder.join(",")) {
      out.push({
        what: `${label}result order (tool_use order)`,
        expected: expectedOrder.join(", "),
        actual: order.join(", ")
      })
    }
    if (scenario.compare_extras === true && want.extras.join("\n\n") !== got.extras.join("\n\n")) {
      out.push({
        what: `${label}text beside the results`,
        expected: want.extras.join("\n\n"),
        actual: got.extras.join("\n\n")
      })
    }
  }
  return out
}

const compareFiles = (input: CompareInput, override: CaseExpectation | undefined): ReadonlyArray<Mismatch> => {
  const expected: Record<string, FileEntry | null> = { ...input.golden.files }
  if (override?.kind === "deliberate") Object.assign(expected, override.files ?? {})
  const actual = input.observed.files
  const paths = new Set([...Object.keys(expected), ...Object.keys(actual)])
  const out: Array<Mismatch> = []
  for (const file of [...paths].sort()) {
    const want = expected[file] ?? null
    const got = actual[file] ?? null
    if (canonical(want) !== canonical(got)) {
      out.push({ what: `file ${file}`, expected: fileText(want), actual: fileText(got) })
    }
  }
  return out
}

/** Every way toolgate's run differs from what is expected of it (empty: it conforms). */
export const compare = (input: CompareInput): ReadonlyArray<Mismatch> => {
  const { golden, observed } = input
  const override = input.expectations.cases[input.scenario.name]
  if (golden.outcome === "no_request" || observed.noRequest) {
    const same = golden.outcome === "no_request" && observed.noRequest
    return [
      ...(same
        ? []
        : [
          {
            what: "outcome",
            expected: golden.outcome === "no_request" ? "the model never asked" : "the model asked",
            actual: observed.noRequest
              ? `the model never asked (exit ${observed.exitCode})\n${observed.stderr.slice(-1500)}`
              : "the model asked"
          }
        ]),
      ...compareFiles(input, override)
    ]
  }
  if (observed.problem !== undefined) {
    return [
      {
        what: "toolgate's session",
        expected: golden.outcome === "stopped" ? "stopped without sending results" : "results sent back",
        actual: `${observed.problem} (exit ${observed.exitCode}${observed.timedOut ? ", timed out" : ""})\n${
          observed.stderr.slice(-1500)
        }`
      }
    ]
  }
  const out: Array<Mismatch> = [...compareTools(input)]
  if ((golden.outcome === "stopped") !== observed.stopped) {
    out.push({
      what: "outcome",
      expected: golden.outcome === "stopped" ? "stopped without sending results" : "results sent back",
      actual: observed.stopped ? "stopped without sending results" : "results sent back"
    })
  } else if (golden.outcome === "results") out.push(...compareSteps(input, override))
  out.push(...compareFiles(input, override))
  return out
}

export const formatMismatches = (mismatches: ReadonlyArray<Mismatch>): string =>
  mismatches
    .map((m) =>
      [
        `- ${m.what}`,
        m.expected === undefined ? "" : `  expected: ${m.expected}`,
        m.actual === undefined ? "" : `  actual:   ${m.actual}`
      ].filter((l) => l !== "").join("\n")
    )
    .join("\n")
