/**
 * McpClients against the tests' own stdio server (test/fixtures/mcp/testServer.mjs): pagination,
 * repeating cursors, list_changed, crashes, startup timeouts, huge output, process groups, name
 * clashes, and calls through the real CallPipeline and Scheduler.
 */
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Queue, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeRule } from "../../../src/PermissionRules.js"
import type { HookInput } from "../../../src/services/Hooks/types.js"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import * as Hooks from "../../../src/services/Hooks.js"
import * as McpClientsModule from "../../../src/services/McpClients.js"
import * as Settings from "../../../src/services/Settings.js"
import { McpClients, type McpServerStatus } from "../../../src/services/McpClients.js"
import { Scheduler, type SchedulerEvent } from "../../../src/services/Scheduler.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import { buildTool, inputJsonSchema } from "../../../src/Tool.js"
import { ReadTool } from "../../../src/tools/index.js"
import { testRuntime, testSession, toolUse } from "../../support/runtime.js"
import {
  aliveAfter,
  eventually,
  isProcessAlive,
  mcpRuntime,
  NODE,
  readPidFile,
  SILENT_SERVER,
  removeTempDirs,
  tempDir,
  testServer
} from "./support.js"

afterAll(removeTempDirs)

const statusOf = (name: string) =>
  Effect.gen(function*() {
    const servers = yield* (yield* McpClients).servers
    return servers.find((s) => s.name === name) as McpServerStatus
  })

const runOne = (name: string, input: unknown, cwd: string, id = "toolu_1") =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const prepared = yield* pipeline.prepare(toolUse(id, name, input), 0)
    return yield* pipeline.run(prepared, { session: testSession(cwd) })
  })

const allow = (cwd: string, ...rules: Array<string>) => rules.map((r) => makeRule(r, "allow", "localSettings", cwd))

