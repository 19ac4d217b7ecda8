/**
 * The MCP servers of a runtime: configuration from every scope, connections
 * made concurrently under the startup timeout (`MCP_TIMEOUT`), each in its own Scope (closing it
 * ends the server's whole process group), and each server's tools registered in the ToolRegistry
 * under the source `mcp:<server>` — replaced when the server says its tools changed, removed when
 * it fails. The pipeline and the scheduler then run MCP tools like any other.
 *
 * Each server has a state with a reason: `pending` (connecting), `connected`, `failed`,
 * `needs-auth` (a remote server answered 401/403), `disabled` (by configuration),
 * `needs-approval` (a project server from `.mcp.json` nobody approved: it never starts).
 * Project servers start only once approved (settings, `--trust-project`, or `approve`: a person
 * asked now, whose answer is saved to the local settings as Claude Code does).
 * When any connected server offers resources, ListMcpResourcesTool and ReadMcpResourceTool are
 * registered too (source `mcp-resources`).
 *
 * @since 0.1.0
 */
import { positiveIntSetting } from "../internal/config.js"
import { Context, Deferred, Effect, ExecutionStrategy, Exit, FiberSet, Layer, Ref, Scope } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import type { BadRequest } from "../Errors.js"
import type { McpScope, McpServerConfig } from "./McpClients/config.js"
import { makeAuthTools } from "./McpClients/authTools.js"
import { hasStoredTokens, makeProvider, oauthStoreFile } from "./McpClients/oauth.js"
import { makeSignIns } from "./McpClients/signIn.js"
import {
  type ConfiguredServer,
  loadMcpConfig,
  type McpConfiguration,
  type ProjectServerChoice,
  type ProjectServerPolicy,
  saveProjectServerChoice
} from "./McpClients/configSources.js"
import {
  connectServer,
  listAllPages,
  request,
  type ConnectFailure,
  type McpProgress,
  type ServerConnection
} from "./McpClients/connection.js"
import type { ProcessWrapper } from "./Sandbox.js"
import { McpRequestError } from "./McpClients/errors.js"
import type { McpCallResult } from "./McpClients/results.js"
import { DEFAULT_MAX_MCP_OUTPUT_TOKENS } from "./McpClients/results.js"
import { loadSdk, type McpSdk } from "./McpClients/sdk.js"
import { buildServerTools } from "./McpClients/serverTools.js"
import type { AnyTool } from "../Tool.js"
import { Settings } from "./Settings.js"
import { ToolRegistry } from "./ToolRegistry.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface McpResourceEntry {
  readonly uri: string
  readonly name: string
  readonly server: string
  readonly mimeType?: string
  readonly description?: string
}

/**
 * What these tools need of the MCP clients (the service is one).
 *
 * @since 0.1.0
 * @category models
 */
