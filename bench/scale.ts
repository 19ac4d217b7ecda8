/**
 * 6. Scale: 10,000 calls in 1,000 messages of 10 through one runtime (eight no-op calls and two
 * real Reads of small files per message). Memory: heap after full collections before and after
 * (run.ts starts node with --expose-gc), and per decile. Throughput: time per 100 messages, the
 * last decile against the first.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { ToolUseBlock } from "../src/Messages.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { ReadTool } from "../src/tools/index.js"
import { collectGarbage, timed, type Benchmark, type Metric } from "./harness.js"
import { NoopTool } from "./overhead.js"
import { assertPool, benchSession, makeBenchRuntime, tempDir, toolUse } from "./runtime.js"

const MESSAGES = 1000
const PER_MESSAGE = 10
const DECILE = MESSAGES / 10
const WARMUP = 200

const heapMb = (): number => {
  collectGarbage()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

export const scale: Benchmark = {
  name: "scale",
  run: async () => {
    if ((globalThis as { gc?: unknown }).gc === undefined) {
      throw new Error("bench: scale needs --expose-gc (run it through bench/run.ts)")
    }
    const cwd = fs.realpathSync(tempDir("toolgate-bench-scale-"))
    const files = Array.from({ length: 20 }, (_, i) => {
      const file = path.join(cwd, `src/module${i}.ts`)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, Array.from({ length: 30 }, (_, l) => `export const value${l} = ${i * 100 + l}`).join("\n"))
      return file
    })
    const runtime = makeBenchRuntime({ tools: [NoopTool, ReadTool], cwd, allow: ["Noop"] })
    await assertPool(runtime, ["Noop", "Read"])
    const session = benchSession(cwd)
    const scheduler = await runtime.runPromise(Scheduler)

    const message = (m: number): Array<ToolUseBlock> =>
      Array.from({ length: PER_MESSAGE }, (_, i) =>
        i < 2
          ? toolUse(`toolu_${m}_${i}`, "Read", {
            file_path: files[(((m * 2 + i) % files.length) + files.length) % files.length]
          })
          : toolUse(`toolu_${m}_${i}`, "Noop", { value: `message ${m} call ${i}` }))
    const runOne = async (m: number) => {
      const run = await runtime.runPromise(scheduler.runMessage(message(m), { session, maxConcurrency: 10 }))
      const failed = run.outcomes.find((o) => o.error !== undefined)
      if (failed !== undefined) {
        throw new Error(`bench: scale call failed: ${JSON.stringify(failed.result.content).slice(0, 300)}`)
      }
    }

    for (let m = 0; m < WARMUP; m++) await runOne(-1 - m)
    const heapStart = heapMb()
    const decileMs: Array<number> = []
    const decileCpuMs: Array<number> = []
    const decileHeap: Array<number> = []
    for (let d = 0; d < 10; d++) {
      const t = await timed(async () => {
        for (let m = d * DECILE; m < (d + 1) * DECILE; m++) await runOne(m)
      })
      decileMs.push(t.wall)
      decileCpuMs.push(t.cpu)
      decileHeap.push(heapMb())
    }
    const heapEnd = decileHeap[decileHeap.length - 1]!
    await runtime.dispose()

    const perSecond = (ms: number) => (DECILE / ms) * 1000
    const flatness = (name: string, unit: string, ms: ReadonlyArray<number>, note: string, judged: boolean): Metric => {
      const rates = ms.map(perSecond)
      return {
        name,
        value: rates[9]!,
        unit,
        baseline: { name: "first decile", value: rates[0]! },
        ratio: rates[9]! / rates[0]!,
        spread: { kind: "min-max", low: Math.min(...rates), high: Math.max(...rates) },
        ...(judged ? { target: "≥ 0.9×", meets: rates[9]! / rates[0]! >= 0.9 } : {}),
        note: `${note}; per decile: ${rates.map((r) => r.toFixed(0)).join(", ")}`
      }
    }
    const metrics: Array<Metric> = [
      flatness(
        "scale.throughput_last_vs_first_decile",
        "messages/s (cpu)",
        decileCpuMs,
        "messages per CPU second (this process), less sensitive to a shared machine",
        true
      ),
      flatness(
        "scale.wall.throughput_last_vs_first_decile",
        "messages/s (wall)",
        decileMs,
        "messages per wall second (mostly the neighbours' load on a shared machine)",
        false
      ),
      {
        name: "scale.heap_after_vs_before",
        value: heapEnd,
        unit: "MB heap after GC",
        baseline: { name: "before", value: heapStart },
        ratio: heapEnd / heapStart,
        spread: { kind: "min-max", low: Math.min(...decileHeap), high: Math.max(...decileHeap) },
        target: "flat (< 5 MB growth)",
        meets: heapEnd - heapStart < 5,
        note: `growth ${((heapEnd - heapStart) * 1024).toFixed(0)} KB over ${MESSAGES * PER_MESSAGE} calls, ${
          ((heapEnd - decileHeap[4]!) * 1024).toFixed(0)
        } KB of it in the second half (JIT code and feedback settle over the first few thousand calls); per decile MB: ${
          decileHeap.map((h) => h.toFixed(1)).join(", ")
        }`
      }
    ]
    return metrics
  }
}
