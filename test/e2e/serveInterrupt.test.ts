/**
 * `toolgate serve` interrupted like Ctrl-C at many moments around a running Bash call (before the
 * call starts, as it starts, while its process runs): every input ends `interrupted` with each
 * tool_use answered, and the server still stops on SIGTERM.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { readEvents, request, scriptOf, startServer, text, toolUse, type Served } from "../support/serve.js"

const SERVER_TOKEN = "serve-interrupt-token-0123456789"
/** Generous: an input that ends does so in well under a second; one that hangs never does. */
const ANSWER_WITHIN_MS = 15_000

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** GET with a bound: `undefined` when no answer came in time. */
const getWithin = async (url: string, route: string, token: string, ms: number) => {
  try {
    const response = await fetch(url + route, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(ms)
    })
    return (await response.json()) as any
  } catch {
    return undefined
  }
}

const answeredEveryToolUse = (messages: ReadonlyArray<{ role: string; content: any }>) =>
  messages.every((message, i) => {
    if (message.role !== "assistant" || typeof message.content === "string") return true
    const uses = message.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id)
    if (uses.length === 0) return true
    const next = messages[i + 1]
    const results = Array.isArray(next?.content)
      ? next!.content.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id)
      : []
    return next?.role === "user" && JSON.stringify(results) === JSON.stringify(uses)
  })

describe("toolgate serve: an interrupt at any moment of a running Bash call", () => {
  let server: Served
  const stateDir = tempDir("toolgate-serve-int-state-")

  beforeAll(async () => {
    server = await startServer({
      args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
      env: { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, TOOLGATE_SERVE_POLL_MS: "200" }
    })
  }, 90_000)

  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      await server.stop("SIGKILL")
    }
    fs.rmSync(stateDir, { recursive: true, force: true })
  })

  it("ends every interrupted input with its tool_use answered, then stops on SIGTERM", async () => {
    // milliseconds after call_started (undefined: as soon as the input is queued)
    const moments: ReadonlyArray<number | undefined> = [
      undefined,
      0,
      0,
      1,
      2,
      3,
      5,
      5,
      8,
      10,
      10,
      15,
      20,
      30,
      40,
      60,
      80,
      120,
      200,
      400
    ]
    const failures: Array<string> = []
    for (const [i, moment] of moments.entries()) {
      const cwd = fs.realpathSync(tempDir("toolgate-serve-int-ws-"))
      const created = await request(server.url, "POST", "/sessions", {
        token: SERVER_TOKEN,
        body: {
          replaySpeed: 0,
          cwd,
          permissionMode: "bypassPermissions",
          script: scriptOf([
            { content: [toolUse(`toolu_i${i}`, "Bash", { command: "sleep 60" })], stop_reason: "tool_use" },
            { content: [text("never")], stop_reason: "end_turn" }
          ])
        }
      })
      expect(created.status, created.text).toBe(201)
      const { id, token } = created.body as { id: string; token: string }
      const events = readEvents(server.url, id, token)
      try {
        await request(server.url, "POST", `/sessions/${id}/messages?wait=false`, {
          token,
          body: { role: "user", content: "sleep", key: "long" }
        })
        if (moment !== undefined) {
          await events.waitFor("call_started")
          await sleepMs(moment)
        }
        // before its run starts, there is nothing to interrupt yet: sent again until something was
        while ((await request(server.url, "POST", `/sessions/${id}/interrupt`, { token })).body?.interrupted !== true) {
          await sleepMs(1)
        }
        const result = await getWithin(server.url, `/sessions/${id}/messages/long?wait=true`, token, ANSWER_WITHIN_MS)
        if (result === undefined) {
          failures.push(`${moment ?? "queued"}: no answer`)
          break
        } else if (result.status !== "done" || !answeredEveryToolUse(result.messages ?? [])) {
          failures.push(`${moment ?? "queued"}: ${JSON.stringify(result)}`)
        }
      } finally {
        events.close()
      }
      if (failures.length > 0) break
    }
    expect(failures).toEqual([])

    const exited = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ANSWER_WITHIN_MS)
      server.child.once("exit", () => {
        clearTimeout(timer)
        resolve(true)
      })
    })
    process.kill(server.pid, "SIGTERM")
    expect(await exited).toBe(true)
  }, 600_000)
})