export interface McpResourceAccess {
  /** Connected servers that offer resources. */
  readonly resourceServers: Effect.Effect<ReadonlyArray<string>>
  readonly listResources: (server: string) => Effect.Effect<ReadonlyArray<McpResourceEntry>, McpRequestError>
  readonly readResource: (
    server: string,
    uri: string
  ) => Effect.Effect<{ readonly contents: ReadonlyArray<Record<string, unknown>> }, McpRequestError>
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpServerState = "connected" | "failed" | "needs-auth" | "pending" | "disabled" | "needs-approval"

/**
 * @since 0.1.0
 * @category models
 */
export interface McpServerStatus {
  readonly name: string
  readonly scope: McpScope
  /** The file the entry came from (or `--mcp-config`). */
  readonly origin: string
  /** `stdio`, `http`, `sse`, or what the entry wrongly said. */
  readonly type: string
  readonly state: McpServerState
  /** Why a server is failed, needs-auth or disabled, and what to do about it. */
  readonly reason?: string
  /** The model-facing names of its registered tools. */
  readonly tools: ReadonlyArray<string>
  /** Tools skipped, cursors repeated, config oddities. */
  readonly warnings: ReadonlyArray<string>
  readonly serverInfo?: { readonly name: string; readonly version: string }
  /** The stdio server's pid (also its process group id). */
  readonly pid?: number
  readonly hasResources: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpCallOptions {
  readonly onProgress?: (progress: McpProgress) => void
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpClientsService {
  /** Every configured server with its state, sorted by name. */
  readonly servers: Effect.Effect<ReadonlyArray<McpServerStatus>>
  /** Files that could not be used, and warnings about the configuration. */
  readonly configuration: { readonly errors: ReadonlyArray<string>; readonly warnings: ReadonlyArray<string> }
  /** Lines for the person at start-up: configuration problems, failed and needs-auth servers. */
  readonly notices: Effect.Effect<ReadonlyArray<string>>
  /** Completes once every server has been tried (at once unless connecting in the background). */
  readonly started: Effect.Effect<void>
  readonly callTool: (
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: McpCallOptions
  ) => Effect.Effect<McpCallResult, McpRequestError>
  readonly resourceServers: Effect.Effect<ReadonlyArray<string>>
  readonly listResources: (server: string) => Effect.Effect<ReadonlyArray<McpResourceEntry>, McpRequestError>
  readonly readResource: (
    server: string,
    uri: string
  ) => Effect.Effect<{ readonly contents: ReadonlyArray<Record<string, unknown>> }, McpRequestError>
  /** Lists a server's tools again (all pages) and replaces them in the registry. */
  readonly refreshTools: (server: string) => Effect.Effect<void, McpRequestError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class McpClients extends Context.Tag("toolgate/McpClients")<McpClients, McpClientsService>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpClientsOptions {
  /** The project directory; defaults to the settings' start directory. */
  readonly cwd?: string
  /** `--mcp-config`: files or inline JSON objects. */
  readonly mcpConfig?: ReadonlyArray<string>
  /** `--strict-mcp-config`: only the servers of `mcpConfig`. */
  readonly strictMcpConfig?: boolean
  /** Default `approved`: a project server starts only once approved; `load` starts them all (Claude Code's `-p`). */
  readonly projectServers?: ProjectServerPolicy
  /**
   * Asks about project servers that need approval, before anything starts (a person at a
   * terminal). Each answer is saved to the local settings; no answer (undefined) leaves the
   * server unapproved. `only` limits the questions to the servers a command needs.
   */
  readonly approve?: {
    readonly ask: (server: PendingProjectServer) => Effect.Effect<ProjectServerChoice | undefined>
    readonly only?: (name: string) => boolean
  }
  /** Defaults to `~/.claude.json`, or `.claude.json` in the configured user config directory. */
  readonly claudeJsonFile?: string
  /** For `${VAR}` expansion and the environment of stdio servers; defaults to this process's. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Overrides `MCP_TIMEOUT` (ms, default 30000). */
  readonly startupTimeoutMs?: number
  /** Overrides `MCP_TOOL_TIMEOUT` (ms, default 100000000). */
  readonly toolTimeoutMs?: number
  /** Overrides `MAX_MCP_OUTPUT_TOKENS` (default 25000). */
  readonly maxOutputTokens?: number
  /** Overrides the settings' workspace trust (for project server approval). */
  readonly trusted?: boolean
  /**
   * Connect in the background: the layer is ready at once, servers show as `pending` and their
   * tools join the pool as each connects (`started` completes when all were tried). By default
   * the layer waits, so the first model turn sees every tool.
   */
  readonly background?: boolean
  /**
   * The tools over servers' resources (ListMcpResourcesTool, ReadMcpResourceTool), joined to the
   * pool while a connected server offers resources; none without it.
   */
  readonly resourceTools?: (access: McpResourceAccess) => ReadonlyArray<AnyTool>
  /**
   * A remote server that needs a sign-in gets `mcp__<server>__authenticate` (and
   * `…__complete_authentication`) in the pool, so the model can start an OAuth flow for the
   * person (an interactive session, as in Claude Code). Off by default.
   */
  readonly offerAuthentication?: boolean
  /** Puts each stdio server into a sandbox (a served session's); by default servers run as they are. */
  readonly wrapProcess?: ProcessWrapper
  /** `false`: remote (http, sse) servers are not connected (the server's own network would reach them). */
  readonly remoteServers?: boolean
}

/**
 * A project server waiting for approval, as a person is shown it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingProjectServer {
  readonly name: string
  /** The `.mcp.json` it comes from. */
  readonly origin: string
  readonly config: McpServerConfig
}

/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 100_000_000
const LOCAL_CONNECT_CONCURRENCY = 3
const REMOTE_CONNECT_CONCURRENCY = 20

/**
 * `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT`, `MAX_MCP_OUTPUT_TOKENS` and the connect batch sizes.
 *
 * @since 0.1.0
 * @category utils
 */
export const mcpConfigValues = Effect.all({
  startupTimeoutMs: positiveIntSetting("MCP_TIMEOUT", DEFAULT_STARTUP_TIMEOUT_MS),
  toolTimeoutMs: positiveIntSetting("MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT_MS),
  maxOutputTokens: positiveIntSetting("MAX_MCP_OUTPUT_TOKENS", DEFAULT_MAX_MCP_OUTPUT_TOKENS),
  localConcurrency: positiveIntSetting("MCP_SERVER_CONNECTION_BATCH_SIZE", LOCAL_CONNECT_CONCURRENCY),
  remoteConcurrency: positiveIntSetting("MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE", REMOTE_CONNECT_CONCURRENCY)
})

/**
 * @since 0.1.0
 * @category utils
 */
export const sourceOf = (server: string) => `mcp:${server}`
/**
 * @since 0.1.0
 * @category constants
 */
export const RESOURCE_TOOLS_SOURCE = "mcp-resources"

interface Live {
  readonly sdk: McpSdk
  readonly connection: ServerConnection
  readonly scope: Scope.CloseableScope
  readonly config: McpServerConfig
  readonly server: ConfiguredServer
  readonly refreshLock: Effect.Semaphore
  /** Set once the connection is being closed on purpose (or was lost and handled). */
  closing: boolean
}

interface Entry {
  readonly status: McpServerStatus
  readonly live?: Live
}

const initialStatus = (server: ConfiguredServer): McpServerStatus => {
  const base = {
    name: server.name,
    scope: server.scope,
    origin: server.origin,
    type: server.entry._tag === "Ok" ? server.entry.config.type : (server.entry.type ?? "stdio"),
    tools: [],
    warnings: [],
    hasResources: false
  }
  if (server.entry._tag === "Invalid") {
    return { ...base, state: "failed", reason: `${server.origin}: server "${server.name}": ${server.entry.reason}` }
  }
  if (server.disabledReason !== undefined) return { ...base, state: "disabled", reason: server.disabledReason }
  if (server.needsApproval === true) return { ...base, state: "needs-approval", reason: needsApprovalReason(server) }
  return { ...base, state: "pending" }
}

const needsApprovalReason = (server: ConfiguredServer): string =>
  `not started: nobody approved this project server (${server.origin}); approve it when toolgate asks on a terminal, ` +
  `add "${server.name}" to enabledMcpjsonServers in .claude/settings.local.json, or pass --trust-project`

/**
 * The lines `toolgate` prints at start-up about MCP.
 *
 * @since 0.1.0
 * @category utils
 */
export const noticesOf = (
  configuration: McpClientsService["configuration"],
  servers: ReadonlyArray<McpServerStatus>
): ReadonlyArray<string> => [
  ...configuration.errors.map((e) => `MCP config error: ${e}`),
  ...configuration.warnings.map((w) => `MCP config warning: ${w}`),
  ...servers.flatMap((s) => {
    if (s.state === "failed") return [`MCP server "${s.name}" failed: ${s.reason ?? "unknown reason"}`]
    if (s.state === "needs-auth") return [`MCP server "${s.name}" needs authentication: ${s.reason ?? ""}`]
    if (s.state === "needs-approval") return [`MCP server "${s.name}" needs approval: ${s.reason ?? ""}`]
    return s.warnings.map((w) => `MCP server "${s.name}": ${w}`)
  })
]

const defaultClaudeJson = (userConfigDir: string, home: string): string =>
  path.resolve(userConfigDir) === path.resolve(home, ".claude")
    ? path.join(home, ".claude.json")
    : path.join(userConfigDir, ".claude.json")

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: McpClientsOptions = {}) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const registry = yield* ToolRegistry
    const loaded = yield* settings.current
    const values = yield* mcpConfigValues
    const startupTimeoutMs = options.startupTimeoutMs ?? values.startupTimeoutMs
    const toolTimeoutMs = options.toolTimeoutMs ?? values.toolTimeoutMs
    const maxOutputTokens = options.maxOutputTokens ?? values.maxOutputTokens
    const env = options.env ?? process.env
    const cwd = path.resolve(options.cwd ?? loaded.cwd)
    const home = loaded.home ?? os.homedir()

    const configuration: McpConfiguration = yield* loadMcpConfig({
      cwd,
      ...(options.mcpConfig === undefined ? {} : { mcpConfig: options.mcpConfig }),
      ...(options.strictMcpConfig === undefined ? {} : { strictMcpConfig: options.strictMcpConfig }),
      claudeJsonFile: options.claudeJsonFile ?? defaultClaudeJson(loaded.userConfigDir, home),
      env,
      settingsSources: loaded.sources,
      trusted: options.trusted ?? loaded.trusted === true,
      projectServers: options.projectServers ?? "approved"
    })
    const approved = yield* askApprovals(configuration, options.approve, loaded.localSettingsFile)

    const state = yield* Ref.make<ReadonlyMap<string, Entry>>(
      new Map(approved.servers.map((s) => [s.name, { status: initialStatus(s) }]))
    )
    const layerScope = yield* Effect.scope
    const runInBackground = yield* FiberSet.makeRuntime<never>()

    const update = (name: string, f: (entry: Entry) => Entry) =>
      Ref.update(state, (current) => {
        const entry = current.get(name)
        if (entry === undefined) return current
        const next = new Map(current)
        next.set(name, f(entry))
        return next
      })

    const servers = Effect.map(Ref.get(state), (current) =>
      Array.from(current.values(), (e) =>
        e.status).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))

