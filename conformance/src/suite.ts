/**
 * The conformance suite as one program: every scenario with a golden is replayed through
 * toolgate's built CLI (bounded concurrency), compared with its golden, and given a verdict.
 */
import { Effect, Option } from "effect"
import type { DocumentError } from "./documents.js"
import { compare, type Mismatch } from "./compare.js"
import { loadExpectations, type Expectations } from "./Expectations.js"
import type { Golden, ToolDefinitions } from "./Golden.js"
import type { LayoutError } from "./layout.js"
import { loadDefinitions, loadGolden } from "./recorder.js"
import { observe, type Observation } from "./runScenario.js"
import { loadScenarios, type Scenario } from "./Scenario.js"

export type Verdict =
  /** matches its golden (with its deliberate differences applied) */
  | { readonly _tag: "Pass"; readonly scenario: Scenario; readonly observed: Observation; readonly deliberate: boolean }
  /** differs from its golden */
  | {
    readonly _tag: "Fail"
    readonly scenario: Scenario
    readonly observed: Observation
    readonly mismatches: ReadonlyArray<Mismatch>
  }
  /** a known difference (`open`) that still differs */
  | {
    readonly _tag: "Open"
    readonly scenario: Scenario
    readonly reason: string
    readonly mismatches: ReadonlyArray<Mismatch>
  }
  /** a known difference that now matches: its entry must go */
  | { readonly _tag: "Closed"; readonly scenario: Scenario; readonly reason: string }
  /** nothing recorded yet */
  | { readonly _tag: "NoGolden"; readonly scenario: Scenario }

export interface SuiteInput {
  readonly scenarios: ReadonlyArray<Scenario>
  readonly goldens: ReadonlyMap<string, Golden>
  readonly definitions: ToolDefinitions | undefined
  readonly expectations: Expectations
}

export const loadSuite: Effect.Effect<SuiteInput, DocumentError> = Effect.gen(function*() {
  const scenarios = yield* loadScenarios()
  const goldens = new Map<string, Golden>()
  for (const scenario of scenarios) {
    const golden = yield* loadGolden(scenario.name)
    if (Option.isSome(golden)) goldens.set(scenario.name, golden.value)
  }
  return {
    scenarios,
    goldens,
    definitions: Option.getOrUndefined(yield* loadDefinitions),
    expectations: yield* loadExpectations()
  }
})

export const verdictOf = (input: SuiteInput, scenario: Scenario, observed: Observation): Verdict => {
  const golden = input.goldens.get(scenario.name)
  if (golden === undefined) return { _tag: "NoGolden", scenario }
  const mismatches = compare({
    scenario,
    golden,
    definitions: input.definitions,
    expectations: input.expectations,
    observed
  })
  const expectation = input.expectations.cases[scenario.name]
  if (expectation?.kind === "open") {
    return mismatches.length === 0
      ? { _tag: "Closed", scenario, reason: expectation.reason }
      : { _tag: "Open", scenario, reason: expectation.reason, mismatches }
  }
  return mismatches.length === 0
    ? { _tag: "Pass", scenario, observed, deliberate: expectation?.kind === "deliberate" }
    : { _tag: "Fail", scenario, observed, mismatches }
}

export const runSuite = (
  input: SuiteInput,
  options: { readonly cli: string; readonly concurrency: number; readonly timeoutMs?: number }
): Effect.Effect<ReadonlyArray<Verdict>, LayoutError> =>
  Effect.forEach(
    input.scenarios,
    (scenario) =>
      input.goldens.has(scenario.name)
        ? observe(
          { kind: "tg", cli: options.cli },
          scenario,
          options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }
        ).pipe(
          Effect.map((observed) => verdictOf(input, scenario, observed))
        )
        : Effect.succeed<Verdict>({ _tag: "NoGolden", scenario }),
    { concurrency: options.concurrency }
  )

/** Per area: scenarios that agree with Claude Code (deliberate differences count as agreeing) of those with a golden. */
export const summarise = (verdicts: ReadonlyArray<Verdict>): string => {
  const areas = new Map<string, { pass: number; deliberate: number; compared: number; noGolden: number }>()
  for (const v of verdicts) {
    const a = areas.get(v.scenario.area) ?? { pass: 0, deliberate: 0, compared: 0, noGolden: 0 }
    if (v._tag === "NoGolden") a.noGolden++
    else {
      a.compared++
      if (v._tag === "Pass" || v._tag === "Closed") a.pass++
      if (v._tag === "Pass" && v.deliberate) a.deliberate++
    }
    areas.set(v.scenario.area, a)
  }
  const total = [...areas.values()].reduce(
    (t, a) => ({
      pass: t.pass + a.pass,
      deliberate: t.deliberate + a.deliberate,
      compared: t.compared + a.compared,
      noGolden: t.noGolden + a.noGolden
    }),
    { pass: 0, deliberate: 0, compared: 0, noGolden: 0 }
  )
  const lines = [...areas.entries()]
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(
      ([area, a]) =>
        `  ${area.padEnd(14)} ${a.pass}/${a.compared}${a.deliberate > 0 ? ` (${a.deliberate} deliberate)` : ""}${
          a.noGolden > 0 ? ` (${a.noGolden} without a golden)` : ""
        }`
    )
  const pct = (n: number) => (total.compared === 0 ? 0 : (100 * n) / total.compared).toFixed(1)
  return [
    `conformance: ${total.pass}/${total.compared} scenarios agree with Claude Code (${
      pct(total.pass)
    }%), ${total.deliberate} of them by a listed deliberate difference (${
      pct(total.pass - total.deliberate)
    }% identical); ${total.noGolden} without a golden`,
    ...lines
  ].join("\n")
}
