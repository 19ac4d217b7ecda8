/**
 * 2. Makespan: messages of sleeping calls run through the real pipeline, wall time of
 * `runMessage` against the ideal for the same semantics (ideal.ts), in batch mode and in
 * footprint mode. The tools only sleep, so every millisecond over the ideal is the runtime's
 * (plus timer lateness, which a loaded machine inflates).
 */
import type { ToolUseBlock } from "../src/Messages.js"
import { Scheduler, type ScheduleMode } from "../src/services/Scheduler.js"
import { now, pairedRounds, ratioMetric, type Benchmark, type Metric } from "./harness.js"
import { idealMakespan, runPlain } from "./ideal.js"
import { assertPool, benchSession, makeBenchRuntime, tempDir, toolUse } from "./runtime.js"
import { inputOf, sleepTools, type PlannedCall } from "./tools.js"
import * as path from "node:path"
import * as fs from "node:fs"

const CAP = 10

/** A small deterministic generator (mulberry32), so every run plans the same message. */
export const seeded = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * 50 calls as an agent makes them: mostly reads (5–60 ms: Read, Grep, Glob), some edits
 * (15–80 ms) on the same dozen files, and three long shell commands (150–300 ms) nobody analysed.
 */
const mixed50 = (dir: string): Array<PlannedCall> => {
  const random = seeded(8)
  const files = Array.from({ length: 12 }, (_, i) => path.join(dir, `file${i}.ts`))
  const pick = () => files[Math.floor(random() * files.length)]!
  const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo))
  const calls: Array<PlannedCall> = []
  for (let i = 0; i < 50; i++) {
    const r = random()
    if (i === 17 || i === 33 || i === 46) calls.push({ tool: "SleepShell", durationMs: between(150, 300), path: dir })
    else if (r < 0.7) calls.push({ tool: "SleepRead", durationMs: between(5, 60), path: pick() })
    else calls.push({ tool: "SleepWrite", durationMs: between(15, 80), path: pick() })
  }
  return calls
}

const cases = (
  dir: string
): ReadonlyArray<{ readonly name: string; readonly calls: ReadonlyArray<PlannedCall>; readonly rounds: number }> => {
  const f = (name: string) => path.join(dir, name)
  return [
    {
      name: "safe10",
      calls: Array.from({ length: 10 }, (_, i) => ({ tool: "Sleep" as const, durationMs: 50 + i * 10, path: "" })),
      rounds: 7
    },
    {
      name: "RRWRR",
      calls: [
        { tool: "SleepRead", durationMs: 60, path: f("a.ts") },
        { tool: "SleepRead", durationMs: 90, path: f("b.ts") },
        { tool: "SleepWrite", durationMs: 120, path: f("c.ts") },
        { tool: "SleepRead", durationMs: 70, path: f("c.ts") },
        { tool: "SleepRead", durationMs: 50, path: f("d.ts") }
      ],
      rounds: 7
    },
    { name: "mixed50", calls: mixed50(dir), rounds: 3 }
  ]
}

export const makespan: Benchmark = {
  name: "makespan",
  run: async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-bench-makespan-"))
    const runtime = makeBenchRuntime({ tools: sleepTools, cwd, env: { TOOLGATE_ENABLE_SLEEP: "1" } })
    await assertPool(runtime, sleepTools.map((t) => t.name))
    const session = benchSession(cwd)
    const scheduler = await runtime.runPromise(Scheduler)
    const metrics: Array<Metric> = []

    for (const { name, calls, rounds } of cases(cwd)) {
      const blocks: Array<ToolUseBlock> = calls.map((c, i) => toolUse(`toolu_${name}_${i}`, c.tool, inputOf(c)))
      const ideal = {
        batches: idealMakespan(calls, "batches", CAP),
        footprints: idealMakespan(calls, "footprints", CAP)
      }
      const once = (mode: ScheduleMode) => async () => {
        const t0 = now()
        const run = await runtime.runPromise(scheduler.runMessage(blocks, { session, maxConcurrency: CAP, mode }))
        const wall = now() - t0
        const failed = run.outcomes.find((o) => o.error !== undefined)
        if (failed !== undefined) {
          throw new Error(`bench: ${name} call failed: ${JSON.stringify(failed.result.content)}`)
        }
        return wall
      }
      const samples = await pairedRounds(
        [
          ["batches", once("batches")],
          ["footprints", once("footprints")],
          ["plainBatches", () => runPlain(calls, "batches", CAP)],
          ["plainFootprints", () => runPlain(calls, "footprints", CAP)]
        ],
        { warmup: 1, rounds }
      )
      for (const mode of ["batches", "footprints"] as const) {
        const plain = mode === "batches" ? samples.plainBatches : samples.plainFootprints
        metrics.push(
          ratioMetric(
            {
              name: `makespan.${name}.${mode}_vs_ideal`,
              unit: "ms",
              target: "≤ 1.05×",
              meets: ({ ratio }) => ratio <= 1.05
            },
            samples[mode],
            { name: `ideal`, samples: samples[mode].map(() => ideal[mode]) }
          ),
          ratioMetric(
            {
              name: `makespan.${name}.${mode}_vs_plain_timers`,
              unit: "ms",
              note: "baseline: the same rules with setTimeout and callbacks (the machine's timer lateness, no runtime)"
            },
            samples[mode],
            { name: "plain timers", samples: plain }
          )
        )
      }
      metrics.push(
        ratioMetric(
          {
            name: `makespan.${name}.footprints_vs_batches`,
            unit: "ms",
            note: `ideal ratio ${(ideal.footprints / ideal.batches).toFixed(3)}`
          },
          samples.footprints,
          { name: "batches", samples: samples.batches }
        ),
        ratioMetric(
          {
            name: `makespan.${name}.plain_timers_vs_ideal`,
            unit: "ms",
            note: "how late this machine's timers are (batch rules)"
          },
          samples.plainBatches,
          { name: "ideal", samples: samples.plainBatches.map(() => ideal.batches) }
        )
      )
    }
    await runtime.dispose()
    return metrics
  }
}