    const liveOf = (server: string, label: string) =>
      Effect.flatMap(Ref.get(state), (current) => {
        const entry = current.get(server)
        if (entry?.live !== undefined && !entry.live.closing) {
          return Effect.succeed(entry.live)
        }
        const why = entry === undefined
          ? "is not configured"
          : `is not connected (${entry.status.state}${
            entry.status.reason === undefined ? "" : `: ${entry.status.reason}`
          })`
        return Effect.fail(
          new McpRequestError({
            server,
            request: label,
            kind: "not-connected",
            reason: `MCP server "${server}" ${why}`
          })
        )
      })

    const resourceServers = Effect.map(Ref.get(state), (current) =>
      Array.from(current.values())
        .filter((e) =>
          e.live !== undefined && !e.live.closing && e.status.hasResources
        )
        .map((e) => e.status.name)
        .sort())

    const listResources = Effect.fn("McpClients.listResources")(function*(server: string) {
      const live = yield* liveOf(server, "resources/list")
      const listed = yield* listAllPages(live.sdk, live.connection, "resources/list", "resources", toolTimeoutMs)
      return listed.items.flatMap((item): Array<McpResourceEntry> => {
        const r = item as Record<string, unknown>
        if (typeof r.uri !== "string") return []
        return [
          {
            uri: r.uri,
            name: typeof r.name === "string" ? r.name : r.uri,
            server,
            ...(typeof r.mimeType === "string" ? { mimeType: r.mimeType } : {}),
            ...(typeof r.description === "string" ? { description: r.description } : {})
          }
        ]
      })
    })

