/**
 * `toolgate serve` killed with SIGKILL at random moments while two sessions run Bash calls with
 * side effects (a line in a log when a call starts and one when it ends; some slow, some leaving
 * `setsid` processes behind), then started again on the same state folder (in half the trials
 * killed once more while the inputs resume, and started again). Over every trial: no
 * process of the killed server is left, every input ends once the server is back, every tool_use
 * of every session's stored conversation has its tool_result, nothing happens once the killed
 * server's processes are gone nor after a call's answer, a call answered as not run left no
 * trace, a call answered with its result ran exactly once, and no call ran twice.
 *
 * TOOLGATE_FAULT_TRIALS sets the number of trials (default 1; the issue's campaign is 50); the
 * figures go to stderr.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { request, startServer, toolUse, type Served } from "../support/serve.js"
import { killAll, logLines, newMarker, resultText, sleep, survivors } from "./support.js"

/** The SQLite driver the server uses (no type declarations of its own): only what the test reads. */
const Database = createRequire(import.meta.url)("better-sqlite3") as new(
  file: string,
  options: { readonly readonly: boolean; readonly fileMustExist: boolean }
) => {
  prepare(sql: string): { all(...params: ReadonlyArray<unknown>): Array<unknown> }
  close(): void
}

const TRIALS = Number(process.env.TOOLGATE_FAULT_TRIALS ?? 1)
const TOKEN = "serve-campaign-token-0123456789"

const markers: Array<string> = []
const servers: Array<Served> = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop("SIGKILL")
  for (const marker of markers.splice(0)) killAll(marker)
})

/** A call with a side effect: a line when it starts and one when it ends, in the workspace's log. */
const step = (id: string, sleepS: number) =>
  `echo start ${id} >> log; sleep ${sleepS}; echo end ${id} >> log; echo done ${id}`

type Block = Record<string, unknown>

/** Each session's inputs: assistant messages of Bash calls, sent one after the other. */
const inputsOf = (session: string, marker: string): ReadonlyArray<{ key: string; calls: Array<Block> }> => [
  {
    key: "k1",
    calls: [
      toolUse(`toolu_${session}a`, "Bash", { command: step(`${session}a`, 0.3) }),
      toolUse(`toolu_${session}b`, "Bash", { command: `setsid sleep ${marker} & ${step(`${session}b`, 0.5)}` })
    ]
  },
  {
    key: "k2",
    calls: [
      toolUse(`toolu_${session}bg`, "Bash", {
        command: `setsid sleep ${marker} & sleep ${marker}`,
        run_in_background: true
      }),
      toolUse(`toolu_${session}c`, "Bash", { command: `(trap '' TERM; sleep ${marker}) & ${step(`${session}c`, 0.4)}` })
    ]
  },
  {
    key: "k3",
    calls: [
      toolUse(`toolu_${session}d`, "Bash", { command: step(`${session}d`, 0.2) }),
      toolUse(`toolu_${session}e`, "Bash", { command: step(`${session}e`, 0.6) })
    ]
  }
]

const STEPS = ["a", "b", "c", "d", "e"]

interface Figures {
  trials: number
  killedBeforeSessions: number
  /** Trials whose restarted server was killed again while the inputs resumed. */
  killedWhileResuming: number
  inputsSent: number
  callsAsked: number
  leftProcesses: number
  /** Lines written between the server's death and the end of its processes (informative). */
  effectsDuringTeardown: number
  effectsAfterDeath: number
  unfinishedInputs: number
  failedInputs: number
  unanswered: number
  effectsAfterAnswer: number
  /** Calls answered as not run, or as stopped while they ran (informative: the kills landed). */
  answeredNotRun: number
  answeredLost: number
  effectsOfUnrunCalls: number
  answeredUnfinished: number
  answeredOkNotOnce: number
  doubled: number
  restartFailed: number
  trialErrors: number
}

/** The tool_use ids of a stored conversation that no tool_result in the next message answers. */
const unansweredIn = (messages: ReadonlyArray<{ role: string; content: unknown }>): ReadonlyArray<string> =>
  messages.flatMap((message, i) => {
    if (message.role !== "assistant" || !Array.isArray(message.content)) return []
    const asked = (message.content as Array<Block>).filter((b) => b.type === "tool_use").map((b) => String(b.id))
    const next = messages[i + 1]
    const answered = new Set(
      Array.isArray(next?.content)
        ? (next.content as Array<Block>).filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id))
        : []
    )
    return asked.filter((id) => !answered.has(id))
  })

