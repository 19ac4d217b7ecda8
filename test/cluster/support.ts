/**
 * Clusters of `toolgate serve --runner` processes for the cluster suite: one temporary
 * PostgreSQL per file and a fresh database per test; runners started, killed, frozen (their
 * whole process tree, as a paused machine) and thawed by pid; sessions whose calls leave one line
 * in a marker file each time they run, and the exact checks of their results.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { createDatabase, freePort, startPostgres, type Postgres, type PostgresOptions } from "../support/postgres.js"
import { tempDir } from "../support/runtime.js"
import {
  eventually,
  readEvents,
  request,
  scriptOf,
  startServer,
  text,
  toolUse,
  type Reply,
  type Served
} from "../support/serve.js"

export const SERVER_TOKEN = "cluster-server-token-0123456789"

/**
 * Short cluster timings, the same on every runner: a lease not refreshed for 6 s is taken over;
 * a shard handed to another runner gives its running calls 8 s; SIGTERM lets running inputs
 * finish for 20 s.
 */
export const clusterEnv: Record<string, string> = {
  TOOLGATE_SERVE_LOCK_EXPIRATION_MS: "6000",
  TOOLGATE_SERVE_LOCK_REFRESH_MS: "1000",
  TOOLGATE_SERVE_ASSIGNMENTS_MS: "500",
  TOOLGATE_SERVE_POLL_MS: "200",
  TOOLGATE_SERVE_HEALTH_MS: "2000",
  TOOLGATE_SERVE_SHARDS: "16",
  TOOLGATE_SERVE_TERMINATION_MS: "8000",
  TOOLGATE_SERVE_DRAIN_MS: "20000",
  TOOLGATE_SERVE_EVENT_POLL_MS: "200",
  TOOLGATE_SERVE_TOKEN: SERVER_TOKEN,
  TOOLGATE_SERVE_RUNNER_SECRET: "cluster-runner-secret-0123456789"
}

export interface Runner extends Served {
  readonly name: string
  /** The address the other runners know it by (`host:port`), as events name it. */
  readonly address: string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

export interface Cluster {
  readonly url: string
  readonly work: string
  readonly runners: Array<Runner>
  start(name: string, extraArgs?: ReadonlyArray<string>): Promise<Runner>
  stopAll(): Promise<void>
}

export interface ClusterOptions {
  /** The tablespace of the cluster's database (default: the server's own). */
  readonly tablespace?: string
}

/** A fresh database on the file's PostgreSQL, and runners on it that share `work`. */
export const makeCluster = async (
  pg: Postgres,
  work: string,
  name: string,
  options: ClusterOptions = {}
): Promise<Cluster> => {
  const url = await createDatabase(pg, name, options.tablespace)
  const runners: Array<Runner> = []
  const start = async (runnerName: string, extraArgs: ReadonlyArray<string> = []) => {
    const port = await freePort()
    const runnerPort = await freePort()
    const served = await startServer({
      port,
      args: [
        "--runner",
        "--storage",
        url,
        "--runner-port",
        String(runnerPort),
        "--state-dir",
        path.join(work, `state-${runnerName}`),
        "--workspace-root",
        work,
        "--allow",
        "bypassPermissions",
        ...extraArgs
      ],
      env: clusterEnv,
      startTimeoutMs: 120_000
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (served.child.exitCode !== null || served.child.signalCode !== null) {
        resolve({ code: served.child.exitCode, signal: served.child.signalCode })
      } else served.child.once("exit", (code, signal) => resolve({ code, signal }))
    })
    // the runner holds shards once it is ready
    await eventually(
      async () => ((await request(served.url, "GET", "/ready")).status === 200 ? true : undefined),
      60_000,
      100
    )
    const runner: Runner = Object.assign(served, { name: runnerName, address: `127.0.0.1:${runnerPort}`, exited })
    runners.push(runner)
    return runner
  }
  return {
    url,
    work,
    runners,
    start,
    stopAll: async () => {
      for (const runner of runners) {
        thaw(runner.pid)
        await runner.stop("SIGKILL")
      }
      // TOOLGATE_CLUSTER_LOGS=<dir>: every runner's stderr, kept for a look after the test
      const logs = process.env.TOOLGATE_CLUSTER_LOGS
      if (logs !== undefined && logs !== "") {
        fs.mkdirSync(logs, { recursive: true })
        for (const runner of runners) fs.writeFileSync(path.join(logs, `${name}-${runner.name}.log`), runner.stderr())
      }
    }
  }
}

/** The pids of a process and every descendant, parents first. */
const processTree = (root: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const tree: Array<number> = []
  const visit = (pid: number) => {
    tree.push(pid)
    for (const child of children.get(pid) ?? []) visit(child)
  }
  visit(root)
  return tree
}

const signalAll = (pids: ReadonlyArray<number>, signal: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // gone meanwhile
    }
  }
}