    const readResource = Effect.fn("McpClients.readResource")(function*(server: string, uri: string) {
      const live = yield* liveOf(server, "resources/read")
      return yield* request<{ readonly contents: ReadonlyArray<Record<string, unknown>> }>(
        live.sdk,
        live.connection,
        "resources/read",
        { uri },
        live.sdk.ReadResourceResultSchema,
        { timeoutMs: live.config.timeout ?? toolTimeoutMs, label: `resources/read ${uri}` }
      )
    })

    const callTool = Effect.fn("McpClients.callTool")(function*(
      server: string,
      tool: string,
      args: Record<string, unknown>,
      callOptions?: McpCallOptions
    ) {
      const label = `tools/call ${tool}`
      const live = yield* liveOf(server, label)
      return yield* request<McpCallResult>(
        live.sdk,
        live.connection,
        "tools/call",
        { name: tool, arguments: args },
        live.sdk.CallToolResultSchema,
        {
          timeoutMs: live.config.timeout ?? toolTimeoutMs,
          label,
          ...(callOptions?.onProgress === undefined ? {} : { onProgress: callOptions.onProgress })
        }
      )
    })

    const access: McpResourceAccess = { resourceServers, listResources, readResource }
    const resourceTools = options.resourceTools?.(access) ?? []
    const syncResourceTools = Effect.flatMap(
      resourceServers,
      (names) => registry.setSource(RESOURCE_TOOLS_SOURCE, names.length > 0 ? resourceTools : [])
    )

