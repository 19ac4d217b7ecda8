/**
 * npm run conformance [-- --only a,b] [--area x,y] [--concurrency N] [--verbose]
 *
 * Replays scenarios through the built CLI (dist/toolgate.cjs: run `npm run build` first) and
 * compares them with their goldens, as `npm test` does, printing each verdict and the figures.
 * Exit 1 when a scenario differs.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { formatMismatches } from "./src/compare.js"
import { select } from "./src/Scenario.js"
import { loadSuite, runSuite, summarise } from "./src/suite.js"

const CLI = path.resolve(import.meta.dirname, "..", "dist", "toolgate.cjs")

const argValue = (name: string): string | undefined => {
  const at = process.argv.indexOf(name)
  return at < 0 ? undefined : process.argv[at + 1]
}
const list = (name: string) => (argValue(name) ?? "").split(",").filter((s) => s !== "")

const main = Effect.gen(function*() {
  if (!fs.existsSync(CLI)) return yield* Console.error("dist/toolgate.cjs is missing: run `npm run build` first")
  const suite = yield* loadSuite
  const scenarios = yield* select(suite.scenarios, { only: list("--only"), areas: list("--area") })
  const verbose = process.argv.includes("--verbose")
  const started = Date.now()
  const verdicts = yield* runSuite({ ...suite, scenarios }, {
    cli: CLI,
    concurrency: Number.parseInt(argValue("--concurrency") ?? "4", 10) || 4
  })
  for (const v of verdicts) {
    const head = `${v._tag.toUpperCase().padEnd(8)} ${v.scenario.area.padEnd(12)} ${v.scenario.name}`
    if (v._tag === "Fail" || (v._tag === "Open" && verbose)) {
      yield* Console.log(`${head}\n${formatMismatches(v.mismatches)}`)
    } else if (v._tag === "Open" || v._tag === "Closed") yield* Console.log(`${head} (${v.reason})`)
    else yield* Console.log(head)
  }
  yield* Console.log(`${summarise(verdicts)}\n  ran in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (verdicts.some((v) => v._tag === "Fail" || v._tag === "Closed")) process.exitCode = 1
}).pipe(
  Effect.catchAll((error) =>
    Console.error(`conformance: ${String(error)}`).pipe(Effect.andThen(() => void (process.exitCode = 1)))
  )
)

NodeRuntime.runMain(main)
