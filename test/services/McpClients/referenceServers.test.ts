/**
 * McpClients against the reference servers from npm: @modelcontextprotocol/server-everything
 * over stdio and over Streamable HTTP (127.0.0.1), and @modelcontextprotocol/server-filesystem.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Queue, Stream } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { makeRule } from "../../../src/PermissionRules.js"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import { FileState } from "../../../src/services/FileState.js"
import { McpClients, type McpServerStatus } from "../../../src/services/McpClients.js"
import { Scheduler, type SchedulerEvent } from "../../../src/services/Scheduler.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import type { ToolProgress } from "../../../src/Tool.js"
import { testSession, toolUse } from "../../support/runtime.js"
import {
  aliveAfter,
  EVERYTHING,
  FILESYSTEM,
  isProcessAlive,
  mcpRuntime,
  NODE,
  removeTempDirs,
  tempDir
} from "./support.js"

afterAll(removeTempDirs)

const runOne = (name: string, input: unknown, cwd: string, id = "toolu_1") =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const prepared = yield* pipeline.prepare(toolUse(id, name, input), 0)
    return yield* pipeline.run(prepared, { session: testSession(cwd) })
  })

const statusOf = (name: string) =>
  Effect.map(
    Effect.flatMap(McpClients, (c) => c.servers),
    (list) => list.find((s) => s.name === name) as McpServerStatus
  )

/** Calls a tool directly (not through the pipeline), to see its raw ToolResult. */
const callDirect = (name: string, input: unknown, cwd: string, onProgress?: (p: ToolProgress) => void) =>
  Effect.gen(function*() {
    const tool = (yield* (yield* ToolRegistry).pool).lookup(name)!
    const fileState = yield* FileState
    return yield* tool.call(input, {
      toolUseId: "direct",
      session: testSession(cwd),
      fileState,
      reportProgress: (p) => Effect.sync(() => onProgress?.(p))
    })
  })

const everythingStdio = { command: NODE, args: [EVERYTHING, "stdio"] }

