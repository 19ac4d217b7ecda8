/**
 * The conformance suite: every scenario of conformance/scenarios is replayed through the built
 * CLI and compared with the golden recorded from Claude Code (conformance/goldens). Runs offline:
 * Claude Code is never needed here. The areas are split over a few test files so that both
 * workers share the replays; within a file scenarios run concurrently (vitest's maxConcurrency
 * bounds them). A scenario without a golden shows as a todo.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatMismatches } from "../../conformance/src/compare.js"
import { observe } from "../../conformance/src/runScenario.js"
import { loadSuite, summarise, verdictOf, type Verdict } from "../../conformance/src/suite.js"

const CLI = path.resolve(__dirname, "..", "..", "dist", "toolgate.cjs")
const SCENARIO_TIMEOUT_MS = 60_000

/** Which test file replays which areas; every area of the suite belongs to exactly one. */
export const AREA_GROUPS = {
  tools: ["bash", "edit", "glob", "grep", "read", "write"],
  policy: ["hooks", "permissions", "mcp", "parallel"],
  model: ["models", "validation"]
} as const satisfies Record<string, ReadonlyArray<string>>

export const suite = Effect.runSync(loadSuite)

export const replayAreas = (group: keyof typeof AREA_GROUPS) => {
  const areas: ReadonlyArray<string> = AREA_GROUPS[group]
  const verdicts: Array<Verdict> = []
  const started = Date.now()

  beforeAll(() => {
    if (!fs.existsSync(CLI)) throw new Error("dist/toolgate.cjs is missing: run `npm run build` (npm test does)")
  })

  afterAll(() => {
    if (verdicts.length === 0) return
    const open = verdicts.filter((v) => v._tag === "Open").map((v) => v.scenario.name)
    console.log(
      `conformance (${areas.join(", ")}): ${summarise(verdicts)}\n  ${open.length} known open difference(s)${open.length > 0 ? `: ${open.join(", ")}` : ""}\n  ran in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
  })

  describe(`conformance with Claude Code: ${areas.join(", ")}`, () => {
    for (const scenario of suite.scenarios.filter((s) => areas.includes(s.area))) {
      const name = `${scenario.area}: ${scenario.name}`
      if (!suite.goldens.has(scenario.name)) {
        verdicts.push({ _tag: "NoGolden", scenario })
        it.todo(`${name} (no golden: npm run conformance:record -- --only ${scenario.name})`)
        continue
      }
      it.concurrent(
        name,
        async () => {
          const observed = await Effect.runPromise(observe({ kind: "tg", cli: CLI }, scenario, { timeoutMs: SCENARIO_TIMEOUT_MS }))
          const verdict = verdictOf(suite, scenario, observed)
          verdicts.push(verdict)
          if (verdict._tag === "Fail") expect.fail(`toolgate differs from Claude Code on ${scenario.name}:\n${formatMismatches(verdict.mismatches)}`)
          if (verdict._tag === "Closed") expect.fail(`${scenario.name} now matches Claude Code: remove its "open" entry from conformance/expectations.json`)
        },
        SCENARIO_TIMEOUT_MS + 30_000
      )
    }
  })
}
