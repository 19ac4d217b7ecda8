/**
 * A session is reachable through any runner: its events and permission questions are served,
 * and answered, by a runner other than the one running it, also after that one died; and the
 * runners' socket only talks to runners that know the cluster's secret.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { postgresBin } from "../support/postgres.js"
import { readEvents, request, scriptOf, text, toolUse } from "../support/serve.js"
import {
  marker,
  runsOf,
  SERVER_TOKEN,
  startedOn,
  toolResultsOf,
  waitForInput,
  type Runner,
  useClusters
} from "./support.js"

const bin = postgresBin()

describe.skipIf(bin === undefined)("toolgate serve --runner: any runner serves any session", () => {
  const { newCluster } = useClusters(bin!, "routing")

  it("streams events and takes permission answers through the other runner, before and after the session's runner dies", async () => {
    const c = await newCluster()
    const [r1, r2] = [await c.start("r1"), await c.start("r2")]

    // a session run by r1, driven only through r2
    const session = async (i: number) => {
      const cwd = path.join(c.work, `ask-${i}`)
      fs.mkdirSync(cwd)
      const created = await request(r2.url, "POST", "/sessions", {
        token: SERVER_TOKEN,
        body: {
          cwd,
          replaySpeed: 0,
          script: scriptOf([
            {
              content: [toolUse("toolu_p", "Bash", { command: `echo p >> ${marker(cwd, "p")}` })],
              stop_reason: "tool_use"
            },
            {
              content: [toolUse("toolu_q", "Bash", { command: `echo q >> ${marker(cwd, "q")}` })],
              stop_reason: "tool_use"
            },
            { content: [text("asked twice")], stop_reason: "end_turn" }
          ])
        }
      })
      expect(created.status, created.text).toBe(201)
      const s = { i, cwd, id: created.body.id as string, token: created.body.token as string }
      const events = readEvents(r2.url, s.id, s.token)
      await request(r2.url, "POST", `/sessions/${s.id}/messages?wait=false`, {
        token: s.token,
        body: { role: "user", content: "go", key: "k" }
      })
      return { ...s, events, runner: await startedOn(r2.url, s) }
    }
    let s = await session(0)
    for (let i = 1; s.runner !== r1.address; i++) {
      s.events.close()
      if (i > 30) throw new Error("no session landed on r1")
      s = await session(i)
    }

    // the first question, seen and answered through r2; the call runs on r1
    const asked = await s.events.waitFor("approval_requested", (e) => e.data.toolUseId === "toolu_p")
    expect(asked.data).toMatchObject({ tool: "Bash" })
    const answered = await request(r2.url, "POST", `/sessions/${s.id}/approvals/toolu_p`, {
      token: s.token,
      body: { decision: "allow" }
    })
    expect(answered.status, answered.text).toBe(200)
    await s.events.waitFor("call_finished", (e) => e.data.toolUseId === "toolu_p")
    expect(runsOf(s.cwd, "p")).toBe(1)

    // the second question is open when r1 dies: it stays open, and its answer through r2 runs the call once
    await s.events.waitFor("approval_requested", (e) => e.data.toolUseId === "toolu_q")
    await r1.stop("SIGKILL")
    const open = await request(r2.url, "GET", `/sessions/${s.id}/approvals`, { token: s.token })
    expect(open.body.map((q: { toolUseId: string }) => q.toolUseId)).toEqual(["toolu_q"])
    const late = await request(r2.url, "POST", `/sessions/${s.id}/approvals/toolu_q`, {
      token: s.token,
      body: { decision: "allow" }
    })
    expect(late.status, late.text).toBe(200)
    const result = await waitForInput(r2, s)
    expect(result.body).toMatchObject({ status: "done", text: "asked twice" })
    expect(toolResultsOf(result.body.messages).map((r: any) => [r.tool_use_id, r.is_error === true])).toEqual([
      ["toolu_p", false],
      ["toolu_q", false]
    ])
    expect([runsOf(s.cwd, "p"), runsOf(s.cwd, "q")]).toEqual([1, 1])
    // the event stream through r2 went on across the failover
    await s.events.waitFor("input_resumed", (e) => e.data.runner === r2.address)
    await s.events.waitFor("input_finished")
    s.events.close()
  })

  it("closes a runner connection that does not open with the runners' secret", async () => {
    const c = await newCluster()
    const r1: Runner = await c.start("r1")
    const runnerPort = Number(r1.address.split(":")[1])
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
    expect((await request(r1.url, "GET", "/ready")).body).toMatchObject({ ready: true })
  })
})
