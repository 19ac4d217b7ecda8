/**
 * A driver for profiles (not a benchmark): runs messages of no-op calls through the bench
 * runtime for a while, so `node --cpu-prof` or `--heap-prof` sees the warm per-call path.
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.ts [callsPerMessage] [messages]
 */
import { Scheduler } from "../src/services/Scheduler.js"
import { NoopTool } from "./overhead.js"
import { benchSession, makeBenchRuntime, removeTempDirs, tempDir, toolUse } from "./runtime.js"

const size = Number(process.argv[2] ?? 100)
const messages = Number(process.argv[3] ?? 2000)

const main = async () => {
  const cwd = tempDir("toolgate-bench-profile-")
  const runtime = makeBenchRuntime({ tools: [NoopTool], cwd, allow: ["Noop"] })
  const session = benchSession(cwd)
  const scheduler = await runtime.runPromise(Scheduler)
  const blocks = (m: number) => Array.from({ length: size }, (_, i) => toolUse(`toolu_${m}_${i}`, "Noop", { value: `v${m}.${i}` }))
  const c0 = process.cpuUsage()
  for (let m = 0; m < messages; m++) {
    const run = await runtime.runPromise(scheduler.runMessage(blocks(m), { session, maxConcurrency: 10 }))
    if (run.outcomes.some((o) => o.error !== undefined)) throw new Error("a call failed")
    if (m === Math.floor(messages / 4)) Object.assign(c0, process.cpuUsage())
  }
  const c = process.cpuUsage(c0)
  const calls = size * (messages - Math.floor(messages / 4) - 1)
  console.log(`${(((c.user + c.system) / calls)).toFixed(2)} µs/call cpu (last three quarters)`)
  await runtime.dispose()
  removeTempDirs()
}

void main()