describe("server-everything over stdio", () => {
  const cwd = tempDir()
  const rules = [
    makeRule("mcp__everything", "allow", "localSettings", cwd),
    makeRule("mcp__hasty", "allow", "localSettings", cwd)
  ]
  const runtime = mcpRuntime({
    cwd,
    servers: { everything: everythingStdio, hasty: { ...everythingStdio, timeout: 1000 } },
    rules
  })

  layer(runtime, { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("lists its tools with normalised names and conservative flags", () =>
      Effect.gen(function*() {
        const status = yield* statusOf("everything")
        expect(status.state).toBe("connected")
        expect(status.serverInfo?.name).toBe("mcp-servers/everything")
        expect(status.tools).toContain("mcp__everything__echo")
        expect(status.tools).toContain("mcp__everything__get-sum")
        expect(status.tools).toContain("mcp__everything__trigger-long-running-operation")
        expect(status.tools).not.toContain("mcp__everything__simulate-research-query")
        expect(status.warnings.some((w) => w.includes("\"simulate-research-query\" was skipped"))).toBe(true)
        expect(status.hasResources).toBe(true)
        const pool = yield* (yield* ToolRegistry).pool
        const echo = pool.lookup("mcp__everything__echo")!
        expect([echo.isReadOnly({}), echo.isConcurrencySafe({}), echo.isDestructive({})]).toEqual([true, true, false])
        const toggle = pool.lookup("mcp__everything__toggle-simulated-logging")!
        expect([toggle.isReadOnly({}), toggle.isConcurrencySafe({}), toggle.isDestructive({})]).toEqual([
          false,
          false,
          false
        ])
        expect(pool.lookup("ListMcpResourcesTool")).toBeDefined()
      }))

    it.effect("calls a tool; a bad argument goes to the server unchecked (as in Claude Code) and its refusal comes back", () =>
      Effect.gen(function*() {
        const echo = yield* runOne("mcp__everything__echo", { message: "hi" }, cwd)
        expect(echo.result).toEqual({ type: "tool_result", tool_use_id: "toolu_1", content: "Echo: hi" })
        const bad = yield* runOne("mcp__everything__get-sum", { a: "1", c: 2 }, cwd)
        expect(bad.result.is_error).toBe(true)
        expect(bad.result.content).toContain("Invalid arguments for tool get-sum")
        const sum = yield* runOne("mcp__everything__get-sum", { a: 2, b: 3 }, cwd)
        expect(sum.result.content).toContain("5")
      }))

    it.effect("an isError result is a tool failure", () =>
      Effect.gen(function*() {
        // `format: uri` is left to the server, which refuses the value with an isError result
        const failed = yield* runOne("mcp__everything__gzip-file-as-resource", { name: "x.gz", data: "not a uri" }, cwd)
        expect(failed.error?._tag).toBe("ToolFailed")
        expect(failed.result.is_error).toBe(true)
        expect(failed.result.content).toContain("Invalid URL")
      }))

    it.effect("structured content reaches the result and mcpMeta; images become image blocks", () =>
      Effect.gen(function*() {
        const result = yield* callDirect("mcp__everything__get-structured-content", { location: "Chicago" }, cwd)
        expect(result.mcpMeta?.structuredContent).toMatchObject({ temperature: expect.any(Number) })
        expect(JSON.parse(result.data as string)).toEqual(result.mcpMeta?.structuredContent)
        const image = yield* runOne("mcp__everything__get-tiny-image", {}, cwd)
        expect(Array.isArray(image.result.content) && image.result.content.some((b) => b.type === "image")).toBe(true)
      }))

    it.effect("progress notifications become tool progress", () =>
      Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const events: Array<SchedulerEvent> = []
        const run = yield* scheduler.runMessage([
          toolUse("p1", "mcp__everything__trigger-long-running-operation", { duration: 0.4, steps: 4 })
        ], {
          session: testSession(cwd),
          onEvent: (e) => Effect.sync(() => void events.push(e))
        })
        expect(run.outcomes[0]!.result.is_error).toBeUndefined()
        expect(events.flatMap((e) => (e._tag === "CallProgress" ? [e.progress.message] : []))).toEqual([
          "1/4",
          "2/4",
          "3/4",
          "4/4"
        ])
      }))

    it.effect("a call over the server's timeout fails as a timeout; the server keeps working", () =>
      Effect.gen(function*() {
        const slow = yield* runOne("mcp__hasty__trigger-long-running-operation", { duration: 30, steps: 3 }, cwd)
        expect(slow.error?._tag).toBe("ToolFailed")
        expect(slow.result.content).toBe(
          "MCP server \"hasty\": tools/call trigger-long-running-operation timed out after 1000 ms"
        )
        const after = yield* runOne("mcp__hasty__echo", { message: "still" }, cwd, "toolu_2")
        expect(after.result.content).toBe("Echo: still")
      }))

    it.effect("an interrupt cancels the request", () =>
      Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const interrupts = yield* Queue.unbounded<void>()
        // a progress notification every 100 ms: the first shows the request is running on the server
        const run = yield* scheduler.runMessage([
          toolUse("i1", "mcp__everything__trigger-long-running-operation", { duration: 30, steps: 300 })
        ], {
          session: testSession(cwd),
          interrupts: Stream.fromQueue(interrupts),
          onEvent: (e) => (e._tag === "CallProgress" ? Queue.offer(interrupts, undefined) : Effect.void)
        })
        expect(run.interrupted).toBe(true)
        expect(run.outcomes[0]!.error?._tag).toBe("Interrupted")
        const after = yield* runOne("mcp__everything__echo", { message: "after" }, cwd, "toolu_2")
        expect(after.result.content).toBe("Echo: after")
      }))

    it.effect("ListMcpResourcesTool lists its resources", () =>
      Effect.gen(function*() {
        const list = yield* runOne("ListMcpResourcesTool", { server: "everything" }, cwd)
        const resources = JSON.parse(list.result.content as string) as Array<{ server: string; uri: string }>
        expect(resources.length).toBeGreaterThan(0)
        expect(resources.every((r) => r.server === "everything")).toBe(true)
        const read = yield* runOne(
          "ReadMcpResourceTool",
          { server: "everything", uri: resources[0]!.uri },
          cwd,
          "toolu_2"
        )
        expect(JSON.parse(read.result.content as string).contents[0].text.length).toBeGreaterThan(0)
      }))
  })
})