describe("McpClients with the test server", () => {
  it.live("lists every page, names and flags the tools conservatively", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const status = yield* statusOf("paged")
      expect(status.state).toBe("connected")
      // 14 built-in fixture tools + 25 extras, served 7 per page
      expect(status.tools).toHaveLength(39)
      expect(status.tools).toContain("mcp__paged__extra_024")
      expect(status.tools).toContain("mcp__paged__dotted_name_with_spaces")
      expect(status.tools.filter((t) => t.length > 64)).toEqual([])
      expect(status.tools.some((t) => /^mcp__paged__a_tool_name_that_is_very_long.*_[0-9a-f]{8}$/.test(t))).toBe(true)
      expect(status.serverInfo).toEqual({ name: "toolgate-test-server", version: "1.0.0" })
      expect(status.scope).toBe("dynamic")

      const pool = yield* (yield* ToolRegistry).pool
      const echo = pool.lookup("mcp__paged__echo")!
      expect(echo.mcp).toEqual({ serverName: "paged", toolName: "echo", source: "dynamic" })
      expect([echo.isReadOnly({}), echo.isConcurrencySafe({}), echo.isDestructive({})]).toEqual([true, true, false])
      expect(echo.interruptBehavior()).toBe("cancel")
      expect(echo.shouldDefer).toBe(true)
      expect(echo.maxResultSizeChars).toBe(100_000)
      expect(inputJsonSchema(echo)).toMatchObject({ type: "object", required: ["message"] })
      const crash = pool.lookup("mcp__paged__crash")!
      expect([crash.isReadOnly({}), crash.isConcurrencySafe({}), crash.isDestructive({})]).toEqual([false, false, true])
      const dotted = pool.lookup("mcp__paged__dotted_name_with_spaces")!
      expect([dotted.isReadOnly({}), dotted.isDestructive({})]).toEqual([false, false])
      expect(dotted.mcp?.toolName).toBe("dotted.name with spaces")
      const meta = pool.lookup("mcp__paged__big_meta")!
      expect(meta.maxResultSizeChars).toBe(500_000)
      expect(meta.shouldDefer).toBe(false)
      // a tool without a rule is not allowed by the tool itself
      expect(yield* echo.checkPermissions({}, {} as never)).toEqual({ _tag: "Passthrough" })
    }).pipe(Effect.provide(mcpRuntime({ cwd, servers: { paged: testServer("--extra-tools=25", "--page-size=7") } })))
  })

  it.live("stops at a repeating cursor with a warning, keeping what it got", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const status = yield* statusOf("loop")
      expect(status.state).toBe("connected")
      expect(status.tools).toHaveLength(20)
      expect(status.warnings.some((w) => w.includes("repeated the cursor \"page-1\""))).toBe(true)
    }).pipe(
      Effect.provide(
        mcpRuntime({ cwd, servers: { loop: testServer("--extra-tools=25", "--page-size=10", "--repeat-cursor") } })
      )
    )
  })

  it.live("skips tools with an invalid schema (with a warning) and loads the others", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const status = yield* statusOf("bad")
      expect(status.state).toBe("connected")
      expect(status.tools).toHaveLength(14)
      expect(status.warnings.find((w) => w.startsWith("tool \"bad_type\" was skipped"))).toContain(
        "not valid JSON Schema"
      )
      expect(status.warnings.find((w) => w.startsWith("tool \"not_object\" was skipped"))).toContain("type \"object\"")
      expect(status.warnings.find((w) => w.startsWith("tool \"task_only\" was skipped"))).toContain("MCP task")
      const notices = yield* (yield* McpClients).notices
      expect(notices.filter((n) => n.startsWith("MCP server \"bad\": tool"))).toHaveLength(3)
    }).pipe(Effect.provide(mcpRuntime({ cwd, servers: { bad: testServer("--bad-schemas") } })))
  })

  it.live("refreshes the pool (all pages) when the server sends tools/list_changed", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const before = yield* statusOf("live")
      expect(before.tools).toHaveLength(15)
      const outcome = yield* runOne("mcp__live__add_tool", { name: "fresh_tool" }, cwd)
      expect(outcome.result.content).toBe("added fresh_tool")
      const registry = yield* ToolRegistry
      const fresh = yield* eventually(Effect.map(registry.pool, (pool) => pool.lookup("mcp__live__fresh_tool")))
      expect(fresh.mcp?.toolName).toBe("fresh_tool")
      const after = yield* statusOf("live")
      expect(after.tools).toHaveLength(16)
      expect(after.tools).toContain("mcp__live__extra_000")
      const ran = yield* runOne("mcp__live__fresh_tool", {}, cwd, "toolu_2")
      expect(ran.result.content).toBe("ran fresh_tool")
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: { live: testServer("--extra-tools=1", "--page-size=4") },
          rules: allow(cwd, "mcp__live")
        })
      )
    )
  })

  it.live("a server that crashes mid-call: the call gets an error result, the server is failed, the others work", () => {
    const cwd = tempDir()
    const pidFile = path.join(cwd, "crashy.json")
    return Effect.gen(function*() {
      const outcome = yield* runOne("mcp__crashy__crash", {}, cwd)
      expect(outcome.result.is_error).toBe(true)
      expect(outcome.error?._tag).toBe("ToolFailed")
      expect(outcome.result.content).toContain("MCP server \"crashy\" disconnected during tools/call crash")
      expect(outcome.result.content).toContain("exited with code 3")
      expect(outcome.result.content).toContain("about to crash")
      const status = yield* eventually(Effect.map(statusOf("crashy"), (s) => (s.state === "failed" ? s : undefined)))
      expect(status.reason).toContain("the connection was lost")
      expect(status.tools).toEqual([])
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("mcp__crashy__echo")).toBeUndefined()
      // the grandchild left behind by the crash is killed with the server's group
      const { grandchild } = readPidFile(pidFile)
      expect(yield* aliveAfter([grandchild])).toEqual([])
      const other = yield* runOne("mcp__steady__echo", { message: "still here" }, cwd, "toolu_2")
      expect(other.result.content).toBe("echo: still here")
      const gone = yield* runOne("mcp__crashy__echo", { message: "x" }, cwd, "toolu_3")
      expect(gone.error?._tag).toBe("UnknownTool")
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: { crashy: testServer("--grandchild", `--pidfile=${pidFile}`), steady: testServer() },
          rules: allow(cwd, "mcp__crashy", "mcp__steady")
        })
      )
    )
  })

  it.live("no server process (nor its children) is left after the scope closes", () => {
    const cwd = tempDir()
    const files = [path.join(cwd, "a.json"), path.join(cwd, "b.json")]
    return Effect.gen(function*() {
      const pids = yield* Effect.provide(
        Effect.gen(function*() {
          const servers = yield* (yield* McpClients).servers
          expect(servers.map((s) => s.state)).toEqual(["connected", "connected"])
          const recorded = files.flatMap((f) => Object.values(readPidFile(f)))
          // the servers' own pids, and (on a leash) the pids of what keeps their namespaces
          const all = [...recorded, ...servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid]))]
          expect(all.every(isProcessAlive)).toBe(true)
          return all
        }),
        mcpRuntime({
          cwd,
          servers: {
            a: testServer("--grandchild", `--pidfile=${files[0]}`),
            b: testServer("--grandchild", `--pidfile=${files[1]}`)
          }
        })
      )
      expect(pids).toHaveLength(6)
      // closing waits for the groups: nothing may be alive right after the scope closed
      expect(pids.filter(isProcessAlive)).toEqual([])
    })
  })

  it.live("a server tool named like a built-in never replaces it", () => {
    const cwd = tempDir()
    const impostor = buildTool({
      name: "mcp__clash__echo",
      inputSchema: Schema.Struct({}),
      description: "a built-in",
      call: () => Effect.succeed({ data: "built-in" })
    })
    return Effect.gen(function*() {
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("Read")).toBe(ReadTool)
      expect(pool.lookup("mcp__clash__Read")?.mcp?.toolName).toBe("Read")
      expect(pool.lookup("mcp__clash__echo")).toBe(impostor)
      expect(pool.removed).toContainEqual({ name: "mcp__clash__echo", reason: "a built-in tool has this name" })
      expect(pool.tools.slice(0, 2).map((t) => t.name)).toEqual(["Read", "mcp__clash__echo"])
    }).pipe(Effect.provide(mcpRuntime({ cwd, builtins: [ReadTool, impostor], servers: { clash: testServer() } })))
  })

  it.live("bad entries, unknown types and missing commands fail alone; the rest of the pool works", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const servers = yield* (yield* McpClients).servers
      const byName = Object.fromEntries(servers.map((s) => [s.name, s]))
      expect(byName.missing).toMatchObject({
        state: "failed",
        reason: "command not found: /nonexistent/toolgate-mcp-server"
      })
      expect(byName.weird).toMatchObject({ state: "failed", type: "carrier-pigeon" })
      expect(byName.weird!.reason).toBe(
        "--mcp-config: server \"weird\": unknown type \"carrier-pigeon\" (expected \"stdio\", \"http\" or \"sse\")"
      )
      expect(byName.exits!.state).toBe("failed")
      expect(byName.exits!.reason).toContain("exited with code 7 before it finished starting")
      expect(byName.fine!.state).toBe("connected")
      const notices = yield* (yield* McpClients).notices
      expect(notices.filter((n) => n.includes("failed:"))).toHaveLength(3)
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: {
            missing: { command: "/nonexistent/toolgate-mcp-server" },
            weird: { type: "carrier-pigeon" },
            exits: { command: NODE, args: ["-e", "process.exit(7)"] },
            fine: testServer()
          }
        })
      )
    )
  })

  it.live("tool names work with mcp__server, mcp__server__* and mcp__server__tool rules; a whole-tool deny removes the tool", () => {
    const cwd = tempDir()
    const rule = (raw: string, behavior: "allow" | "deny") => makeRule(raw, behavior, "localSettings", cwd)
    return Effect.gen(function*() {
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("mcp__a__crash")).toBeUndefined()
      expect(pool.removed.find((r) => r.name === "mcp__a__crash")?.reason).toContain("denied by rule 'mcp__a__crash'")
      const echo = yield* runOne("mcp__a__echo", { message: "1" }, cwd)
      expect(echo.result.content).toBe("echo: 1")
      const fail = yield* runOne("mcp__a__fail", {}, cwd, "toolu_2")
      expect(fail.error?._tag).toBe("ToolFailed")
      const b = yield* runOne("mcp__b__echo", { message: "2" }, cwd, "toolu_3")
      expect(b.result.content).toBe("echo: 2")
      const bRemoved = yield* runOne("mcp__b__image", {}, cwd, "toolu_4")
      expect(bRemoved.error?._tag).toBe("UnknownTool")
      expect(pool.lookup("mcp__b__pids")).toBeDefined()
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: { a: testServer(), b: testServer() },
          rules: [
            rule("mcp__a__*", "allow"),
            rule("mcp__a__crash", "deny"),
            rule("mcp__b__echo", "allow"),
            rule("mcp__b", "allow"),
            rule("mcp__b__image", "deny")
          ]
        })
      )
    )
  })

  it.live("loads .mcp.json (project) and ~/.claude.json (user, local) through the layer, honouring disabledMcpjsonServers", () => {
    const cwd = tempDir()
    const userDir = path.join(cwd, ".claude-user")
    fs.mkdirSync(userDir)
    fs.writeFileSync(
      path.join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: { proj: testServer(), off: testServer(), both: { command: "/nonexistent/project-version" } }
      })
    )
    fs.writeFileSync(
      path.join(userDir, ".claude.json"),
      JSON.stringify({
        mcpServers: { mine: testServer(), both: testServer() },
        projects: { [cwd]: { disabledMcpjsonServers: ["off"] } }
      })
    )
    const runtime = testRuntime({ tools: [], cwd, settings: Settings.layerStatic({ cwd, userConfigDir: userDir }) })
    return Effect.gen(function*() {
      const servers = yield* (yield* McpClients).servers
      expect(servers.map((s) => [s.name, s.scope, s.state])).toEqual([
        ["both", "project", "failed"],
        ["mine", "user", "connected"],
        ["off", "project", "disabled"],
        ["proj", "project", "connected"]
      ])
      expect(servers[2]!.reason).toBe(`disabled by disabledMcpjsonServers in ${path.join(userDir, ".claude.json")}`)
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("mcp__proj__echo")?.mcp?.source).toBe("project")
      expect(pool.lookup("mcp__off__echo")).toBeUndefined()
    }).pipe(
      Effect.provide(
        McpClientsModule.layer({ startupTimeoutMs: 15_000, projectServers: "load" }).pipe(Layer.provideMerge(runtime))
      )
    )
  })
})

