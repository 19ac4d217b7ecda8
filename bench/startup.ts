/**
 * 3. CLI start-up: whole processes of the built CLI (`dist/toolgate.cjs`, what `npm run build`
 * makes and `bin` points at) against `node -e 0`, spawned the same way in the same rounds.
 * Settings come from empty temporary directories, so the user's own configuration cannot
 * change a figure.
 *
 * Each process reports its own CPU time (user + system, all threads, from process start to its
 * `exit` event) through a preloaded module that every side, `node -e 0` included, loads the
 * same way. On a shared machine wall time mostly measures the neighbours, so the targets are
 * judged on CPU time; wall time is reported beside it.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { now, pairedRounds, plainMetric, ratioMetric, type Benchmark, type Metric } from "./harness.js"
import { tempDir } from "./runtime.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const CLI = path.join(root, "dist", "toolgate.cjs")

const REPORTER = `"use strict"
process.once("exit", () => {
  const u = process.cpuUsage()
  require("node:fs").writeFileSync(process.env.TOOLGATE_BENCH_CPU_FILE, String((u.user + u.system) / 1000))
})
`

export const startup: Benchmark = {
  name: "startup",
  run: async () => {
    if (!fs.existsSync(CLI)) throw new Error(`bench: ${CLI} is missing; run \`npm run build\` (npm run bench does)`)
    const cwd = fs.realpathSync(tempDir("toolgate-bench-startup-"))
    const file = path.join(cwd, "notes.txt")
    fs.writeFileSync(file, Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a small file`).join("\n"))
    const work = fs.realpathSync(tempDir("toolgate-bench-startup-work-"))
    const reporter = path.join(work, "cpu-reporter.cjs")
    fs.writeFileSync(reporter, REPORTER)
    const cpuFile = path.join(work, "cpu.txt")
    const env: Record<string, string | undefined> = {
      ...process.env,
      HOME: cwd,
      CLAUDE_CONFIG_DIR: path.join(cwd, ".claude-user"),
      TOOLGATE_MANAGED_SETTINGS_DIR: path.join(cwd, ".managed"),
      NO_COLOR: "1",
      TOOLGATE_BENCH_CPU_FILE: cpuFile
    }
    delete env.NODE_OPTIONS
    const spawn = (args: ReadonlyArray<string>, check: (stdout: string) => boolean) => async () => {
      fs.rmSync(cpuFile, { force: true })
      const t0 = now()
      const result = spawnSync(process.execPath, ["--require", reporter, ...args], {
        cwd,
        env,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024
      })
      const wall = now() - t0
      if (result.status !== 0 || !check(result.stdout)) {
        throw new Error(`bench: \`node ${args.join(" ")}\` failed (${result.status}): ${result.stderr.slice(0, 500)}`)
      }
      return { wall, cpu: Number(fs.readFileSync(cpuFile, "utf8")) }
    }
    const samples = await pairedRounds(
      [
        ["node", spawn(["-e", "0"], () => true)],
        ["version", spawn([CLI, "--version"], (out) => /\d+\.\d+\.\d+/.test(out))],
        ["tools", spawn([CLI, "tools", "--json"], (out) => out.includes("\"Read\""))],
        [
          "callRead",
          spawn(
            [CLI, "call", "--json", "Read", JSON.stringify({ file_path: file })],
            (out) => out.includes("line 40 of a small file")
          )
        ]
      ],
      { warmup: 3, rounds: 15 }
    )
    const cpu = (k: keyof typeof samples) => samples[k].map((s) => s.cpu)
    const wall = (k: keyof typeof samples) => samples[k].map((s) => s.wall)
    const baseline = { name: "node -e 0", samples: cpu("node") }
    const wallBaseline = { name: "node -e 0", samples: wall("node") }
    const metrics: Array<Metric> = [
      ratioMetric(
        {
          name: "startup.version_vs_node",
          unit: "ms cpu",
          target: "≤ 1.2×",
          meets: ({ ratio }) => ratio <= 1.2
        },
        cpu("version"),
        baseline
      ),
      ratioMetric(
        {
          name: "startup.tools_json_vs_node",
          unit: "ms cpu",
          target: "≤ 2×",
          meets: ({ ratio }) => ratio <= 2
        },
        cpu("tools"),
        baseline
      ),
      ratioMetric(
        {
          name: "startup.call_read_vs_node",
          unit: "ms cpu",
          target: "≤ 2×",
          meets: ({ ratio }) => ratio <= 2
        },
        cpu("callRead"),
        baseline
      ),
      plainMetric({ name: "startup.node_e_0", unit: "ms cpu" }, cpu("node")),
      ratioMetric({ name: "startup.wall.version_vs_node", unit: "ms wall" }, wall("version"), wallBaseline),
      ratioMetric({ name: "startup.wall.tools_json_vs_node", unit: "ms wall" }, wall("tools"), wallBaseline),
      ratioMetric({ name: "startup.wall.call_read_vs_node", unit: "ms wall" }, wall("callRead"), wallBaseline),
      plainMetric({ name: "startup.wall.node_e_0", unit: "ms wall" }, wall("node"))
    ]
    return metrics
  }
}
