/**
 * `npm run bench`: runs every benchmark, prints the table, writes bench/results.json.
 * `npm run bench -- overhead makespan` runs only the named benchmarks (results.json then holds
 * only theirs). The process re-runs itself with --expose-gc when it was started without it (the
 * scale benchmark measures heap after full collections).
 */
import { spawnSync } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { formatTable, writeResults, type Benchmark, type Metric } from "./harness.js"

const here = path.dirname(fileURLToPath(import.meta.url))

if ((globalThis as { gc?: unknown }).gc === undefined && process.env.TOOLGATE_BENCH_CHILD !== "1") {
  const child = spawnSync(process.execPath, [
    "--expose-gc",
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2)
  ], {
    stdio: "inherit",
    env: { ...process.env, TOOLGATE_BENCH_CHILD: "1" }
  })
  process.exit(child.status ?? 1)
}

const load = async (): Promise<ReadonlyArray<Benchmark>> => {
  const { overhead } = await import("./overhead.js")
  const { makespan } = await import("./makespan.js")
  const { streaming } = await import("./streaming.js")
  const { startup } = await import("./startup.js")
  const { permissions } = await import("./permissions.js")
  const { scale } = await import("./scale.js")
  const { serve } = await import("./serve.js")
  const { sandbox } = await import("./sandbox.js")
  const { leashBench } = await import("./leash.js")
  const { library } = await import("./library.js")
  return [overhead, makespan, streaming, startup, permissions, scale, serve, sandbox, leashBench, library]
}

const main = async () => {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"))
  const all = await load()
  const unknown = wanted.filter((w) => !all.some((b) => b.name === w))
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${all.map((b) => b.name).join(", ")}`)
    process.exit(2)
  }
  const selected = wanted.length === 0 ? all : all.filter((b) => wanted.includes(b.name))
  const loadavgStart = os.loadavg()
  const started = performance.now()
  const metrics: Array<Metric> = []
  for (const bench of selected) {
    const t0 = performance.now()
    process.stderr.write(`bench ${bench.name} …`)
    const produced = await bench.run()
    metrics.push(...produced)
    process.stderr.write(` ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
  }
  const durationMs = performance.now() - started
  console.log(formatTable(metrics))
  writeResults(path.join(here, "results.json"), {
    generatedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? "unknown",
      loadavgStart,
      loadavgEnd: os.loadavg()
    },
    durationMs,
    metrics
  })
  const loadText = (l: ReadonlyArray<number>) => l.map((n) => n.toFixed(1)).join(" ")
  console.log(`\n${metrics.length} metrics in ${(durationMs / 1000).toFixed(1)} s → bench/results.json`)
  console.log(
    `machine: ${os.cpus().length} cpus, load average ${loadText(loadavgStart)} at the start, ${
      loadText(os.loadavg())
    } at the end`
  )
}

const cleanUp = () => import("./runtime.js").then(({ removeTempDirs }) => removeTempDirs())

main().then(
  () => cleanUp().then(() => process.exit(0)),
  (error: unknown) => {
    console.error(error)
    return cleanUp().then(() => process.exit(1))
  }
)
