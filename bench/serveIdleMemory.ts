/**
 * Memory of idle served sessions (not part of `npm run bench`: it takes a minute or more):
 * `npm run build && node --import tsx bench/serveIdleMemory.ts [sessions] [idle-ms] [wait-ms]` starts
 * `toolgate serve` (with --expose-gc and a preload that collects garbage on SIGUSR2), creates the
 * sessions, runs one Bash call in each, and prints the server's RSS and heap after full
 * collections: once the inputs are done, and `wait-ms` later (default: the idle time
 * TOOLGATE_SERVE_RUNTIME_IDLE_MS and 5 s), with the runtimes /ready counts at each point.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const sessionsWanted = Number(process.argv[2] ?? 200)
const idleMs = Number(process.argv[3] ?? 2_000)
const waitMs = Number(process.argv[4] ?? idleMs + 5_000)
const TOKEN = "bench-idle-memory-token-0123456789"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-idle-memory-"))
const stateDir = path.join(work, "state")
const cwd = path.join(work, "ws")
fs.mkdirSync(cwd, { recursive: true })
const preload = path.join(work, "gc.cjs")
fs.writeFileSync(
  preload,
  `process.on("SIGUSR2", () => { global.gc(); global.gc(); const m = process.memoryUsage();
  process.stderr.write("MEM " + JSON.stringify({ rssMB: Math.round(m.rss / 1048576), heapUsedMB: Math.round(m.heapUsed / 1048576) }) + "\\n") })\n`
)

const child = spawn(
  process.execPath,
  [
    "--expose-gc",
    "-r",
    preload,
    path.join(root, "dist", "toolgate.cjs"),
    "serve",
    "--port",
    "0",
    "--state-dir",
    stateDir,
    "--allow",
    "bypassPermissions"
  ],
  {
    env: {
      ...process.env,
      TOOLGATE_SERVE_TOKEN: TOKEN,
      ANTHROPIC_API_KEY: "",
      TOOLGATE_SERVE_RUNTIME_IDLE_MS: String(idleMs)
    },
    stdio: ["ignore", "ignore", "pipe"]
  }
)
process.on("exit", () => child.kill("SIGKILL"))
let stderr = ""
child.stderr!.on("data", (d) => (stderr += String(d)))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const url = await (async () => {
  for (;;) {
    const found = /listening on (\S+)/.exec(stderr)
    if (found !== null) return found[1]!
    if (child.exitCode !== null) throw new Error(`toolgate serve ended: ${stderr}`)
    await sleep(50)
  }
})()

const call = async (method: string, route: string, body?: unknown, token = TOKEN) => {
  const response = await fetch(url + route, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return response.json() as Promise<Record<string, any>>
}

const measure = async () => {
  const before = stderr.length
  child.kill("SIGUSR2")
  for (let i = 0; i < 100 && !stderr.slice(before).includes("MEM "); i++) await sleep(50)
  const memory = JSON.parse(/MEM (.*)/.exec(stderr.slice(before))?.[1] ?? "{}") as Record<string, number>
  return { ...memory, runtimes: (await call("GET", "/ready")).runtimes as number }
}

const startedAt = await measure()
const sessions: Array<{ id: string; token: string }> = []
for (let i = 0; i < sessionsWanted; i++) {
  sessions.push((await call("POST", "/sessions", { cwd, permissionMode: "bypassPermissions" })) as any)
}
for (let i = 0; i < sessions.length; i += 10) {
  await Promise.all(
    sessions.slice(i, i + 10).map((s) =>
      call("POST", `/sessions/${s.id}/messages?wait=true`, {
        role: "assistant",
        key: "k",
        content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hi" } }]
      }, s.token)
    )
  )
}
const afterInputs = await measure()
await sleep(waitMs)
const afterIdle = await measure()
process.stdout.write(
  `${JSON.stringify({ sessions: sessionsWanted, idleMs, startedAt, afterInputs, afterIdle }, null, 2)}\n`
)
child.kill("SIGKILL")
fs.rmSync(work, { recursive: true, force: true })