/** A free port on 127.0.0.1 (the server is then told to use it). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const waitForHttp = async (url: string, ms: number) => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      await fetch(url, { method: "GET" })
      return
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not come up`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

describe("server-everything over Streamable HTTP", () => {
  let child: ChildProcess | undefined
  let url = ""

  it.live("connects, lists, calls and gets progress over HTTP", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      // it listens on every interface (no host option); it is stopped by pid below
      child = spawn(NODE, [EVERYTHING, "streamableHttp"], {
        env: { ...process.env, PORT: String(port) },
        stdio: "ignore",
        detached: true
      })
      url = `http://127.0.0.1:${port}/mcp`
      yield* Effect.promise(() => waitForHttp(url, 15_000))
      yield* Effect.gen(function*() {
        const status = yield* statusOf("remote")
        expect(status).toMatchObject({ state: "connected", type: "http", scope: "dynamic" })
        expect(status.tools).toContain("mcp__remote__echo")
        expect(status.pid).toBeUndefined()
        const echo = yield* runOne("mcp__remote__echo", { message: "over http" }, cwd)
        expect(echo.result.content).toBe("Echo: over http")
        const progress: Array<string> = []
        const done = yield* callDirect(
          "mcp__remote__trigger-long-running-operation",
          { duration: 0.4, steps: 4 },
          cwd,
          (p) => progress.push(p.message)
        )
        expect(progress).toEqual(["1/4", "2/4", "3/4", "4/4"])
        expect(String(done.data)).toContain("completed")
      }).pipe(
        Effect.provide(
          mcpRuntime({
            cwd,
            servers: { remote: { type: "http", url } },
            rules: [makeRule("mcp__remote", "allow", "localSettings", cwd)]
          })
        )
      )
    }).pipe(
      Effect.ensuring(
        Effect.gen(function*() {
          const pid = child?.pid
          if (pid === undefined) return
          try {
            process.kill(-pid, "SIGTERM")
          } catch {
            // already gone
          }
          const left = yield* aliveAfter([pid], 5000)
          if (left.length > 0) process.kill(-pid, "SIGKILL")
          yield* Effect.sleep(Duration.millis(10))
          expect(isProcessAlive(pid)).toBe(false)
        })
      )
    )
  })
})

describe("server-filesystem", () => {
  it.live("maps its annotations, reads inside the allowed directory, and turns 'Access denied' into a tool failure", () => {
    const cwd = tempDir()
    const allowed = fs.realpathSync(tempDir("toolgate-fs-root-"))
    fs.writeFileSync(path.join(allowed, "a.txt"), "hello\n")
    return Effect.gen(function*() {
      const pool = yield* (yield* ToolRegistry).pool
      const read = pool.lookup("mcp__fs__read_text_file")!
      const write = pool.lookup("mcp__fs__write_file")!
      const mkdir = pool.lookup("mcp__fs__create_directory")!
      expect([read.isReadOnly({}), read.isConcurrencySafe({}), read.isDestructive({})]).toEqual([true, true, false])
      expect([write.isReadOnly({}), write.isConcurrencySafe({}), write.isDestructive({})]).toEqual([false, false, true])
      expect([mkdir.isReadOnly({}), mkdir.isDestructive({})]).toEqual([false, false])
      const ok = yield* runOne("mcp__fs__read_text_file", { path: path.join(allowed, "a.txt") }, cwd)
      expect(ok.result.content).toBe("hello\n")
      const denied = yield* runOne("mcp__fs__read_text_file", { path: "/etc/hostname" }, cwd, "toolu_2")
      expect(denied.error?._tag).toBe("ToolFailed")
      expect(denied.result.content).toContain("Access denied")
      // write_file has no rule: it asks, and with nothing to ask it is denied; nothing is written
      const write1 = yield* runOne(
        "mcp__fs__write_file",
        { path: path.join(allowed, "b.txt"), content: "x" },
        cwd,
        "toolu_3"
      )
      expect(write1.error?._tag).toBe("PermissionDenied")
      expect(fs.existsSync(path.join(allowed, "b.txt"))).toBe(false)
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: { fs: { command: NODE, args: [FILESYSTEM, allowed] } },
          rules: [makeRule("mcp__fs__read_text_file", "allow", "localSettings", cwd)]
        })
      )
    )
  })
})
