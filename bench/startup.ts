/**
 * 4. CLI start-up: whole processes of the built CLI (`dist/toolgate.cjs`, what `npm run build`
 * makes and `bin` points at) against `node -e 0`, spawned the same way in the same rounds.
 * Settings come from empty temporary directories, so the user's own configuration cannot
 * change a figure.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { now, pairedRounds, plainMetric, ratioMetric, type Benchmark, type Metric } from "./harness.js"
import { tempDir } from "./runtime.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const CLI = path.join(root, "dist", "toolgate.cjs")

export const startup: Benchmark = {
  name: "startup",
  run: async () => {
    if (!fs.existsSync(CLI)) throw new Error(`bench: ${CLI} is missing; run \`npm run build\` (npm run bench does)`)
    const cwd = fs.realpathSync(tempDir("toolgate-bench-startup-"))
    const file = path.join(cwd, "notes.txt")
    fs.writeFileSync(file, Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a small file`).join("\n"))
    const env = {
      ...process.env,
      HOME: cwd,
      CLAUDE_CONFIG_DIR: path.join(cwd, ".claude-user"),
      TOOLGATE_MANAGED_SETTINGS_DIR: path.join(cwd, ".managed"),
      NO_COLOR: "1"
    }
    const spawn = (args: ReadonlyArray<string>, check: (stdout: string) => boolean) => async () => {
      const t0 = now()
      const result = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
      const elapsed = now() - t0
      if (result.status !== 0 || !check(result.stdout)) {
        throw new Error(`bench: \`node ${args.join(" ")}\` failed (${result.status}): ${result.stderr.slice(0, 500)}`)
      }
      return elapsed
    }
    const samples = await pairedRounds(
      [
        ["node", spawn(["-e", "0"], () => true)],
        ["version", spawn([CLI, "--version"], (out) => /\d+\.\d+\.\d+/.test(out))],
        ["tools", spawn([CLI, "tools", "--json"], (out) => out.includes('"Read"'))],
        ["callRead", spawn([CLI, "call", "--json", "Read", JSON.stringify({ file_path: file })], (out) => out.includes("line 40 of a small file"))]
      ],
      { warmup: 2, rounds: 10 }
    )
    const baseline = { name: "node -e 0", samples: samples.node }
    const metrics: Array<Metric> = [
      ratioMetric({ name: "startup.version_vs_node", unit: "ms", target: "< 3×", meets: ({ ratio }) => ratio < 3 }, samples.version, baseline),
      ratioMetric({ name: "startup.tools_json_vs_node", unit: "ms" }, samples.tools, baseline),
      ratioMetric({ name: "startup.call_read_vs_node", unit: "ms" }, samples.callRead, baseline),
      plainMetric({ name: "startup.node_e_0", unit: "ms" }, samples.node)
    ]
    return metrics
  }
}