/** Stops the runner and everything it started, as a paused machine: nothing of it runs. */
/**
 * One PostgreSQL for the calling `describe`, and a fresh cluster (database, work folder) per test:
 * registers the hooks that start PostgreSQL, stop each test's runners, and stop PostgreSQL.
 */
export const useClusters = (bin: string, name: string, postgresOptions: PostgresOptions = {}): {
  readonly newCluster: (options?: ClusterOptions) => Promise<Cluster>
  /** The file's PostgreSQL (started before the first test). */
  readonly postgres: () => Postgres
} => {
  let pg: Postgres
  let cluster: Cluster | undefined
  const work = fs.realpathSync(tempDir(`toolgate-${name}-`))
  let n = 0
  beforeAll(async () => {
    pg = await startPostgres(bin, postgresOptions)
  }, 120_000)
  afterEach(async () => {
    await cluster?.stopAll()
    cluster = undefined
  })
  afterAll(async () => {
    await pg?.stop()
  })
  return {
    postgres: () => pg,
    newCluster: async (options?: ClusterOptions) => {
      const made = await makeCluster(pg, `${work}/c${n}`, `${name}_${n++}`, options)
      fs.mkdirSync(made.work, { recursive: true })
      return (cluster = made)
    }
  }
}

export const freeze = (pid: number): void => {
  // stopped first, the runner starts nothing new while its tree is walked
  let frozen = new Set<number>()
  for (;;) {
    const tree = processTree(pid).filter((p) => !frozen.has(p))
    if (tree.length === 0) return
    signalAll(tree, "SIGSTOP")
    frozen = new Set([...frozen, ...tree])
  }
}

export const thaw = (pid: number): void => {
  try {
    signalAll(processTree(pid).reverse(), "SIGCONT")
  } catch {
    // gone
  }
}

export interface MarkedSession {
  readonly i: number
  readonly cwd: string
  readonly id: string
  readonly token: string
}

/** The marker file a call appends to each time it runs. */
export const marker = (cwd: string, call: string) => path.join(cwd, `marker-${call}`)
export const runsOf = (cwd: string, call: string) =>
  fs.existsSync(marker(cwd, call)) ? fs.readFileSync(marker(cwd, call), "utf8").split("\n").filter(Boolean).length : 0

/**
 * A scripted session of three calls a, b, c (b sleeps `sleepSeconds` after leaving its mark) and a
 * closing text, with its prompt sent (key `k`) without waiting.
 */
