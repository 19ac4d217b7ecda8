/**
 * Helpers for MCP tests: where the servers are, a runtime with the MCP layer, process checks.
 */
import { Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { PermissionRule } from "../../../src/Permission.js"
import type * as Approver from "../../../src/services/Approver.js"
import type * as Hooks from "../../../src/services/Hooks.js"
import * as McpClients from "../../../src/services/McpClients.js"
import * as Settings from "../../../src/services/Settings.js"
import type { AnyTool } from "../../../src/Tool.js"
import { isRecordAlive, type PidRecord } from "../../support/pidRecords.js"
import { makeResourceTools } from "../../../src/tools/mcp/resourceTools.js"
import { testServerScript } from "../../support/mcpTestServer.js"
import { testRuntime } from "../../support/runtime.js"
import type { ShellAnalyzer } from "../../../src/services/ShellAnalyzer.js"

export const NODE = process.execPath
const root = path.resolve(import.meta.dirname, "../../..")
export const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const FILESYSTEM = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
export const SILENT_SERVER = path.join(root, "test/fixtures/mcp/silentServer.mjs")

const created: Array<string> = []

/**
 * Removes the directories `tempDir` made: every test file that makes some calls it in `afterAll`
 * (the files of a worker share this module, so a hook registered here would run for the first only).
 */
export const removeTempDirs = (): void => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

/** A temporary directory (real path), removed after the test file (see `removeTempDirs`). */
export const tempDir = (prefix = "toolgate-mcp-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  created.push(dir)
  return dir
}

export const testServer = (...flags: Array<string>) => ({ command: NODE, args: [testServerScript(), ...flags] })

export interface McpRuntimeOptions {
  readonly cwd: string
  readonly servers: Record<string, unknown>
  readonly builtins?: ReadonlyArray<AnyTool>
  readonly rules?: ReadonlyArray<PermissionRule>
  /** The home directory (`~/.toolgate/mcp-oauth.json` lives there). */
  readonly home?: string
  readonly hooks?: Layer.Layer<Hooks.Hooks, never, ShellAnalyzer>
  readonly approver?: Layer.Layer<Approver.Approver>
  readonly mcp?: Partial<McpClients.McpClientsOptions>
}

/** The test runtime (real pipeline and scheduler) plus the MCP layer with only these servers. */
export const mcpRuntime = (options: McpRuntimeOptions) => {
  const runtime = testRuntime({
    tools: options.builtins ?? [],
    cwd: options.cwd,
    settings: Settings.layerStatic({
      cwd: options.cwd,
      rules: options.rules ?? [],
      ...(options.home === undefined ? {} : { home: options.home })
    }),
    ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    ...(options.approver === undefined ? {} : { approver: options.approver })
  })
  return McpClients.layer({
    mcpConfig: [JSON.stringify({ mcpServers: options.servers })],
    strictMcpConfig: true,
    startupTimeoutMs: 15_000,
    resourceTools: makeResourceTools,
    ...options.mcp
  }).pipe(Layer.provideMerge(runtime))
}

/** Waits (polling) until `check` holds; fails after `ms`. */
export const eventually = <A, R>(
  check: Effect.Effect<A | undefined, never, R>,
  ms = 10_000
): Effect.Effect<A, never, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error("condition not met in time"))
      yield* Effect.sleep(Duration.millis(25))
    }
  })

/** Alive and not a zombie. */
export const isProcessAlive = (pid: number | PidRecord): boolean =>
  isRecordAlive(typeof pid === "number" ? { pid } : pid)

/** Polls until none of the pids is alive (or `ms` passes), then reports which still are. */
export const aliveAfter = (pids: ReadonlyArray<number | PidRecord>, ms = 5000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    while (pids.some(isProcessAlive) && Date.now() < deadline) yield* Effect.sleep(Duration.millis(25))
    return pids.filter(isProcessAlive)
  })

/** What a test server wrote to its pid file: its pid and its child's. */
export const readPidFile = (file: string): { readonly pid: PidRecord; readonly grandchild: PidRecord } =>
  pidRecordsOf(fs.readFileSync(file, "utf8"))

/** The records in a test server's pid JSON (host pids). */
export const pidRecordsOf = (json: string): { readonly pid: PidRecord; readonly grandchild: PidRecord } => {
  const { pid, grandchild } = JSON.parse(json) as { pid: number; grandchild: number }
  return { pid: { pid }, grandchild: { pid: grandchild } }
}
