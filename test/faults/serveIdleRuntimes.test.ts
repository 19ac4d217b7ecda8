/**
 * An idle served session gives its runtime back (TOOLGATE_SERVE_RUNTIME_IDLE_MS): readiness counts
 * the runtimes this runner holds, the count drops once the session was idle that long (not while
 * one of its background shells runs), and the session's next input is answered as before: its
 * runtime is built again from storage, with what earlier inputs changed (Bash's working directory).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { createSession, eventually, request, type Served, startServer, toolUse } from "../support/serve.js"

const TOKEN = "serve-idle-token-0123456789"

let server: Served | undefined
afterAll(async () => {
  await server?.stop("SIGKILL")
})

describe("idle session runtimes", () => {
  it(
    "are released after the idle time, kept while a background shell runs, and rebuilt for the next input",
    async () => {
      const stateDir = tempDir("toolgate-serve-idle-")
      const cwd = fs.realpathSync(tempDir("toolgate-serve-idle-ws-"))
      fs.mkdirSync(path.join(cwd, "sub"))
      server = await startServer({
        args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
        env: {
          TOOLGATE_SERVE_TOKEN: TOKEN,
          ANTHROPIC_API_KEY: "",
          TOOLGATE_SERVE_POLL_MS: "200",
          TOOLGATE_SERVE_RUNTIME_IDLE_MS: "400"
        }
      })
      const { url } = server
      const runtimes = async () => (await request(url, "GET", "/ready")).body.runtimes as number
      expect(await runtimes()).toBe(0)
      const { id, token } = await createSession(url, TOKEN, { cwd, permissionMode: "bypassPermissions" })
      const send = async (key: string, input: Record<string, unknown>) => {
        const sent = await request(url, "POST", `/sessions/${id}/messages?wait=true`, {
          token,
          body: { role: "assistant", key, content: [toolUse(`toolu_${key}`, "Bash", input)] }
        })
        expect(sent.body.status, sent.text).toBe("done")
        return JSON.stringify(sent.body.messages[1].content)
      }

      await send("k1", { command: "cd sub && pwd" })
      await eventually(async () => ((await runtimes()) === 0 ? true : undefined), 30_000)

      // built again from storage: the working directory the first input left
      expect(await send("k2", { command: "pwd" })).toContain(path.join(cwd, "sub"))

      // a background shell keeps the runtime past the idle time
      const done = path.join(cwd, "bg-done")
      await send("k3", { command: `sleep 2; touch ${done}`, run_in_background: true })
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      expect(await runtimes()).toBe(1)
      await eventually(() => (fs.existsSync(done) ? true : undefined), 30_000)
      await eventually(async () => ((await runtimes()) === 0 ? true : undefined), 30_000)
    },
    120_000
  )
})