/** Each session's stored conversation: its message rows, in order. */
const storedConversations = (stateDir: string): ReadonlyArray<ReadonlyArray<{ role: string; content: unknown }>> => {
  const db = new Database(path.join(stateDir, "toolgate.db"), { readonly: true, fileMustExist: true })
  try {
    const sessions = db.prepare("SELECT id FROM toolgate_sessions").all() as Array<{ id: string }>
    const read = db.prepare("SELECT message FROM toolgate_messages WHERE session_id = ? ORDER BY idx")
    return sessions.map(({ id }) =>
      (read.all(id) as Array<{ message: string }>).map((r) =>
        JSON.parse(r.message) as { role: string; content: unknown }
      )
    )
  } finally {
    db.close()
  }
}

const serve = (stateDir: string) =>
  startServer({
    args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
    env: { TOOLGATE_SERVE_TOKEN: TOKEN, ANTHROPIC_API_KEY: "", TOOLGATE_SERVE_POLL_MS: "200" }
  }).then((server) => {
    servers.push(server)
    return server
  })

const trial = async (figures: Figures, killAfterMs: number): Promise<void> => {
  const stateDir = tempDir("toolgate-serve-campaign-")
  const marker = newMarker()
  markers.push(marker)
  const server = await serve(stateDir)
  const sessions: Array<{ name: string; id: string; token: string; cwd: string; keys: Array<string> }> = []
  const killAt = Date.now() + killAfterMs
  const drive = (async () => {
    for (const name of ["s", "t"]) {
      const cwd = fs.realpathSync(tempDir("toolgate-serve-campaign-ws-"))
      const created = await request(server.url, "POST", "/sessions", {
        token: TOKEN,
        body: { cwd, permissionMode: "bypassPermissions" }
      })
      if (created.status !== 201) return
      const session = { name, id: created.body.id as string, token: created.body.token as string, cwd, keys: [] }
      sessions.push(session)
    }
    for (const session of sessions) {
      for (const input of inputsOf(session.name, marker)) {
        const sent = await request(server.url, "POST", `/sessions/${session.id}/messages?wait=false`, {
          token: session.token,
          body: { role: "assistant", key: input.key, content: input.calls }
        })
        if (sent.status !== 200) return
        ;(session.keys as Array<string>).push(input.key)
        figures.inputsSent++
      }
    }
  })().catch(() => undefined)
  await sleep(Math.max(0, killAt - Date.now()))
  await server.stop("SIGKILL")
  await drive
  figures.trials++
  const atDeath = sessions.map((s) => logLines(s.cwd).length)
  figures.leftProcesses += (await survivors(marker)).length
  const tornDown = sessions.map((s) => logLines(s.cwd).length)
  figures.effectsDuringTeardown += tornDown.reduce((n, t, i) => n + t - atDeath[i]!, 0)
  await sleep(300)
  figures.effectsAfterDeath += sessions.reduce((n, s, i) => n + logLines(s.cwd).length - tornDown[i]!, 0)
  if (sessions.length < 2) figures.killedBeforeSessions++
  if (sessions.length === 0) return

  // the server again on the same state folder: the inputs resume and end; in half the trials it
  // is killed once more while they resume
  const restart = async (): Promise<Served | undefined> => {
    try {
      return await serve(stateDir)
    } catch (e) {
      figures.restartFailed++
      process.stderr.write(`restart failed: ${String(e)}\n`)
      return undefined
    }
  }
  let again = await restart()
  if (again === undefined) return
  if (Math.random() < 0.5) {
    figures.killedWhileResuming++
    await sleep(Math.floor(Math.random() * 1500))
    await again.stop("SIGKILL")
    figures.leftProcesses += (await survivors(marker)).length
    const gone = sessions.map((s) => logLines(s.cwd).length)
    await sleep(300)
    figures.effectsAfterDeath += sessions.reduce((n, s, i) => n + logLines(s.cwd).length - gone[i]!, 0)
    again = await restart()
    if (again === undefined) return
  }
  const deadline = Date.now() + 60_000
  const answers = new Map<string, Block>()
  for (const session of sessions) {
    for (const key of session.keys) {
      let result: Record<string, any> | undefined
      while (Date.now() < deadline) {
        const row = await request(again.url, "GET", `/sessions/${session.id}/messages/${key}?wait=false`, {
          token: session.token
        })
        if (row.body?.status === "done" || row.body?.status === "failed") {
          result = row.body
          break
        }
        await sleep(100)
      }
      if (result === undefined) {
        figures.unfinishedInputs++
        continue
      }
      if (result.status === "failed") figures.failedInputs++
      for (const message of (result.messages ?? []) as Array<{ content: unknown }>) {
        if (!Array.isArray(message.content)) continue
        for (const block of message.content as Array<Block>) {
          if (block.type === "tool_result") answers.set(String(block.tool_use_id), block)
        }
      }
    }
  }
  const conversations = storedConversations(stateDir)
  for (const messages of conversations) {
    figures.callsAsked += messages.flatMap((m) =>
      Array.isArray(m.content)
        ? (m.content as Array<Block>).filter((b) => b.type === "tool_use")
        : []
    ).length
    figures.unanswered += unansweredIn(messages).length
  }
  const answered = sessions.map((s) => logLines(s.cwd))
  await sleep(500)
  for (const [i, session] of sessions.entries()) {
    const final = logLines(session.cwd)
    figures.effectsAfterAnswer += final.length - answered[i]!.length
    for (const name of STEPS) {
      const id = `${session.name}${name}`
      const started = final.filter((l) => l === `start ${id}`).length
      const ended = final.filter((l) => l === `end ${id}`).length
      if (started > 1 || ended > 1) figures.doubled++
      const answer = answers.get(`toolu_${id}`)
      if (answer === undefined) continue
      const text = resultText(answer)
      if (/this tool call was not run/.test(text)) {
        figures.answeredNotRun++
        if (started > 0) figures.effectsOfUnrunCalls++
      }
      if (/stopped while it ran/.test(text)) figures.answeredLost++
      const ok = answer.is_error !== true && text.includes(`done ${id}`)
      if (ok && ended === 0) figures.answeredUnfinished++
      if (ok && (started !== 1 || ended !== 1)) figures.answeredOkNotOnce++
    }
  }
  await again.stop("SIGTERM")
}