export const startMarkedSession = async (
  via: Served,
  work: string,
  i: number,
  sleepSeconds: number
): Promise<MarkedSession> => {
  const cwd = path.join(work, `ws-${i}`)
  fs.mkdirSync(cwd, { recursive: true })
  const created = await request(via.url, "POST", "/sessions", {
    token: SERVER_TOKEN,
    body: {
      cwd,
      replaySpeed: 0,
      permissionMode: "bypassPermissions",
      script: scriptOf([
        {
          content: [toolUse("toolu_a", "Bash", { command: `echo a >> ${marker(cwd, "a")}` })],
          stop_reason: "tool_use"
        },
        {
          content: [toolUse("toolu_b", "Bash", { command: `echo b >> ${marker(cwd, "b")}; sleep ${sleepSeconds}` })],
          stop_reason: "tool_use"
        },
        {
          content: [toolUse("toolu_c", "Bash", { command: `echo c >> ${marker(cwd, "c")}` })],
          stop_reason: "tool_use"
        },
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
}

/** The runner that started the session's input (from its `input_started` event). */
export const startedOn = async (url: string, session: MarkedSession): Promise<string> => {
  const events = readEvents(url, session.id, session.token)
  try {
    const started = await events.waitFor("input_started")
    return started.data.runner as string
  } finally {
    events.close()
  }
}

/** The runners that resumed the session's input after another let go of it. */
export const resumedOn = async (url: string, session: MarkedSession): Promise<Array<string>> => {
  const all = await request(url, "GET", `/sessions/${session.id}/events?follow=false`, { token: session.token })
  return parseSse(all.text)
    .filter((e) => e.type === "input_resumed")
    .map((e) => e.data.runner as string)
}

const parseSse = (body: string): Array<{ type: string; data: any }> =>
  body
    .split("\n\n")
    .map((frame) =>
      Object.fromEntries(
        frame.split("\n").filter((l) => l.includes(": ") && !l.startsWith(":")).map((
          l
        ) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)])
      )
    )
    .filter((f) => f.event !== undefined)
    .map((f) => ({ type: f.event as string, data: JSON.parse(f.data ?? "null") }))

/** The input once it finished (a generous bound: a stalled session fails the test, not the suite). */
export const waitForInput = (
  via: Served,
  session: { readonly id: string; readonly token: string },
  key = "k",
  timeoutMs = 120_000
): Promise<Reply> =>
  eventually(
    async () => {
      const result = await request(via.url, "GET", `/sessions/${session.id}/messages/${key}?wait=false`, {
        token: session.token
      })
      expect(result.status, result.text).toBe(200)
      return result.body.status === "done" || result.body.status === "failed" ? result : undefined
    },
    timeoutMs,
    100
  )

export const toolResultsOf = (messages: ReadonlyArray<{ role: string; content: any }>) =>
  messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : [])).filter((b: any) =>
    b.type === "tool_result"
  )

/**
 * A finished marked session, checked exactly: a, b, c each answered once and in order; a and c
 * ran exactly once and succeeded; b ran exactly once, and succeeded unless `bMayBeLost`, when
 * it may instead be answered "stopped while it ran". Returns whether b was.
 */
export const expectMarkedSessionDone = (session: MarkedSession, result: Reply, bMayBeLost: boolean): boolean => {
  expect(result.body, `session ${session.i}`).toMatchObject({
    status: "done",
    stop: "end_turn",
    text: `Session ${session.i} finished.`
  })
  const messages = result.body.messages as Array<{ role: string; content: any }>
  const uses = messages.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : [])).filter((
    b: any
  ) => b.type === "tool_use")
  const answers = toolResultsOf(messages)
  expect(uses.map((u: any) => u.id)).toEqual(["toolu_a", "toolu_b", "toolu_c"])
  expect(answers.map((a: any) => a.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c"])
  for (const call of ["a", "b", "c"]) expect(runsOf(session.cwd, call), `session ${session.i} call ${call}`).toBe(1)
  expect(answers[0].is_error, `session ${session.i} a: ${JSON.stringify(answers[0].content)}`).toBeUndefined()
  expect(answers[2].is_error, `session ${session.i} c: ${JSON.stringify(answers[2].content)}`).toBeUndefined()
  const b = answers[1]
  if (b.is_error === true) {
    expect(bMayBeLost, `session ${session.i} b: ${JSON.stringify(b.content)}`).toBe(true)
    expect(JSON.stringify(b.content)).toContain("stopped while it ran")
    return true
  }
  return false
}

/** Sessions started through `via` until each of `runners` runs at least `each` of their inputs. */
export const startSpreadSessions = async (
  via: Served,
  work: string,
  runners: ReadonlyArray<Runner>,
  options: { readonly each: number; readonly sleepSeconds: number; readonly first?: number }
): Promise<{ sessions: Array<MarkedSession>; owner: Map<string, string> }> => {
  const sessions: Array<MarkedSession> = []
  const owner = new Map<string, string>()
  const count = () => runners.map((r) => [...owner.values()].filter((a) => a === r.address).length)
  let i = options.first ?? 0
  while (count().some((n) => n < options.each)) {
    if (sessions.length >= 40) throw new Error(`sessions do not spread over the runners: ${count().join("/")}`)
    const batch = await Promise.all(
      Array.from({ length: 4 }, () => startMarkedSession(via, work, i++, options.sleepSeconds))
    )
    for (const session of batch) {
      sessions.push(session)
      owner.set(session.id, await startedOn(via.url, session))
    }
  }
  return { sessions, owner }
}

/** Waits until every session's call b left its mark (it is sleeping now). */
export const allInCallB = (sessions: ReadonlyArray<MarkedSession>) =>
  eventually(() => (sessions.every((s) => runsOf(s.cwd, "b") === 1) ? true : undefined), 120_000, 50)

export { execFileSync }
