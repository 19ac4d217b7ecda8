/**
 * npm run conformance:record [-- --only a,b] [--area x,y] [--missing] [--concurrency N]
 *
 * Runs scenarios through the real Claude Code and writes their goldens. Needs Claude Code
 * installed (see the README's Compatibility section); without it, it says so and records nothing.
 * Never run by CI: `npm test` replays the committed goldens.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import * as fs from "node:fs"
import { goldenFile } from "./src/Golden.js"
import { findClaudeCode, record } from "./src/recorder.js"
import { loadScenarios, select } from "./src/Scenario.js"

interface Args {
  readonly only: ReadonlyArray<string>
  readonly areas: ReadonlyArray<string>
  readonly missing: boolean
  readonly concurrency: number
}

const USAGE = "usage: npm run conformance:record [-- --only a,b] [--area x,y] [--missing] [--concurrency N]"

const parseArgs = (argv: ReadonlyArray<string>): Option.Option<Args> => {
  let only: ReadonlyArray<string> = []
  let areas: ReadonlyArray<string> = []
  let missing = false
  let concurrency = 3
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const value = () => argv[++i] ?? ""
    if (arg === "--only") only = value().split(",").filter((s) => s !== "")
    else if (arg === "--area") areas = value().split(",").filter((s) => s !== "")
    else if (arg === "--missing") missing = true
    else if (arg === "--concurrency") concurrency = Number.parseInt(value(), 10)
    else return Option.none()
  }
  return Number.isInteger(concurrency) && concurrency >= 1
    ? Option.some({ only, areas, missing, concurrency })
    : Option.none()
}

const main = Effect.gen(function*() {
  const args = parseArgs(process.argv.slice(2))
  if (Option.isNone(args)) {
    yield* Console.error(USAGE)
    process.exitCode = 2
    return
  }
  const found = yield* Effect.either(findClaudeCode)
  if (found._tag === "Left") {
    yield* Console.error(`conformance:record: skipped. ${found.left.message}`)
    return
  }
  const all = yield* loadScenarios()
  const chosen = (yield* select(all, { only: args.value.only, areas: args.value.areas })).filter(
    (s) => !args.value.missing || !fs.existsSync(goldenFile(s.name))
  )
  yield* Console.error(`recording ${chosen.length} scenario(s) with ${found.right}`)
  const started = Date.now()
  const recorded = yield* record(found.right, chosen, all, { concurrency: args.value.concurrency })
  const bad = recorded.filter((r) => r._tag === "Unusable")
  yield* Console.error(
    `${recorded.length - bad.length} golden(s) written, ${bad.length} unusable, ${
      ((Date.now() - started) / 1000).toFixed(0)
    } s`
  )
  if (bad.length > 0) process.exitCode = 1
}).pipe(
  Effect.catchAll((error) =>
    Console.error(`conformance:record: ${String(error)}`).pipe(Effect.andThen(() => void (process.exitCode = 1)))
  )
)

NodeRuntime.runMain(main)