describe("SIGKILL of toolgate serve at random moments", () => {
  it(
    `over ${TRIALS} trials: no process left, every input ends, every call answered, no effect after death, after its answer or twice`,
    async () => {
      const figures: Figures = {
        trials: 0,
        killedBeforeSessions: 0,
        killedWhileResuming: 0,
        inputsSent: 0,
        callsAsked: 0,
        leftProcesses: 0,
        effectsDuringTeardown: 0,
        effectsAfterDeath: 0,
        unfinishedInputs: 0,
        failedInputs: 0,
        unanswered: 0,
        effectsAfterAnswer: 0,
        answeredNotRun: 0,
        answeredLost: 0,
        effectsOfUnrunCalls: 0,
        answeredUnfinished: 0,
        answeredOkNotOnce: 0,
        doubled: 0,
        restartFailed: 0,
        trialErrors: 0
      }
      // creating the sessions takes a moment; their inputs about three seconds more
      for (let i = 0; i < TRIALS; i++) {
        const killAfterMs = Math.floor(Math.random() * 4000)
        await trial(figures, killAfterMs).catch((e) => {
          figures.trialErrors++
          process.stderr.write(`trial ${i} (kill after ${killAfterMs} ms) failed: ${String(e?.stack ?? e)}\n`)
        })
      }
      process.stderr.write(`SIGKILL campaign (serve): ${JSON.stringify(figures)}\n`)
      expect(figures).toMatchObject({
        trials: TRIALS,
        leftProcesses: 0,
        effectsAfterDeath: 0,
        unfinishedInputs: 0,
        unanswered: 0,
        effectsAfterAnswer: 0,
        effectsOfUnrunCalls: 0,
        answeredUnfinished: 0,
        answeredOkNotOnce: 0,
        doubled: 0,
        restartFailed: 0,
        trialErrors: 0
      })
    },
    60_000 + TRIALS * 90_000
  )
})
