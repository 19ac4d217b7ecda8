/**
 * `toolgate serve` as a cluster: two runner processes on one temporary PostgreSQL, 20 scripted
 * sessions at once, one runner killed with SIGKILL while calls run. Every session finishes on the
 * other runner, every tool_use gets exactly one tool_result, and no call runs twice (each call
 * appends a line to its own marker file).
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, postgresBin, startPostgres, type Postgres } from "../support/postgres.js"
import { tempDir } from "../support/runtime.js"
import { eventually, request, scriptOf, startServer, text, toolUse, type Served } from "../support/serve.js"

const bin = postgresBin()
const SESSIONS = 20

// short lock and polling intervals, the same on every runner, so the takeover happens in seconds
const clusterEnv = {
  TOOLGATE_SERVE_LOCK_EXPIRATION_MS: "10000",
  TOOLGATE_SERVE_LOCK_REFRESH_MS: "2500",
  TOOLGATE_SERVE_ASSIGNMENTS_MS: "1000",
  TOOLGATE_SERVE_POLL_MS: "300",
  TOOLGATE_SERVE_HEALTH_MS: "2000",
  TOOLGATE_SERVE_SHARDS: "16",
  TOOLGATE_SERVE_TOKEN: "cluster-server-token-0123456789",
  TOOLGATE_SERVE_RUNNER_SECRET: "cluster-runner-secret-0123456789"
}
const token = clusterEnv.TOOLGATE_SERVE_TOKEN

describe.skipIf(bin === undefined)("toolgate serve --runner (two runners on PostgreSQL)", () => {
  let pg: Postgres
  const runners: Array<Served> = []
  const work = tempDir("toolgate-cluster-")

  const startRunner = async (name: string) => {
    const port = await freePort()
    const runnerPort = await freePort()
    return startServer({
      port,
      args: ["--runner", "--storage", pg.url, "--runner-port", String(runnerPort), "--state-dir", path.join(work, name), "--allow", "bypassPermissions"],
      env: clusterEnv,
      startTimeoutMs: 120_000
    })
  }

  beforeAll(async () => {
    pg = await startPostgres(bin!)
    // the first runner creates the tables; the second joins
    runners.push(await startRunner("r1"))
    runners.push(await startRunner("r2"))
  }, 240_000)

  afterAll(async () => {
    for (const runner of runners) await runner.stop("SIGTERM")
    await pg?.stop()
    fs.rmSync(work, { recursive: true, force: true })
  })

  it("finishes every session after a runner is killed mid-run, answering every tool_use once and running no call twice", async () => {
    const [survivor, victim] = [runners[1]!, runners[0]!]
    const marker = (dir: string, call: string) => path.join(dir, `marker-${call}`)
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const cwd = path.join(work, `ws-${i}`)
        fs.mkdirSync(cwd)
        const via = runners[i % 2]!
        const created = await request(via.url, "POST", "/sessions", {
          token,
          body: {
            cwd,
            replaySpeed: 0,
            permissionMode: "bypassPermissions",
            script: scriptOf([
              { content: [toolUse("toolu_a", "Bash", { command: `echo a >> ${marker(cwd, "a")}` })], stop_reason: "tool_use" },
              { content: [toolUse("toolu_b", "Bash", { command: `echo b >> ${marker(cwd, "b")}; sleep 8` })], stop_reason: "tool_use" },
              { content: [toolUse("toolu_c", "Bash", { command: `echo c >> ${marker(cwd, "c")}` })], stop_reason: "tool_use" },
              { content: [text(`Session ${i} finished.`)], stop_reason: "end_turn" }
            ])
          }
        })
        expect(created.status, created.text).toBe(201)
        const sent = await request(via.url, "POST", `/sessions/${created.body.id}/messages?wait=false`, {
          token: created.body.token,
          body: { role: "user", content: "go", key: "k" }
        })
        expect(sent.status, sent.text).toBe(200)
        return { i, cwd, id: created.body.id as string, token: created.body.token as string }
      })
    )

    // kill one runner while the sleeping calls run on both: once every session is in its sleep, the
    // killed runner's share of them (sessions are spread by id over the shards) is mid-call
    await eventually(() => (sessions.every((s) => fs.existsSync(marker(s.cwd, "b"))) ? true : undefined), 180_000, 100)
    await victim.stop("SIGKILL")

    const results = await Promise.all(
      sessions.map((s) => request(survivor.url, "GET", `/sessions/${s.id}/messages/k?wait=true`, { token: s.token }))
    )
    let stoppedMidCall = 0
    results.forEach((result, n) => {
      const s = sessions[n]!
      expect(result.status, result.text).toBe(200)
      expect(result.body).toMatchObject({ status: "done", stop: "end_turn", text: `Session ${s.i} finished.` })
      const messages = result.body.messages as Array<{ role: string; content: any }>
      const uses = messages.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_use")
      const answers = messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result")
      expect(uses.map((u: any) => u.id)).toEqual(["toolu_a", "toolu_b", "toolu_c"])
      expect(answers.map((a: any) => a.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c"])
      for (const answer of answers) {
        const call = answer.tool_use_id.slice("toolu_".length)
        const lines = fs.existsSync(marker(s.cwd, call)) ? fs.readFileSync(marker(s.cwd, call), "utf8").split("\n").filter(Boolean).length : 0
        if (answer.is_error === true) {
          // the runner died during the call: it ran at most once and is not run again
          expect(answer.content).toContain("stopped while it ran")
          expect(lines).toBeLessThanOrEqual(1)
          stoppedMidCall++
        } else {
          expect(lines, `${s.cwd} ${call}`).toBe(1)
        }
      }
    })
    // the killed runner had calls running: they were answered from storage by the survivor
    expect(stoppedMidCall).toBeGreaterThan(0)

    // a finished session is deleted with its rows in PostgreSQL, the cluster's too
    const gone = sessions[0]!
    const deleted = await request(survivor.url, "DELETE", `/sessions/${gone.id}`, { token: gone.token })
    expect(deleted.status, deleted.text).toBe(200)
    expect((await request(survivor.url, "GET", `/sessions/${gone.id}`, { token })).status).toBe(404)
    const listed = await request(survivor.url, "GET", "/sessions?limit=500", { token })
    expect(listed.body.sessions.map((s: { id: string }) => s.id)).not.toContain(gone.id)
    expect(listed.body.sessions.filter((s: { inputs: number }) => s.inputs === 1)).toHaveLength(SESSIONS - 1)
  })

  it("closes a runner connection that does not open with the runners' secret", async () => {
    const runnerPort = Number(/--runner-port (\d+)/.exec(runners[1]!.child.spawnargs.join(" "))![1])
    const closed = await new Promise<boolean>((resolve) => {
      const socket = net.createConnection({ host: "127.0.0.1", port: runnerPort }, () => {
        socket.write(`toolgate-runner/1 ${"0".repeat(64)}\n`)
        socket.write(Buffer.alloc(64, 1))
      })
      const timer = setTimeout(() => {
        socket.destroy()
        resolve(false)
      }, 10_000)
      socket.on("close", () => {
        clearTimeout(timer)
        resolve(true)
      })
      socket.on("error", () => undefined)
    })
    expect(closed).toBe(true)
    // the runner goes on serving
    expect((await request(runners[1]!.url, "GET", "/ready")).body).toMatchObject({ ready: true })
  })
})