// The tests that only call tools and read resources share one server (and one runtime).
describe("McpClients with one shared test server", () => {
  const cwd = tempDir()
  const seen: Array<HookInput> = []
  const record = (event: "PreToolUse" | "PostToolUseFailure") => ({
    event,
    run: (input: HookInput) => Effect.sync(() => void seen.push(input))
  })
  const runtime = mcpRuntime({
    cwd,
    servers: { srv: testServer() },
    rules: allow(
      cwd,
      "mcp__srv__echo",
      "mcp__srv__fail",
      "mcp__srv__structured",
      "mcp__srv__image",
      "mcp__srv__slow",
      "mcp__srv__huge"
    ),
    hooks: Hooks.layerInProcess([record("PreToolUse"), record("PostToolUseFailure")])
  })

  layer(runtime, { excludeTestServices: true })((it) => {
    it.effect("a huge output is capped at MAX_MCP_OUTPUT_TOKENS with the notice, then spilled to a file", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("mcp__srv__huge", { chars: 300_000 }, cwd)
        const text = outcome.result.content as string
        expect(text.startsWith("<persisted-output>\nOutput too large (")).toBe(true)
        const file = /Full output saved to: (.+)\n/.exec(text)![1]!
        const saved = fs.readFileSync(file, "utf8")
        expect(saved.length).toBeLessThan(101_000)
        expect(saved.startsWith("x".repeat(99))).toBe(true)
        expect(saved).toContain("\n\n[OUTPUT TRUNCATED - exceeded 25000 token limit]")
        const small = yield* runOne("mcp__srv__huge", { chars: 30_000 }, cwd, "toolu_2")
        expect(small.result.content).toHaveLength(30_000)
      }))

    it.effect("runs through the Scheduler: rules, asks, isError, structured content, images, progress, hooks see mcp_server", () =>
      Effect.gen(function*() {
        seen.length = 0
        const scheduler = yield* Scheduler
        const events: Array<SchedulerEvent> = []
        const run = yield* scheduler.runMessage(
          [
            toolUse("t1", "mcp__srv__echo", { message: "hi" }),
            toolUse("t2", "mcp__srv__fail", { why: "because" }),
            toolUse("t3", "mcp__srv__echo", { message: 5 }),
            toolUse("t4", "mcp__srv__structured", {}),
            toolUse("t5", "mcp__srv__image", {}),
            toolUse("t6", "mcp__srv__slow", { ms: 200 }),
            toolUse("t7", "mcp__srv__pids", {})
          ],
          { session: testSession(cwd), onEvent: (e) => Effect.sync(() => void events.push(e)) }
        )
        const [echo, fail, bad, structured, image, slow, unallowed] = run.outcomes
        expect(echo!.result).toEqual({ type: "tool_result", tool_use_id: "t1", content: "echo: hi" })
        expect(fail!.result).toEqual({
          type: "tool_result",
          tool_use_id: "t2",
          content: "it failed: because",
          is_error: true
        })
        // the input goes to the server unchecked, as in Claude Code: this server takes the number
        expect(bad!.result.content).toBe("echo: 5")
        expect(structured!.result.content).toBe("{\n  \"temperature\": 21,\n  \"unit\": \"C\"\n}")
        expect(image!.result.content).toEqual([
          { type: "text", text: "a pixel:" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: expect.any(String) } }
        ])
        expect(slow!.result.content).toBe("slept 200")
        const progress = events.flatMap((
          e
        ) => (e._tag === "CallProgress" && e.toolUseId === "t6" ? [e.progress.message] : []))
        expect(progress).toEqual(["1/4 step 1", "2/4 step 2", "3/4 step 3", "4/4 step 4"])
        // no rule for `pids`: the tool asks, and with nothing to ask that is a denial
        expect(unallowed!.error?._tag).toBe("PermissionDenied")
        expect(unallowed!.result.content).toContain("haven't granted it yet")

        const pre = seen.find((h) =>
          h.hook_event_name === "PreToolUse" && (h as { tool_use_id?: string }).tool_use_id === "t1"
        )
        expect(pre).toMatchObject({
          tool_name: "mcp__srv__echo",
          tool_input: { message: "hi" },
          mcp_server: { name: "srv", source: "dynamic" }
        })
        const failures = seen.filter((h) => h.hook_event_name === "PostToolUseFailure")
        expect(failures.map((h) => (h as { tool_use_id?: string }).tool_use_id)).toEqual(["t2"])
        expect(failures[0]).toMatchObject({ mcp_server: { name: "srv" }, error: "it failed: because" })
      }))

    it.effect("resources: ListMcpResourcesTool and ReadMcpResourceTool over connected servers", () =>
      Effect.gen(function*() {
        const list = yield* runOne("ListMcpResourcesTool", {}, cwd)
        const resources = JSON.parse(list.result.content as string)
        expect(resources).toContainEqual({
          uri: "test://notes/readme",
          name: "readme",
          server: "srv",
          mimeType: "text/plain",
          description: "a text resource"
        })
        const text = yield* runOne("ReadMcpResourceTool", { server: "srv", uri: "test://notes/readme" }, cwd, "toolu_2")
        expect(JSON.parse(text.result.content as string)).toEqual({
          contents: [{ uri: "test://notes/readme", mimeType: "text/plain", text: "hello from a resource" }]
        })
        const blob = yield* runOne("ReadMcpResourceTool", { server: "srv", uri: "test://images/pixel" }, cwd, "toolu_3")
        const saved = JSON.parse(blob.result.content as string).contents[0]
        expect(fs.readFileSync(saved.blobSavedTo).subarray(1, 4).toString()).toBe("PNG")
        const unknown = yield* runOne("ReadMcpResourceTool", { server: "nope", uri: "x" }, cwd, "toolu_4")
        expect(unknown.result.content).toBe(
          "Server \"nope\" not found or it offers no resources. Available servers: srv"
        )
      }))
  })
})