    /** Lists all pages of a server's tools and builds them. */
    const loadTools = (live: Live) =>
      Effect.gen(function*() {
        if (live.connection.client.getServerCapabilities()?.tools === undefined) {
          return { tools: [], warnings: [] as ReadonlyArray<string> }
        }
        const listed = yield* listAllPages(live.sdk, live.connection, "tools/list", "tools", startupTimeoutMs)
        const built = buildServerTools(live.sdk, listed.items, {
          serverName: live.server.name,
          scope: live.server.scope,
          alwaysLoad: live.config.alwaysLoad,
          maxOutputTokens,
          call: (toolName) => (args, onProgress) => callTool(live.server.name, toolName, args, { onProgress })
        })
        return { tools: built.tools, warnings: [...listed.warnings, ...built.warnings] }
      })

    const refreshTools = Effect.fn("McpClients.refreshTools")(function*(server: string) {
      const live = yield* liveOf(server, "tools/list")
      yield* live.refreshLock.withPermits(1)(
        Effect.gen(function*() {
          const { tools, warnings } = yield* loadTools(live)
          if (live.closing) return
          yield* registry.setSource(sourceOf(server), tools)
          yield* update(
            server,
            (e) => ({ ...e, status: { ...e.status, tools: tools.map((t) => t.name).sort(), warnings } })
          )
        })
      )
    })

    /** The connection ended without us closing it: the server is failed and its tools go. */
    const lost = (live: Live) =>
      Effect.gen(function*() {
        if (live.closing) return
        live.closing = true
        const name = live.server.name
        yield* registry.setSource(sourceOf(name), [])
        yield* update(name, (e) => ({
          status: {
            ...e.status,
            state: "failed",
            reason: `the connection was lost: ${live.connection.describeClose()}`,
            tools: []
          }
        }))
        yield* syncResourceTools
        yield* Scope.close(live.scope, Exit.void)
      })

    const oauthStore = oauthStoreFile(home)
    const signIns = makeSignIns(oauthStore, (effect) => void runInBackground(effect))
    yield* Effect.addFinalizer(() => Effect.sync(signIns.closeAll))
    /** Connects a server again after a sign-in: why it is still not connected, if it is not. */
    const reconnect = (server: ConfiguredServer, config: McpServerConfig, sdk: McpSdk) =>
      Effect.zipRight(
        connectOne(server, config, sdk),
        Effect.map(Ref.get(state), (current) => {
          const status = current.get(server.name)?.status
          return status?.state === "connected" ? undefined : (status?.reason ?? "not connected")
        })
      )

