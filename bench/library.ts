/**
 * What a library user pays to load toolgate: `import("toolgate")` and `import("toolgate/promise")`
 * as whole processes against `import("effect")`, spawned the same way in the same rounds, CPU
 * time of each process (user + system, from start to `exit`) and its peak resident memory.
 * The package is imported by name, as a consumer's program does (the package resolves itself).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { pairedRounds, plainMetric, ratioMetric, type Benchmark } from "./harness.js"
import { tempDir } from "./runtime.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

const REPORTER = `"use strict"
process.once("exit", () => {
  const u = process.cpuUsage()
  require("node:fs").writeFileSync(process.env.TOOLGATE_BENCH_CPU_FILE, JSON.stringify({ cpu: (u.user + u.system) / 1000, rss: process.resourceUsage().maxRSS / 1024 }))
})
`

export const library: Benchmark = {
  name: "library",
  run: async () => {
    if (!fs.existsSync(path.join(root, "dist", "lib", "index.js"))) {
      throw new Error("bench: dist/lib is missing; run `npm run build` (npm run bench does)")
    }
    const work = fs.realpathSync(tempDir("toolgate-bench-library-"))
    const reporter = path.join(work, "cpu-reporter.cjs")
    fs.writeFileSync(reporter, REPORTER)
    const cpuFile = path.join(work, "cpu.json")
    const env: Record<string, string | undefined> = { ...process.env, TOOLGATE_BENCH_CPU_FILE: cpuFile }
    delete env.NODE_OPTIONS
    const importing = (specifier: string) => async () => {
      fs.rmSync(cpuFile, { force: true })
      const result = spawnSync(process.execPath, [
        "--require",
        reporter,
        "--input-type=module",
        "-e",
        `await import(${JSON.stringify(specifier)})`
      ], { cwd: root, env, encoding: "utf8" })
      if (result.status !== 0) {
        throw new Error(`bench: import("${specifier}") failed (${result.status}): ${result.stderr.slice(0, 500)}`)
      }
      return JSON.parse(fs.readFileSync(cpuFile, "utf8")) as { readonly cpu: number; readonly rss: number }
    }
    const samples = await pairedRounds(
      [
        ["effect", importing("effect")],
        ["toolgate", importing("toolgate")],
        ["promise", importing("toolgate/promise")]
      ],
      { warmup: 2, rounds: 12 }
    )
    const of = (k: keyof typeof samples, what: "cpu" | "rss") => samples[k].map((s) => s[what])
    const effect = { name: `import("effect")`, samples: of("effect", "cpu") }
    const effectRss = { name: `import("effect")`, samples: of("effect", "rss") }
    return [
      ratioMetric(
        {
          name: "library.import_vs_effect",
          unit: "ms cpu",
          target: "≤ 1.5×",
          meets: ({ ratio }) => ratio <= 1.5
        },
        of("toolgate", "cpu"),
        effect
      ),
      ratioMetric({ name: "library.import_promise_vs_effect", unit: "ms cpu" }, of("promise", "cpu"), effect),
      plainMetric({ name: "library.import_effect", unit: "ms cpu" }, of("effect", "cpu")),
      ratioMetric({ name: "library.rss.import_vs_effect", unit: "MiB peak rss" }, of("toolgate", "rss"), effectRss),
      ratioMetric(
        { name: "library.rss.import_promise_vs_effect", unit: "MiB peak rss" },
        of("promise", "rss"),
        effectRss
      )
    ]
  }
}
