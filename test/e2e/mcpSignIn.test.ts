/**
 * Signing in to an OAuth-protected MCP server from an interactive `toolgate run` (a real server
 * on 127.0.0.1): the model's `mcp__secure__authenticate` call shows the sign-in URL, the browser
 * approves and returns to toolgate's callback, `/mcp` shows the server connected and its own tool
 * answers in the same session; the token is kept under the home directory.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cleanEnv, copyExample } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { startOAuthMcpServer } from "../support/oauthMcpServer.js"

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name, input })

describe("interactive run: an MCP server that needs a sign-in", () => {
  it(
    "the model starts the sign-in, the browser completes it, the server's tools work in the same session",
    async () => {
      const server = await startOAuthMcpServer()
      const { work, project } = copyExample()
      const file = path.join(work, "session.jsonl")
      const turns = [
        [use("a1", "mcp__secure__authenticate", {})],
        [{ type: "text", text: "Please open the link above." }],
        [use("e1", "mcp__secure__echo", { message: "hello from secure" })],
        [{ type: "text", text: "All done." }]
      ]
      fs.writeFileSync(file, turns.map((content) => JSON.stringify({ type: "turn", delay_ms: 0, content })).join("\n"))
      const env = cleanEnv()
      const mcpConfig = JSON.stringify({ mcpServers: { secure: { type: "http", url: server.url } } })
      const args = [
        "run",
        "--replay",
        file,
        "--replay-speed",
        "0",
        "--session-dir",
        path.join(work, "s"),
        "--mcp-config",
        mcpConfig,
        "--allowedTools",
        "mcp__secure__echo"
      ]
      const term = await spawnCliPty(args, { cwd: project, env })
      try {
        let at = await term.waitFor(/› *$/)
        term.type("/mcp\r")
        at = await term.waitFor(/secure {2}needs-auth {2}http[\s\S]*› *$/, at)
        term.type("sign me in\r")
        at = await term.waitFor(/Please open the link above\.[\s\S]*› *$/, at)
        const authorizationUrl = /http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(term.screen())![0]

        // the browser: the server approves and sends it back to toolgate's callback on 127.0.0.1
        const callback = (await fetch(authorizationUrl, { redirect: "manual" })).headers.get("location")!
        expect(callback).toMatch(/^http:\/\/localhost:\d+\/callback\?code=/)
        expect(await (await fetch(callback.replace("//localhost:", "//127.0.0.1:"))).text()).toContain(
          "You can close this tab"
        )

        let connected = false
        for (let i = 0; i < 100 && !connected; i++) {
          term.type("/mcp\r")
          at = await term.waitFor(/ {2}secure {2}\S+ {2}http[^\n]*\n[\s\S]*› *$/, at)
          connected = /secure {2}connected {2}http {2}1 tool\n[\s\S]*› *$/.test(term.screen().slice(-400))
        }
        expect(connected).toBe(true)
        term.type("say hello\r")
        at = await term.waitFor(/mcp__secure__echo[\s\S]*hello from secure[\s\S]*All done\.[\s\S]*› *$/, at)
        term.type("\x04")
        expect(await term.exited).toBe(0)
        const store = JSON.parse(fs.readFileSync(path.join(env.HOME!, ".toolgate", "mcp-oauth.json"), "utf8"))
        expect(store[server.url].tokens.token_type).toBe("Bearer")
        expect(server.issued()).toBe(1)
      } finally {
        term.close()
        await server.close()
        fs.rmSync(work, { recursive: true, force: true })
        fs.rmSync(env.HOME!, { recursive: true, force: true })
      }
    },
    120_000
  )
})