    const connectOne = (server: ConfiguredServer, config: McpServerConfig, sdk: McpSdk): Effect.Effect<void> =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(layerScope, ExecutionStrategy.sequential)
        // a server signed in before connects with its token (refreshed when it expires)
        const authProvider = config.type !== "stdio" && hasStoredTokens(oauthStore, config.url)
          ? makeProvider(oauthStore, config.url, "http://localhost/callback")
          : undefined
        const context = {
          cwd,
          env,
          startupTimeoutMs,
          ...(authProvider === undefined ? {} : { authProvider }),
          ...(options.wrapProcess === undefined ? {} : { wrapProcess: options.wrapProcess })
        }
        const connected = yield* (config.type !== "stdio" && options.remoteServers === false
          ? Effect.fail<ConnectFailure>({
            state: "failed",
            reason: "remote MCP servers are not allowed here (only stdio servers, which run in the sandbox)"
          })
          : connectServer(sdk, server.name, config, context)).pipe(Scope.extend(scope), Effect.either)
        if (connected._tag === "Left") {
          yield* Scope.close(scope, Exit.void)
          yield* update(
            server.name,
            (e) => ({ status: { ...e.status, state: connected.left.state, reason: connected.left.reason } })
          )
          if (
            connected.left.state === "needs-auth" && options.offerAuthentication === true && config.type !== "stdio"
          ) {
            const signIn = signIns.signInFor(sdk, {
              server: server.name,
              url: config.url,
              reconnect: reconnect(server, config, sdk)
            })
            const stubs = makeAuthTools(server.name, config.type, config.url, signIn)
            yield* registry.setSource(sourceOf(server.name), stubs)
            yield* update(server.name, (e) => ({ status: { ...e.status, tools: stubs.map((t) => t.name) } }))
          }
          return
        }
        const connection = connected.right
        const live: Live = {
          sdk,
          connection,
          scope,
          config,
          server,
          refreshLock: yield* Effect.makeSemaphore(1),
          closing: false
        }
        // runs before the client is closed (finalizers run in reverse order)
        yield* Scope.addFinalizer(scope, Effect.sync(() => (live.closing = true)))
        connection.client.onclose = () => {
          runInBackground(lost(live))
        }
        connection.client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
          runInBackground(refreshTools(server.name).pipe(Effect.ignore))
        })
        const loadedTools = yield* Effect.either(loadTools(live))
        if (loadedTools._tag === "Left" || connection.client.transport === undefined) {
          live.closing = true
          yield* Scope.close(scope, Exit.void)
          const reason = loadedTools._tag === "Left"
            ? `could not list its tools: ${loadedTools.left.reason}`
            : `the connection was lost: ${connection.describeClose()}`
          yield* update(server.name, (e) => ({ status: { ...e.status, state: "failed", reason } }))
          return
        }
        const { tools, warnings } = loadedTools.right
        const info = connection.client.getServerVersion()
        yield* registry.setSource(sourceOf(server.name), tools)
        yield* update(server.name, (e) => ({
          live,
          status: {
            name: e.status.name,
            scope: e.status.scope,
            origin: e.status.origin,
            type: e.status.type,
            state: "connected",
            tools: tools.map((t) => t.name).sort(),
            warnings,
            hasResources: connection.client.getServerCapabilities()?.resources !== undefined,
            ...(info === undefined ? {} : { serverInfo: { name: info.name, version: info.version } }),
            ...(connection.pid === undefined ? {} : { pid: connection.pid })
          }
        }))
        yield* syncResourceTools
      })

    const startable = approved.servers.flatMap((s) =>
      s.entry._tag === "Ok" && s.disabledReason === undefined && s.needsApproval !== true
        ? [{ server: s, config: s.entry.config }]
        : []
    )
    const started = yield* Deferred.make<void>()
    const connectAll = Effect.gen(function*() {
      if (startable.length === 0) return
      const sdk = yield* loadSdk
      const local = startable.filter((s) => s.config.type === "stdio")
      const remote = startable.filter((s) => s.config.type !== "stdio")
      yield* Effect.all(
        [
          Effect.forEach(local, (s) => connectOne(s.server, s.config, sdk), {
            concurrency: values.localConcurrency,
            discard: true
          }),
          Effect.forEach(remote, (s) => connectOne(s.server, s.config, sdk), {
            concurrency: values.remoteConcurrency,
            discard: true
          })
        ],
        { concurrency: 2, discard: true }
      )
    }).pipe(Effect.ensuring(Deferred.succeed(started, undefined)))
    if (options.background === true) yield* Effect.forkIn(connectAll, layerScope)
    else yield* connectAll
    // Runs first on shutdown: the registry stops offering tools of servers about to go away.
    yield* Effect.addFinalizer(() =>
      Effect.forEach(
        [...configuration.servers.map((s) => sourceOf(s.name)), RESOURCE_TOOLS_SOURCE],
        (source) => registry.setSource(source, []),
        { discard: true }
      )
    )

    const service: McpClientsService = {
      servers,
      configuration: { errors: configuration.errors, warnings: approved.warnings },
      notices: Effect.map(
        servers,
        (list) => noticesOf({ errors: configuration.errors, warnings: approved.warnings }, list)
      ),
      started: Deferred.await(started),
      callTool,
      resourceServers,
      listResources,
      readResource,
      refreshTools
    }
    return McpClients.of(service)
  })

