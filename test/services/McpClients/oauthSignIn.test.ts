/**
 * Signing in to a remote MCP server that needs OAuth, against a real OAuth-protected MCP server
 * on 127.0.0.1: `mcp__<server>__authenticate` gives the model the URL, the browser's return to
 * the callback (or the pasted address through `mcp__<server>__complete_authentication`, always
 * asked) finishes the sign-in, the server's own tools replace the stubs, and the token is kept
 * for the next session.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Approver from "../../../src/services/Approver.js"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import { McpClients } from "../../../src/services/McpClients.js"
import { makeRule } from "../../../src/PermissionRules.js"
import { startOAuthMcpServer } from "../../support/oauthMcpServer.js"
import { testSession, toolUse } from "../../support/runtime.js"
import { eventually, mcpRuntime, removeTempDirs, tempDir } from "./support.js"

afterAll(removeTempDirs)

const oauthServer = Effect.acquireRelease(Effect.promise(startOAuthMcpServer), (server) => Effect.promise(server.close))

const AUTH_TOOLS = ["mcp__secure__authenticate", "mcp__secure__complete_authentication"]

const call = (cwd: string, id: string, name: string, input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const done = yield* pipeline.run(yield* pipeline.prepare(toolUse(id, name, input), 0), {
      session: testSession(cwd)
    })
    return {
      text: typeof done.result.content === "string" ? done.result.content : JSON.stringify(done.result.content),
      isError: done.result.is_error === true
    }
  })

const secureStatus = Effect.flatMap(
  McpClients,
  (clients) => Effect.map(clients.servers, (list) => list.find((s) => s.name === "secure")!)
)

/** The authorization URL in authenticate's result. */
const urlIn = (text: string) => text.split("\n").find((line) => line.startsWith("http://"))!

/** What a browser does with the authorization URL: the server approves and redirects to the callback address. */
const authorize = (authorizationUrl: string) =>
  Effect.promise(async () => {
    const answer = await fetch(authorizationUrl, { redirect: "manual" })
    return answer.headers.get("location")!
  })

/** The browser loading the callback address (localhost is the 127.0.0.1 listener). */
const visit = (callbackUrl: string) =>
  Effect.promise(() => fetch(callbackUrl.replace("//localhost:", "//127.0.0.1:")).then((r) => r.text()))

const allowAll = Approver.layerCallback(() => Effect.succeed({ behavior: "allow", scope: "once" }))

