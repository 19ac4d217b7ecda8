/**
 * `toolgate serve`: the built CLI serving on 127.0.0.1 (embedded runner, SQLite in a temporary
 * folder), driven over HTTP.
 * - sessions per second created and driven (one scripted prompt each, 8 at a time) through one
 *   runner; with PostgreSQL installed, the same through one and then two `--runner` processes on
 *   a temporary PostgreSQL (sessions spread across both);
 * - the latency of a no-op call (Read of a small file, permission mode bypassPermissions) sent
 *   over HTTP as an assistant message, against the same call through the stages in this process
 *   (what `toolgate exec`/`call` run), paired round by round (target: p50 ≤ 5×);
 * - the cost of the served sandbox: a Bash call (`true`) over HTTP to a server whose sessions run
 *   in it, against the same call to a server started with --unsandboxed, paired round by round.
 */
import { Effect, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Runtime from "../src/layers/Runtime.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { newSession } from "../src/Session.js"
import { freePort, postgresBin, startPostgres } from "../test/support/postgres.js"
import { request, scriptOf, startServer, text, type Served } from "../test/support/serve.js"
import { now, pairedRounds, plainMetric, quantile, ratioMetric, type Benchmark, type Metric } from "./harness.js"
import { CLI } from "./startup.js"
import { tempDir, toolUse } from "./runtime.js"

const SESSIONS = 40
const PARALLEL = 8
const CALLS = 200

const script = scriptOf([{ content: [text("done")], stop_reason: "end_turn" }])

const SERVER_TOKEN = "bench-serve-token-0123456789"
const serverEnv = { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, TOOLGATE_SERVE_RUNNER_SECRET: "bench-runner-secret-0123456789" }

/** Creates and drives `count` sessions, `PARALLEL` at a time, spread over the servers; sessions/s. */
const drive = async (servers: ReadonlyArray<Served>, cwd: string, count: number): Promise<number> => {
  let next = 0
  const t0 = now()
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const via = servers[i % servers.length]!
      const created = await request(via.url, "POST", "/sessions", {
        token: SERVER_TOKEN,
        body: { cwd, script, replaySpeed: 0 }
      })
      if (created.status !== 201) throw new Error(`bench serve: create failed: ${created.text}`)
      const sent = await request(via.url, "POST", `/sessions/${created.body.id}/messages`, {
        token: created.body.token,
        body: { role: "user", content: "hi" }
      })
      if (sent.body?.status !== "done") throw new Error(`bench serve: input failed: ${sent.text}`)
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
  return count / ((now() - t0) / 1000)
}

export const serve: Benchmark = {
  name: "serve",
  run: async () => {
    if (!fs.existsSync(CLI)) throw new Error(`bench: ${CLI} is missing; run \`npm run build\` (npm run bench does)`)
    const root = fs.realpathSync(tempDir("toolgate-bench-serve-"))
    const cwd = path.join(root, "work")
    fs.mkdirSync(cwd)
    const file = path.join(cwd, "notes.txt")
    fs.writeFileSync(file, "a small file\n")
    const metrics: Array<Metric> = []
    const server = await startServer({
      args: ["--state-dir", path.join(root, "state"), "--allow", "bypassPermissions"],
      env: serverEnv
    })
    try {
      await drive([server], cwd, PARALLEL)
      metrics.push(
        plainMetric({
          name: "serve.embedded.sessions_per_s",
          unit: "1/s",
          note: `${SESSIONS} sessions, ${PARALLEL} at a time`
        }, [await drive([server], cwd, SESSIONS)])
      )

      // a no-op call over HTTP against the same call in process
      const session = await request(server.url, "POST", "/sessions", {
        token: SERVER_TOKEN,
        body: { cwd, script, permissionMode: "bypassPermissions" }
      })
      const { id, token } = session.body
      const runtime = ManagedRuntime.make(Runtime.layer({ cwd, permissionMode: "bypassPermissions", mcp: false }))
      const inProcessSession = newSession({ cwd, permissionMode: "bypassPermissions" })
      let n = 0
      const overHttp = async () => {
        const block = toolUse(`toolu_${n++}`, "Read", { file_path: file })
        const t0 = now()
        const sent = await request(server.url, "POST", `/sessions/${id}/messages`, {
          token,
          body: { role: "assistant", content: [block], key: `call-${n}` }
        })
        const took = now() - t0
        if (sent.body?.status !== "done" || JSON.stringify(sent.body.messages).includes("\"is_error\":true")) {
          throw new Error(`bench serve: call failed: ${sent.text}`)
        }
        return took
      }
      const inProcess = async () => {
        const block = toolUse(`toolu_${n++}`, "Read", { file_path: file })
        const t0 = now()
        const ran = await runtime.runPromise(
          Effect.flatMap(Scheduler, (s) => s.runMessage([block], { session: inProcessSession }))
        )
        const took = now() - t0
        const result = ran.message.content[0]
        if (result?.type !== "tool_result" || result.is_error === true) {
          throw new Error("bench serve: in-process call failed")
        }
        return took
      }
      try {
        const samples = await pairedRounds([["http", overHttp], ["inProcess", inProcess]], {
          warmup: 10,
          rounds: CALLS
        })
        metrics.push(
          ratioMetric(
            {
              name: "serve.noop_call.http",
              unit: "ms",
              target: "p50 ≤ 5× the in-process call",
              meets: ({ ratio }) => ratio <= 5,
              note: "Read over HTTP (a durable input); baseline: the same call through Scheduler.runMessage"
            },
            samples.http,
            { name: "in process", samples: samples.inProcess }
          ),
          {
            ...plainMetric({ name: "serve.noop_call.http.p99", unit: "ms" }, samples.http),
            value: quantile(samples.http, 0.99),
            spread: undefined
          }
        )
      } finally {
        await runtime.dispose()
      }
      // the served sandbox's start per Bash call, against a server without it
      const bare = await startServer({
        args: ["--state-dir", path.join(root, "state-unsandboxed"), "--allow", "bypassPermissions", "--unsandboxed"],
        env: serverEnv
      })
      try {
        const bashSession = async (via: Served) =>
          (await request(via.url, "POST", "/sessions", {
            token: SERVER_TOKEN,
            body: { cwd, script, permissionMode: "bypassPermissions" }
          })).body as { id: string; token: string }
        const sessions = { sandboxed: await bashSession(server), unsandboxed: await bashSession(bare) }
        let n = 0
        const bashCall = (via: Served, session: { id: string; token: string }) => async () => {
          const block = toolUse(`toolu_b${n++}`, "Bash", { command: "true" })
          const t0 = now()
          const sent = await request(via.url, "POST", `/sessions/${session.id}/messages`, {
            token: session.token,
            body: { role: "assistant", content: [block] }
          })
          if (sent.body?.status !== "done" || JSON.stringify(sent.body.messages).includes("\"is_error\":true")) {
            throw new Error(`bench serve: Bash call failed: ${sent.text}`)
          }
          return now() - t0
        }
        const samples = await pairedRounds(
          [
            ["sandboxed", bashCall(server, sessions.sandboxed)],
            ["unsandboxed", bashCall(bare, sessions.unsandboxed)]
          ],
          { warmup: 5, rounds: 40 }
        )
        metrics.push(
          ratioMetric(
            {
              name: "serve.bash_call.sandboxed",
              unit: "ms",
              note: "Bash `true` over HTTP; baseline: the same on a --unsandboxed server"
            },
            samples.sandboxed,
            {
              name: "unsandboxed",
              samples: samples.unsandboxed
            }
          )
        )
        metrics.push(await servedGrepCost(server, bare, cwd))
      } finally {
        await bare.stop("SIGTERM")
      }
    } finally {
      await server.stop("SIGTERM")
    }

    const bin = postgresBin()
    if (bin === undefined) return metrics
    const pg = await startPostgres(bin)
    const runners: Array<Served> = []
    try {
      const startRunner = async (name: string) =>
        startServer({
          port: await freePort(),
          args: [
            "--runner",
            "--storage",
            pg.url,
            "--runner-port",
            String(await freePort()),
            "--state-dir",
            path.join(root, name)
          ],
          env: { ...serverEnv, TOOLGATE_SERVE_SHARDS: "16", TOOLGATE_SERVE_POLL_MS: "300" },
          startTimeoutMs: 120_000
        })
      runners.push(await startRunner("r1"))
      await drive(runners, cwd, PARALLEL)
      const one = await drive(runners, cwd, SESSIONS)
      runners.push(await startRunner("r2"))
      await drive(runners, cwd, PARALLEL)
      const two = await drive(runners, cwd, SESSIONS)
      metrics.push(plainMetric({ name: "serve.postgres.one_runner.sessions_per_s", unit: "1/s" }, [one]))
      metrics.push({
        ...plainMetric({ name: "serve.postgres.two_runners.sessions_per_s", unit: "1/s" }, [two]),
        baseline: { name: "one runner", value: one },
        ratio: two / one
      })
    } finally {
      for (const runner of runners) await runner.stop("SIGTERM")
      await pg.stop()
    }
    return metrics
  }
}

/**
 * A served Grep (content of a small folder): ripgrep started in the session's sandbox, against
 * the same search on a --unsandboxed server, where it is the JS walk from the opened root (no
 * ripgrep: it would follow a symlink swapped in under the search), paired round by round.
 */
export const servedGrepCost = async (sandboxed: Served, unsandboxed: Served, cwd: string): Promise<Metric> => {
  const folder = path.join(cwd, "grep")
  fs.mkdirSync(folder, { recursive: true })
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(folder, `f${i}.txt`), `line ${i}\nneedle ${i}\n`)
  const sessionOn = async (via: Served) =>
    (await request(via.url, "POST", "/sessions", { token: SERVER_TOKEN, body: { cwd, script } })).body as {
      id: string
      token: string
    }
  const sessions = { sandboxed: await sessionOn(sandboxed), unsandboxed: await sessionOn(unsandboxed) }
  let n = 0
  const grepCall = (via: Served, session: { id: string; token: string }) => async () => {
    const block = toolUse(`toolu_g${n++}`, "Grep", { pattern: "needle", path: folder, output_mode: "content" })
    const t0 = now()
    const sent = await request(via.url, "POST", `/sessions/${session.id}/messages`, {
      token: session.token,
      body: { role: "assistant", content: [block] }
    })
    const answer = JSON.stringify(sent.body?.messages)
    if (sent.body?.status !== "done" || answer.includes("\"is_error\":true") || !answer.includes("needle 19")) {
      throw new Error(`bench serve: Grep call failed: ${sent.text}`)
    }
    return now() - t0
  }
  const samples = await pairedRounds(
    [
      ["sandboxed", grepCall(sandboxed, sessions.sandboxed)],
      ["unsandboxed", grepCall(unsandboxed, sessions.unsandboxed)]
    ],
    { warmup: 5, rounds: 40 }
  )
  return ratioMetric(
    {
      name: "serve.grep_call.sandboxed",
      unit: "ms",
      note: "Grep over HTTP, ripgrep in the sandbox; baseline: the JS search on a --unsandboxed server"
    },
    samples.sandboxed,
    { name: "unsandboxed", samples: samples.unsandboxed }
  )
}