/**
 * Asks about each project server that needs approval (in name order), saving every answer to the
 * local settings. "approve-all" approves the rest without more questions; a failed save keeps
 * the answer for this run and becomes a warning.
 */
const askApprovals = (
  configuration: McpConfiguration,
  approve: McpClientsOptions["approve"],
  localSettingsFile: string
): Effect.Effect<McpConfiguration> =>
  Effect.gen(function*() {
    if (approve === undefined) return configuration
    const warnings = [...configuration.warnings]
    let all = false
    const servers: Array<ConfiguredServer> = []
    for (const server of configuration.servers) {
      if (
        server.needsApproval !== true || server.entry._tag !== "Ok" ||
        (approve.only !== undefined && !approve.only(server.name))
      ) {
        servers.push(server)
        continue
      }
      const choice = all
        ? "approve"
        : yield* approve.ask({ name: server.name, origin: server.origin, config: server.entry.config })
      if (choice === undefined) {
        servers.push(server)
        continue
      }
      if (!all) {
        const saved = yield* Effect.either(saveProjectServerChoice(localSettingsFile, server.name, choice))
        if (saved._tag === "Left") {
          warnings.push(
            `your answer about "${server.name}" applies to this run only: it could not be saved (${saved.left.reason})`
          )
        }
      }
      if (choice === "approve-all") all = true
      const { needsApproval: _, ...rest } = server
      servers.push(
        choice === "reject"
          ? { ...rest, disabledReason: `rejected (saved to disabledMcpjsonServers in ${localSettingsFile})` }
          : rest
      )
    }
    return { ...configuration, servers, warnings }
  })

/**
 * Connects every configured server while the layer is built (bounded by `MCP_TIMEOUT`; or in the
 * background, see `background`) and keeps them until the layer's scope closes. A broken `--mcp-config` is a BadRequest; everything else
 * about a server is its state.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: McpClientsOptions = {}): Layer.Layer<McpClients, BadRequest, ToolRegistry | Settings> =>
  Layer.scoped(McpClients, make(options))

/**
 * No MCP servers.
 *
 * @since 0.1.0
 * @category utils
 */
export const none: McpClientsService = {
  servers: Effect.succeed([]),
  configuration: { errors: [], warnings: [] },
  notices: Effect.succeed([]),
  started: Effect.void,
  callTool: (server, tool) =>
    Effect.fail(
      new McpRequestError({
        server,
        request: `tools/call ${tool}`,
        kind: "not-connected",
        reason: `MCP server "${server}" is not configured`
      })
    ),
  resourceServers: Effect.succeed([]),
  listResources: (server) =>
    Effect.fail(
      new McpRequestError({
        server,
        request: "resources/list",
        kind: "not-connected",
        reason: `MCP server "${server}" is not configured`
      })
    ),
  readResource: (server) =>
    Effect.fail(
      new McpRequestError({
        server,
        request: "resources/read",
        kind: "not-connected",
        reason: `MCP server "${server}" is not configured`
      })
    ),
  refreshTools: (server) =>
    Effect.fail(
      new McpRequestError({
        server,
        request: "tools/list",
        kind: "not-connected",
        reason: `MCP server "${server}" is not configured`
      })
    )
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<McpClients> = Layer.succeed(McpClients, none)

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ProjectServerChoice
} from "./McpClients/configSources.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  toolPrefix
} from "./McpClients/naming.js"
export {
  /**
   * @since 0.1.0
   * @category errors
   */
  McpRequestError
} from "./McpClients/errors.js"
