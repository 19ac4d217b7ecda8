/**
 * Graceful drain: SIGTERM makes a runner report not-ready and take no new input, lets its
 * running inputs finish (up to the drain time), then hands its shards back. A rolling restart of
 * both runners under load loses no input and fails no call.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { postgresBin } from "../support/postgres.js"
import { eventually, request, toolUse } from "../support/serve.js"
import {
  allInCallB,
  expectMarkedSessionDone,
  SERVER_TOKEN,
  startSpreadSessions,
  toolResultsOf,
  waitForInput,
  type Runner,
  useClusters
} from "./support.js"

const bin = postgresBin()

describe.skipIf(bin === undefined)("toolgate serve --runner: graceful drain", () => {
  const { newCluster } = useClusters(bin!, "drain")

  it("SIGTERM during calls: the runner stops taking input, finishes what runs, then exits; no call is cut short", async () => {
    const c = await newCluster()
    const [r1, r2] = [await c.start("r1"), await c.start("r2")]
    const { sessions } = await startSpreadSessions(r2, c.work, [r1, r2], { each: 2, sleepSeconds: 4 })
    await allInCallB(sessions)
    process.kill(r1.pid, "SIGTERM")

    // draining: not ready, and no new session or input through it
    await eventually(
      async () => ((await request(r1.url, "GET", "/ready")).status === 503 ? true : undefined),
      10_000,
      50
    )
    const refused = await request(r1.url, "POST", "/sessions", { token: SERVER_TOKEN, body: { cwd: c.work } })
    expect(refused.status, refused.text).toBe(503)

    for (const session of sessions) expectMarkedSessionDone(session, await waitForInput(r2, session), false)
    const exit = await r1.exited
    expect(exit.signal).toBeNull()
    expect(r1.stderr()).toContain("drained")
  })

  it("a rolling restart of both runners under load loses no input and fails no call", async () => {
    const c = await newCluster()
    const live: Array<Runner> = [await c.start("r1"), await c.start("r2")]
    const SESSIONS = 6
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const cwd = path.join(c.work, `load-${i}`)
        fs.mkdirSync(cwd)
        const created = await request(live[i % 2]!.url, "POST", "/sessions", {
          token: SERVER_TOKEN,
          body: { cwd, permissionMode: "bypassPermissions" }
        })
        expect(created.status, created.text).toBe(201)
        return { i, cwd, id: created.body.id as string, token: created.body.token as string }
      })
    )

    // each session sends inputs one after the other, to whichever runner answers (as a load balancer
    // would): a runner that refuses (503) or is gone is skipped, and an input is sent again under its key
    let stopping = false
    const sent = sessions.map(() => 0)
    const call = async (method: string, route: string, token: string, body?: unknown) => {
      for (let attempt = 0;; attempt++) {
        const runner = live[attempt % live.length]
        if (runner !== undefined) {
          try {
            const reply = await request(runner.url, method, route, { token, ...(body === undefined ? {} : { body }) })
            if (reply.status !== 503) return reply
          } catch {
            // the runner went away
          }
        }
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const drive = async (s: (typeof sessions)[number]) => {
      for (let k = 0; !stopping; k++) {
        const key = `in-${k}`
        const blocks = [
          toolUse(`toolu_${k}`, "Bash", { command: `echo ${k} >> ${path.join(s.cwd, "log")}; sleep 0.5` })
        ]
        const posted = await call("POST", `/sessions/${s.id}/messages?wait=false`, s.token, {
          role: "assistant",
          content: blocks,
          key
        })
        expect(posted.status, posted.text).toBe(200)
        const done = await call("GET", `/sessions/${s.id}/messages/${key}?wait=true`, s.token)
        expect(done.body.status, done.text).toBe("done")
        const [result] = toolResultsOf(done.body.messages)
        expect(result.is_error, JSON.stringify(result)).toBeUndefined()
        sent[s.i] = k + 1
      }
    }
    // a driver that fails ends the test at once (not at the next wait's bound)
    let failure: unknown
    const drivers = sessions.map((s) => drive(s).catch((e) => void (failure ??= e)))
    const progress = (enough: () => boolean) =>
      eventually(
        () => {
          if (failure !== undefined) throw failure
          return enough() ? true : undefined
        },
        60_000,
        50
      )

    const restart = async (index: number, name: string) => {
      const old = live[index]!
      await progress(() => Math.min(...sent) >= 2)
      process.kill(old.pid, "SIGTERM")
      expect((await old.exited).signal).toBeNull()
      // inputs sent to it while it drained waited for the next runner, not for the drain time
      expect(old.stderr()).toContain("drained: no input runs here")
      live[index] = await c.start(name)
    }
    await restart(0, "r1b")
    await restart(1, "r2b")
    const after = [...sent]
    await progress(() => sent.every((k, i) => k >= after[i]! + 2))
    stopping = true
    await Promise.all(drivers)
    if (failure !== undefined) throw failure

    // every input ran its call exactly once, in order
    for (const s of sessions) {
      expect(fs.readFileSync(path.join(s.cwd, "log"), "utf8")).toBe(
        Array.from({ length: sent[s.i]! }, (_, k) => `${k}\n`).join("")
      )
    }
  })
})
