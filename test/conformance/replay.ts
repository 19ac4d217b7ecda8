/**
 * The conformance suite: every scenario of conformance/scenarios is replayed through toolgate's
 * `run` command and compared with the golden recorded from Claude Code (conformance/goldens).
 * Runs offline: Claude Code is never needed here. A scenario without a golden shows as a todo.
 *
 * The first scenario of the areas where the process matters (shells and their process groups,
 * hook processes, MCP server processes) and the baseline read run the built CLI
 * (`dist/toolgate.cjs`) as a process of its own, side by side; the others run the same command
 * tree in this process, one after another (test/support/cliInProcess.ts), which costs a tenth of
 * the CPU. `npm run conformance` replays every scenario through the built CLI. The areas are split
 * over a few test files so that the workers share the replays.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatMismatches } from "../../conformance/src/compare.js"
import { observe, runProcess, type Launcher, type Observation } from "../../conformance/src/runScenario.js"
import { loadSuite, summarise, verdictOf, type Verdict } from "../../conformance/src/suite.js"
import type { Scenario } from "../../conformance/src/Scenario.js"
import { cliInProcess } from "../support/cliInProcess.js"

const CLI = path.resolve(__dirname, "..", "..", "dist", "toolgate.cjs")
const SCENARIO_TIMEOUT_MS = 60_000

/** Which test file replays which areas; every area of the suite belongs to exactly one. */
export const AREA_GROUPS = {
  tools: ["bash", "edit", "glob", "grep", "read", "webfetch", "write"],
  policy: ["hooks", "permissions", "mcp", "parallel", "sandbox"],
  model: ["models", "validation"]
} as const satisfies Record<string, ReadonlyArray<string>>

export const suite = Effect.runSync(loadSuite)

/** The command is `node dist/toolgate.cjs run …`: in process, the arguments after `toolgate`. */
const inProcess: Launcher = ({ args }, options) => cliInProcess(args.slice(1), options)

/** The areas whose first scenario runs the built CLI as a process. */
const BUILT_CLI_AREAS: ReadonlyArray<string> = ["bash", "hooks", "mcp", "read"]

/**
 * Scenarios about the processes a hook leaves behind: the executable kills them with the hook's
 * process group, which the command run in this process does not show (they survive there).
 */
const OWN_PROCESS: ReadonlyArray<string> = ["hooks-process-child-after-exit"]

export const throughBuiltCli = new Set([
  ...BUILT_CLI_AREAS.map((area) => suite.scenarios.find((s) => s.area === area && suite.goldens.has(s.name))?.name)
    .filter((name) => name !== undefined),
  ...OWN_PROCESS.filter((name) => suite.goldens.has(name))
])

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
      `conformance (${areas.join(", ")}): ${summarise(verdicts)}\n  ${open.length} known open difference(s)${
        open.length > 0 ? `: ${open.join(", ")}` : ""
      }\n  ran in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
  })

  const check = (scenario: Scenario, observed: Observation) => {
    const verdict = verdictOf(suite, scenario, observed)
    verdicts.push(verdict)
    if (verdict._tag === "Fail") {
      expect.fail(`toolgate differs from Claude Code on ${scenario.name}:\n${formatMismatches(verdict.mismatches)}`)
    }
    if (verdict._tag === "Closed") {
      expect.fail(
        `${scenario.name} now matches Claude Code: remove its "open" entry from conformance/expectations.json`
      )
    }
  }

  const scenarios = suite.scenarios.filter((s) => areas.includes(s.area))
  const replay = (scenario: Scenario, launch: Launcher) => async () => {
    const observed = await Effect.runPromise(
      observe({ kind: "tg", cli: CLI }, scenario, { timeoutMs: SCENARIO_TIMEOUT_MS, launch })
    )
    check(scenario, observed)
  }

  describe(`conformance with Claude Code: ${areas.join(", ")}`, () => {
    const built = scenarios.filter((s) => throughBuiltCli.has(s.name))
    if (built.length > 0) {
      describe("through the built CLI", () => {
        for (const scenario of built) {
          it.concurrent(
            `${scenario.area}: ${scenario.name}`,
            replay(scenario, runProcess),
            SCENARIO_TIMEOUT_MS + 30_000
          )
        }
      })
    }
    describe("in process", () => {
      for (const scenario of scenarios.filter((s) => !throughBuiltCli.has(s.name))) {
        const name = `${scenario.area}: ${scenario.name}`
        if (!suite.goldens.has(scenario.name)) {
          verdicts.push({ _tag: "NoGolden", scenario })
          it.todo(`${name} (no golden: npm run conformance:record -- --only ${scenario.name})`)
          continue
        }
        it(name, replay(scenario, inProcess), SCENARIO_TIMEOUT_MS + 30_000)
      }
    })
  })
}
