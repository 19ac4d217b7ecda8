/**
 * A driver for profiles (not a benchmark): runs messages of no-op calls through the bench
 * runtime for a while, so `node --cpu-prof` or `--heap-prof` sees the warm per-call path.
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.ts [callsPerMessage] [messages] [side]
 * `side` is toolgate (the default) or handwritten (bench/handwritten.ts). With
 * TOOLGATE_ALLOC_PROFILE=<file> it writes a sampling heap profile of every allocation of the
 * measured part (collected objects included) instead of relying on --heap-prof (live objects only).
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { Session } from "node:inspector/promises"
import { Scheduler } from "../src/services/Scheduler.js"
import { handwrittenMessage, handwrittenTools } from "./handwritten.js"
import { NoopTool } from "./overhead.js"
import { benchSession, makeBenchRuntime, removeTempDirs, tempDir, toolUse } from "./runtime.js"

const size = Number(process.argv[2] ?? 100)
const messages = Number(process.argv[3] ?? 2000)
const side = process.argv[4] ?? "toolgate"

const main = async () => {
  const cwd = tempDir("toolgate-bench-profile-")
  const runtime = makeBenchRuntime({ tools: [NoopTool], cwd, allow: ["Noop"] })
  const session = benchSession(cwd)
  const scheduler = await runtime.runPromise(Scheduler)
  const handwritten = handwrittenTools([NoopTool], ["Noop"], session)
  const blocks = (m: number) =>
    Array.from({ length: size }, (_, i) => toolUse(`toolu_${m}_${i}`, "Noop", { value: `v${m}.${i}` }))
  const one = side === "handwritten"
    ? (m: number) => Effect.runPromise(handwrittenMessage(handwritten, blocks(m), 10))
    : (m: number) => runtime.runPromise(scheduler.runMessage(blocks(m), { session, maxConcurrency: 10 }))
  const allocFile = process.env.TOOLGATE_ALLOC_PROFILE
  const inspector = allocFile === undefined ? undefined : new Session()
  const c0 = process.cpuUsage()
  for (let m = 0; m < messages; m++) {
    await one(m)
    if (m === Math.floor(messages / 4)) {
      Object.assign(c0, process.cpuUsage())
      if (inspector !== undefined) {
        inspector.connect()
        await inspector.post("HeapProfiler.enable")
        await inspector.post("HeapProfiler.startSampling", {
          samplingInterval: 512,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true
        } as never)
      }
    }
  }
  const c = process.cpuUsage(c0)
  if (inspector !== undefined) {
    const { profile } = await inspector.post("HeapProfiler.stopSampling")
    fs.writeFileSync(allocFile!, JSON.stringify(profile))
  }
  const calls = size * (messages - Math.floor(messages / 4) - 1)
  console.log(`${side}: ${((c.user + c.system) / calls).toFixed(2)} µs/call cpu (last three quarters)`)
  await runtime.dispose()
  removeTempDirs()
}

void main()
