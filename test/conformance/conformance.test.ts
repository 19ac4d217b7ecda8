/**
 * The conformance suite: every scenario of conformance/scenarios is replayed through the built
 * CLI and compared with the golden recorded from Claude Code (conformance/goldens). Runs offline:
 * Claude Code is never needed here. A scenario without a golden shows as a todo.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatMismatches } from "../../conformance/src/compare.js"
import { loadSuite, runSuite, summarise, type Verdict } from "../../conformance/src/suite.js"

const CLI = path.resolve(__dirname, "..", "..", "dist", "toolgate.cjs")
const CONCURRENCY = Number.parseInt(process.env.CONFORMANCE_CONCURRENCY ?? "", 10) || 4

const suite = Effect.runSync(loadSuite)
const verdicts = new Map<string, Verdict>()
let elapsedMs = 0

beforeAll(async () => {
  if (!fs.existsSync(CLI)) throw new Error("dist/toolgate.cjs is missing: run `npm run build` (npm test does)")
  const started = Date.now()
  const all = await Effect.runPromise(runSuite(suite, { cli: CLI, concurrency: CONCURRENCY, timeoutMs: 60_000 }))
  elapsedMs = Date.now() - started
  for (const verdict of all) verdicts.set(verdict.scenario.name, verdict)
}, 240_000)

afterAll(() => {
  if (verdicts.size === 0) return
  const open = [...verdicts.values()].filter((v) => v._tag === "Open").map((v) => v.scenario.name)
  console.log(
    `${summarise([...verdicts.values()])}\n  ${open.length} known open difference(s)${open.length > 0 ? `: ${open.join(", ")}` : ""}\n  ran in ${(elapsedMs / 1000).toFixed(1)} s`
  )
})

describe("conformance with Claude Code", () => {
  it("has the shared tool definitions and the baseline golden", () => {
    expect(suite.definitions, "conformance/goldens/_tool-definitions.json is missing: npm run conformance:record").toBeDefined()
    expect(suite.goldens.has("baseline-read")).toBe(true)
  })

  for (const scenario of suite.scenarios) {
    const name = `${scenario.area}: ${scenario.name}`
    if (!suite.goldens.has(scenario.name)) {
      it.todo(`${name} (no golden: npm run conformance:record -- --only ${scenario.name})`)
      continue
    }
    it(name, () => {
      const verdict = verdicts.get(scenario.name)
      expect(verdict, "the scenario did not run").toBeDefined()
      switch (verdict!._tag) {
        case "Fail":
          expect.fail(`toolgate differs from Claude Code on ${scenario.name}:\n${formatMismatches(verdict!.mismatches)}`)
          break
        case "Closed":
          expect.fail(`${scenario.name} now matches Claude Code: remove its "open" entry from conformance/expectations.json`)
          break
        default:
          break
      }
    })
  }
})
