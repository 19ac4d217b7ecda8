/**
 * needs-auth for remote servers answering 401/403 (the rest of the pool keeps working), and the
 * `toolgate mcp list` command.
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import { vi } from "vitest"
import { mcp } from "../../../src/cli/commands/mcp.js"
import { makeRule } from "../../../src/PermissionRules.js"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import { McpClients } from "../../../src/services/McpClients.js"
import { testSession, toolUse } from "../../support/runtime.js"
import { isProcessAlive, mcpRuntime, readPidFile, removeTempDirs, tempDir, testServer } from "./support.js"

afterAll(removeTempDirs)

/** A local HTTP server (127.0.0.1) that answers every request with `status`; closed with the scope. */
const refusingServer = (status: 401 | 403) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.async<{ readonly server: http.Server; readonly counter: { hits: number } }>((resume) => {
        const counter = { hits: 0 }
        const server = http.createServer((req, res) => {
          counter.hits++
          req.resume()
          res.writeHead(status, status === 401 ? { "WWW-Authenticate": "Bearer realm=\"test\"" } : {})
          res.end(status === 401 ? "Unauthorized" : "Forbidden")
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, counter })))
      }),
      ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    ),
    ({ server, counter }) => ({
      url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`,
      hits: () => counter.hits
    })
  )

/** A port nothing listens on. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

describe("needs-auth", () => {
  it.scopedLive("a remote server answering 401 or 403 needs auth, says what to do, and the rest of the pool works", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const unauthorized = yield* refusingServer(401)
      const forbidden = yield* refusingServer(403)
      const oldSse = yield* refusingServer(401)
      const closedPort = yield* Effect.promise(freePort)
      yield* Effect.gen(function*() {
        const servers = yield* (yield* McpClients).servers
        const byName = Object.fromEntries(servers.map((s) => [s.name, s]))
        expect(byName.locked).toMatchObject({ state: "needs-auth", type: "http" })
        expect(byName.locked!.reason).toContain("answered 401 Unauthorized")
        expect(byName.locked!.reason).toContain("\"Authorization\": \"Bearer ${YOUR_TOKEN}\"")
        expect(byName.forbidden).toMatchObject({ state: "needs-auth" })
        expect(byName.forbidden!.reason).toContain("403 Forbidden")
        expect(byName.oldsse).toMatchObject({ state: "needs-auth", type: "sse" })
        expect(byName.fine!.state).toBe("connected")
        expect(byName.down).toMatchObject({ state: "failed" })
        expect(byName.down!.reason).toContain("ECONNREFUSED")
        expect(unauthorized.hits()).toBeGreaterThan(0)
        const pipeline = yield* CallPipeline
        const call = yield* pipeline.run(
          yield* pipeline.prepare(toolUse("t1", "mcp__fine__echo", { message: "ok" }), 0),
          { session: testSession(cwd) }
        )
        expect(call.result.content).toBe("echo: ok")
        const locked = yield* pipeline.run(yield* pipeline.prepare(toolUse("t2", "mcp__locked__anything", {}), 1), {
          session: testSession(cwd)
        })
        expect(locked.error?._tag).toBe("UnknownTool")
        const notices = yield* (yield* McpClients).notices
        expect(notices.filter((n) => n.includes("needs authentication"))).toHaveLength(3)
      }).pipe(
        Effect.provide(
          mcpRuntime({
            cwd,
            servers: {
              locked: {
                type: "http",
                url: unauthorized.url,
                headers: { Authorization: "Bearer ${TOKEN_THAT_IS_NOT_SET}" }
              },
              forbidden: { type: "http", url: forbidden.url },
              oldsse: { type: "sse", url: oldSse.url },
              down: { type: "http", url: `http://127.0.0.1:${closedPort}/mcp` },
              fine: testServer()
            },
            rules: [makeRule("mcp__fine", "allow", "localSettings", cwd)]
          })
        )
      )
    })
  })
})

describe("toolgate mcp list", () => {
  const run = (args: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const spy = vi.spyOn(console, "log").mockImplementation((...parts: Array<unknown>) =>
        void lines.push(parts.join(" "))
      )
      yield* Command.run(mcp, { name: "toolgate", version: "test" })(["node", "toolgate", ...args]).pipe(
        Effect.provide(NodeContext.layer),
        Effect.ensuring(Effect.sync(() => spy.mockRestore()))
      )
      return lines.join("\n")
    })

  it.scopedLive("prints servers, states, tool counts and errors (JSON and table), and leaves no server process behind", () => {
    const cwd = tempDir()
    const pidFile = path.join(cwd, "fine.json")
    return Effect.gen(function*() {
      const locked = yield* refusingServer(401)
      const config = JSON.stringify({
        mcpServers: {
          fine: testServer("--grandchild", `--pidfile=${pidFile}`),
          locked: { type: "http", url: locked.url },
          weird: { type: "telepathy" }
        }
      })
      const json = yield* run(["list", "--json", "--strict-mcp-config", "--mcp-config", config, "--cwd", cwd])
      const report = JSON.parse(json) as {
        servers: Array<{ name: string; state: string; tools: Array<string>; reason?: string; scope: string }>
      }
      expect(report.servers.map((s) => [s.name, s.state, s.scope])).toEqual([
        ["fine", "connected", "dynamic"],
        ["locked", "needs-auth", "dynamic"],
        ["weird", "failed", "dynamic"]
      ])
      expect(report.servers[0]!.tools).toContain("mcp__fine__echo")
      expect(report.servers[2]!.reason).toContain("unknown type \"telepathy\"")
      const { pid, grandchild } = readPidFile(pidFile)
      expect([isProcessAlive(pid), isProcessAlive(grandchild)]).toEqual([false, false])

      const table = yield* run(["list", "--strict-mcp-config", "--mcp-config", config, "--cwd", cwd])
      expect(table).toMatch(/fine\s+dynamic\s+stdio\s+\S*connected\S*\s+14/)
      expect(table).toContain("needs auth")
      expect(table).toContain("the model can sign in to it (mcp__<server>__authenticate)")
      expect(table).toContain("unknown type \"telepathy\"")
    })
  })

  it.scopedLive("a broken --mcp-config fails the command with a clear error", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const result = yield* Effect.either(run(["list", "--mcp-config", "{broken", "--cwd", cwd]))
      expect(result._tag).toBe("Left")
      expect(result._tag === "Left" && (result.left as { reason?: string }).reason).toContain(
        "--mcp-config (inline JSON): invalid JSON"
      )
    }))
})