// Each waits out a call or startup timeout in real time, with nothing to do meanwhile: they run
// side by side (the servers that must connect meanwhile get 5 s on a loaded machine).
describe.concurrent("McpClients timeouts", () => {
  it.live("an interrupt cancels the running request; a timeout is reported as one", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const interrupts = yield* Queue.unbounded<void>()
      const run = yield* scheduler.runMessage([toolUse("t1", "mcp__srv__slow", { ms: 20_000 })], {
        session: testSession(cwd),
        interrupts: Stream.fromQueue(interrupts),
        onEvent: (
          e
        ) => (e._tag === "CallProgress" || e._tag === "CallStarted" ? Queue.offer(interrupts, undefined) : Effect.void)
      })
      expect(run.interrupted).toBe(true)
      expect(run.outcomes[0]!.error?._tag).toBe("Interrupted")
      // the server is still fine after the cancellation
      const again = yield* runOne("mcp__srv__echo", { message: "after" }, cwd, "toolu_2")
      expect(again.result.content).toBe("echo: after")
      const timedOut = yield* runOne("mcp__srv__slow", { ms: 20_000 }, cwd, "toolu_3")
      expect(timedOut.error?._tag).toBe("ToolFailed")
      expect(timedOut.result.content).toBe("MCP server \"srv\": tools/call slow timed out after 1000 ms")
    }).pipe(
      Effect.provide(
        mcpRuntime({ cwd, servers: { srv: { ...testServer(), timeout: 1000 } }, rules: allow(cwd, "mcp__srv") })
      )
    )
  })

  it.live("MAX_MCP_OUTPUT_TOKENS and MCP_TOOL_TIMEOUT come from the environment (Config)", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const capped = yield* runOne("mcp__srv__huge", { chars: 1000 }, cwd)
      const text = capped.result.content as string
      expect(text.startsWith(`${"x".repeat(99)}\n`)).toBe(true)
      expect(text).toContain("\n\n[OUTPUT TRUNCATED - exceeded 100 token limit]")
      expect(text.indexOf("[OUTPUT TRUNCATED")).toBe(402)
      const slow = yield* runOne("mcp__srv__slow", { ms: 20_000 }, cwd, "toolu_2")
      expect(slow.result.content).toBe("MCP server \"srv\": tools/call slow timed out after 1200 ms")
    }).pipe(
      Effect.provide(mcpRuntime({ cwd, servers: { srv: testServer() }, rules: allow(cwd, "mcp__srv") })),
      Effect.withConfigProvider(
        ConfigProvider.fromMap(new Map([["MAX_MCP_OUTPUT_TOKENS", "100"], ["MCP_TOOL_TIMEOUT", "1200"]]))
      )
    )
  })

  it.live("a server that never answers initialize (and ignores SIGTERM) fails with the startup timeout; its process group is gone", () => {
    const cwd = tempDir()
    const pidFile = path.join(cwd, "silent.json")
    return Effect.gen(function*() {
      const status = yield* Effect.provide(
        Effect.gen(function*() {
          const silent = yield* statusOf("silent")
          const ok = yield* statusOf("ok")
          expect(ok.state).toBe("connected")
          return silent
        }),
        mcpRuntime({
          cwd,
          servers: {
            silent: { command: NODE, args: [SILENT_SERVER, pidFile], env: { IGNORE_SIGTERM: "1" } },
            ok: testServer()
          },
          mcp: { startupTimeoutMs: 5000 }
        })
      )
      expect(status.state).toBe("failed")
      expect(status.reason).toContain("within 5000 ms (MCP_TIMEOUT)")
      expect(status.reason).toContain("silent server started")
      // the connection's scope closed when it failed: SIGTERM, the grace period, then SIGKILL
      const { pid, grandchild } = readPidFile(pidFile)
      expect([isProcessAlive(pid), isProcessAlive(grandchild)]).toEqual([false, false])
    })
  })

  it.live("in the background the layer is ready at once: servers are pending, then their tools join the pool", () => {
    const cwd = tempDir()
    return Effect.gen(function*() {
      const clients = yield* McpClients
      const first = yield* clients.servers
      expect(first.map((s) => s.state)).toEqual(["pending", "pending"])
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("mcp__late__echo")).toBeUndefined()
      yield* clients.started
      const after = yield* clients.servers
      expect(after.map((s) => [s.name, s.state])).toEqual([
        ["late", "connected"],
        ["never", "failed"]
      ])
      expect((yield* (yield* ToolRegistry).pool).lookup("mcp__late__echo")).toBeDefined()
    }).pipe(
      Effect.provide(
        mcpRuntime({
          cwd,
          servers: { late: testServer(), never: { command: NODE, args: [SILENT_SERVER] } },
          mcp: { background: true, startupTimeoutMs: 5000 }
        })
      )
    )
  })
})
