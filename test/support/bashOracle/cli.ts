/**
 * `npm run fuzz:shell -- --seed N --count M`: a long run of the bash oracle. Prints each failure
 * (minimised, one per distinct signature) as a reproducer on stdout — command, context, what bash
 * did — and the rates on stderr. `--out FILE` writes them in the format of
 * test/fixtures/bash/oracle-cases.json; `--replay` checks that file's cases instead.
 */
import { Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import * as fs from "node:fs"
import { loadRegressions, type OracleRegression } from "./cases.js"
import { showContext } from "./contexts.js"
import { generateCorpus, type CorpusCase } from "./corpus.js"
import { minimise, signatures } from "./minimise.js"
import { makeOracle, sandboxUnavailable, type Checked, type Oracle } from "./oracle.js"

const seed = Options.integer("seed").pipe(
  Options.withDescription("the generator's seed"),
  Options.withDefault(20261202)
)
const count = Options.integer("count").pipe(
  Options.withDescription("how many commands to generate"),
  Options.withDefault(10_000)
)
const jobs = Options.integer("jobs").pipe(Options.withDescription("sandboxes run side by side"), Options.withDefault(2))
const batch = Options.integer("batch").pipe(
  Options.withDescription("commands decided and run per batch"),
  Options.withDefault(2_000)
)
const out = Options.file("out").pipe(
  Options.withDescription("write the failures found as oracle regression cases"),
  Options.optional
)
const replay = Options.boolean("replay").pipe(
  Options.withDescription("check the named regression cases instead of generating")
)
const noMinimise = Options.boolean("no-minimise").pipe(Options.withDescription("report failures as generated"))

const describeFailure = (checked: Checked, root: string): string => {
  const lines = [
    `command: ${JSON.stringify(checked.case.command)}`,
    ...checked.case.command.split("\n").map((l, i) => `${i === 0 ? "   as text: " : "            "}${l}`),
    `context: ${showContext(checked.case.context)}`,
    ...[...new Set(checked.problems.map((p) => p.detail.replaceAll(root, "<scratch>")))].slice(0, 6).map((d) =>
      `  - ${d}`
    )
  ]
  return lines.join("\n")
}

const problemText = (checked: Checked, root: string) =>
  [...new Set(checked.problems.map((p) => p.detail.replaceAll(root, "<scratch>")))].join("; ")

const runFuzz = (oracle: Oracle, cases: ReadonlyArray<CorpusCase>, batchSize: number, shrink: boolean) =>
  Effect.gen(function*() {
    const started = Date.now()
    let allowed = 0
    let failed = 0
    const bySignature = new Map<
      string,
      { readonly found: Checked; readonly tags: ReadonlyArray<string>; count: number }
    >()
    for (let from = 0; from < cases.length; from += batchSize) {
      const slice = cases.slice(from, from + batchSize)
      const results = yield* Effect.promise(() => oracle.check(slice))
      results.forEach((r, i) => {
        if (r.behavior === "allow") allowed++
        if (r.problems.length === 0) return
        failed++
        const key = `${slice[i]!.tags[0]} | ${signatures(r).join(", ")}`
        const known = bySignature.get(key)
        if (known === undefined) bySignature.set(key, { found: r, tags: slice[i]!.tags, count: 1 })
        else known.count++
      })
      yield* Console.error(
        `${
          Math.min(from + batchSize, cases.length)
        }/${cases.length} checked: ${allowed} allowed, ${failed} failed, ${bySignature.size} distinct (${
          ((Date.now() - started) / 1000).toFixed(1)
        } s)`
      )
    }
    const found: Array<{ readonly checked: Checked; readonly tags: ReadonlyArray<string>; readonly count: number }> = []
    for (const { found: first, tags, count } of bySignature.values()) {
      const small = shrink
        ? yield* Effect.promise(() => minimise(first, async (c) => (await oracle.check([c]))[0]!))
        : first
      found.push({ checked: small, tags, count })
    }
    return { allowed, failed, found, seconds: (Date.now() - started) / 1000 }
  })

const fuzz = Command.make("fuzz-shell", { seed, count, jobs, batch, out, replay, noMinimise }, (o) =>
  Effect.scoped(
    Effect.gen(function*() {
      const problem = sandboxUnavailable()
      if (problem !== undefined) return yield* Effect.fail(new Error(problem))
      const oracle = yield* makeOracle({ jobs: o.jobs, timeoutMs: 10_000 })
      const root = oracle.layout.root
      if (o.replay) {
        const regressions = loadRegressions()
        const results = yield* Effect.promise(() => oracle.check(regressions))
        let still = 0
        results.forEach((r, i) => {
          if (r.problems.length === 0) return
          still++
          console.log(`${regressions[i]!.name} (${regressions[i]!.class})\n${describeFailure(r, root)}\n`)
        })
        yield* Console.error(`${regressions.length} regression cases: ${still} still fail`)
        return
      }
      const cases = generateCorpus(o.seed, o.count)
      yield* Console.error(`seed ${o.seed}: ${cases.length} commands generated`)
      const report = yield* runFuzz(oracle, cases, o.batch, !o.noMinimise)
      report.found.forEach(({ checked, tags, count }, i) => {
        console.log(`#${i + 1} ${tags.join(" ")} (${count} like it)\n${describeFailure(checked, root)}\n`)
      })
      yield* Console.error(
        `generated ${cases.length}, allowed ${report.allowed}, run in bash ${report.allowed}, failed ${report.failed}, distinct ${report.found.length}, ${
          report.seconds.toFixed(1)
        } s`
      )
      if (Option.isSome(o.out)) {
        const regressions: Array<OracleRegression> = report.found.map(({ checked, tags }, i) => ({
          name: `seed-${o.seed}-${i + 1}`,
          class: tags[0] ?? "unknown",
          command: checked.case.command,
          context: checked.case.context,
          problem: problemText(checked, root)
        }))
        fs.writeFileSync(o.out.value, `${JSON.stringify({ cases: regressions }, null, 2)}\n`)
      }
    })
  ))

const cli = Command.run(fuzz, { name: "fuzz-shell", version: "1" })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain)