describe("signing in to an MCP server", () => {
  it.scopedLive("the model starts the sign-in, the browser comes back, the server's tools replace the stubs; the next session connects with the kept token", () => {
    const cwd = tempDir()
    const home = tempDir()
    return Effect.gen(function*() {
      const server = yield* oauthServer
      const servers = { secure: { type: "http", url: server.url } }
      const rules = [makeRule("mcp__secure__echo", "allow", "localSettings", cwd)]
      yield* Effect.gen(function*() {
        const before = yield* secureStatus
        expect(before.state).toBe("needs-auth")
        expect([...before.tools].sort()).toEqual(AUTH_TOOLS)

        const started = yield* call(cwd, "t1", "mcp__secure__authenticate", {})
        expect(started.isError).toBe(false)
        expect(started.text).toMatch(
          /^Ask the user to open this URL in their browser to authorize the secure MCP server:\n\nhttp:\/\/127\.0\.0\.1:\d+\/authorize\?/
        )
        expect(started.text).toContain(
          "Once they complete the flow, the server's tools will become available automatically."
        )
        expect(started.text).toContain("call `mcp__secure__complete_authentication` with it.")

        const page = yield* visit(yield* authorize(urlIn(started.text)))
        expect(page).toContain("You can close this tab")
        const after = yield* eventually(Effect.map(secureStatus, (s) => (s.state === "connected" ? s : undefined)))
        expect(after.tools).toEqual(["mcp__secure__echo"])
        expect(yield* call(cwd, "t2", "mcp__secure__echo", { message: "signed in" })).toEqual({
          text: "signed in",
          isError: false
        })
        const gone = yield* call(cwd, "t3", "mcp__secure__authenticate", {})
        expect(gone.isError).toBe(true)
      }).pipe(Effect.provide(mcpRuntime({ cwd, home, servers, rules, mcp: { offerAuthentication: true } })))

      const store = path.join(home, ".toolgate", "mcp-oauth.json")
      expect(fs.statSync(store).mode & 0o777).toBe(0o600)
      expect(JSON.parse(fs.readFileSync(store, "utf8"))[server.url].tokens.access_token).toBeTypeOf("string")

      // a later session (print mode: no sign-in tools) connects with the kept token, no new sign-in
      yield* Effect.gen(function*() {
        expect((yield* secureStatus).state).toBe("connected")
        expect(yield* call(cwd, "t4", "mcp__secure__echo", { message: "again" })).toEqual({
          text: "again",
          isError: false
        })
      }).pipe(Effect.provide(mcpRuntime({ cwd, home, servers, rules })))
      expect(server.issued()).toBe(1)
    })
  })

  it.scopedLive("a pasted callback address finishes the sign-in once the person approves it; a wrong or foreign one is refused with Claude Code's texts", () => {
    const cwd = tempDir()
    const home = tempDir()
    return Effect.gen(function*() {
      const server = yield* oauthServer
      yield* Effect.gen(function*() {
        const noFlow = yield* call(cwd, "c0", "mcp__secure__complete_authentication", {
          callback_url: "http://localhost:1/callback?code=x&state=y"
        })
        expect(noFlow.text).toContain(
          "No OAuth flow is in progress for secure; it may have timed out. Call `mcp__secure__authenticate` to start a new one"
        )

        const started = yield* call(cwd, "c1", "mcp__secure__authenticate", {})
        const callbackUrl = yield* authorize(urlIn(started.text))

        const noCode = yield* call(cwd, "c2", "mcp__secure__complete_authentication", {
          callback_url: "http://localhost:1/callback?state=abc"
        })
        expect(noCode.text).toBe(
          "Invalid callback URL: missing authorization code. Ask the user to paste the full redirect URL from their browser's address bar, including the `?code=...&state=...` query string."
        )
        const foreign = new URL(callbackUrl)
        foreign.searchParams.set("state", "someone-elses")
        const wrongState = yield* call(cwd, "c3", "mcp__secure__complete_authentication", {
          callback_url: foreign.href
        })
        expect(wrongState.text).toContain(
          "That callback URL belongs to a different sign-in attempt for secure (its state does not match the flow in progress)"
        )
        expect((yield* secureStatus).state).toBe("needs-auth")

        const done = yield* call(cwd, "c4", "mcp__secure__complete_authentication", { callback_url: callbackUrl })
        expect(done).toEqual({
          text: "Authentication complete for secure. The server's tools should now be available.",
          isError: false
        })
        expect((yield* secureStatus).state).toBe("connected")
        expect(yield* call(cwd, "c5", "mcp__secure__echo", { message: "pasted" })).toEqual({
          text: "pasted",
          isError: false
        })
      }).pipe(
        Effect.provide(
          mcpRuntime({
            cwd,
            home,
            servers: { secure: { type: "http", url: server.url } },
            mcp: { offerAuthentication: true },
            approver: allowAll
          })
        )
      )
    })
  })

  it.scopedLive("with nobody to approve it, a pasted callback address is refused and the server stays signed out", () => {
    const cwd = tempDir()
    const home = tempDir()
    return Effect.gen(function*() {
      const server = yield* oauthServer
      yield* Effect.gen(function*() {
        const started = yield* call(cwd, "d1", "mcp__secure__authenticate", {})
        const callbackUrl = yield* authorize(urlIn(started.text))
        const refused = yield* call(cwd, "d2", "mcp__secure__complete_authentication", { callback_url: callbackUrl })
        expect(refused.isError).toBe(true)
        expect((yield* secureStatus).state).toBe("needs-auth")
        expect(server.issued()).toBe(0)
      }).pipe(
        Effect.provide(
          mcpRuntime({
            cwd,
            home,
            servers: { secure: { type: "http", url: server.url } },
            mcp: { offerAuthentication: true }
          })
        )
      )
    })
  })

  it.scopedLive("without sign-in tools (print mode), a server that needs a sign-in offers none", () => {
    const cwd = tempDir()
    const home = tempDir()
    return Effect.gen(function*() {
      const server = yield* oauthServer
      yield* Effect.gen(function*() {
        const status = yield* secureStatus
        expect(status.state).toBe("needs-auth")
        expect(status.tools).toEqual([])
        expect((yield* call(cwd, "p1", "mcp__secure__authenticate", {})).isError).toBe(true)
      }).pipe(Effect.provide(mcpRuntime({ cwd, home, servers: { secure: { type: "http", url: server.url } } })))
    })
  })
})
