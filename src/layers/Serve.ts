/**
 * `toolgate serve` as one layer: SQL storage (SQLite in the state folder, or PostgreSQL), the
 * cluster (one embedded runner, or a runner among several on PostgreSQL), the Sessions stage
 * with its entity, the per-session runtimes (the same stages as
 * `toolgate run`, with durable model turns and calls and the remote approver), and the HTTP API.
 */
import { RunnerAddress, type ShardingConfig } from "@effect/cluster"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { ConfigError } from "effect"
import { Cause, Console, Duration, Effect, Either, Layer, Option, type Redacted, Stream } from "effect"
import * as fs from "node:fs"
import { createServer, type Server } from "node:http"
import * as path from "node:path"
import * as Agent from "../services/Agent.js"
import { SubagentModels, parseSubagentScripts } from "../services/Agent.js"
import { Approver } from "../services/Approver.js"
import {
  anthropicFromConfig,
  ModelClient,
  ModelNotConfigured,
  parseScript,
  type ModelClientService
} from "../services/ModelClient.js"
import * as Hooks from "../services/Hooks.js"
import * as Sandbox from "../services/Sandbox.js"
import * as Settings from "../services/Settings.js"
import type { AnyTool } from "../Tool.js"
import { builtinTools } from "../tools/index.js"
import * as Sessions from "../services/Sessions.js"
import {
  confineTool,
  refuseTool,
  durableCalls,
  durableModel,
  EventLog,
  Handlers,
  RunnerSocket,
  Http,
  makeRemoteApprover,
  layerRuns,
  SessionRuntimes,
  makePositionedScripted,
  ServeSettings,
  SessionStore,
  ShardLease,
  StorageFaults,
  Drain,
  type Confinement
} from "../services/Sessions.js"
import type { ServePolicy } from "../ServePolicy.js"
import * as ShellAnalyzer from "../services/ShellAnalyzer.js"
import * as AgentTool from "../tools/AgentTool.js"
import * as BackgroundTasks from "../tools/background/BackgroundTasks.js"
import * as Runtime from "./Runtime.js"
import { BadRequest } from "../Errors.js"

export type Storage =
  | { readonly _tag: "Sqlite"; readonly file: string }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted }

export interface ServeOptions {
  readonly storage: Storage
  /** Session folders live in `<stateDir>/sessions/<id>`. */
  readonly stateDir: string
  /** Sessions may only work in folders inside this one (a real path; undefined: anywhere). */
  readonly workspaceRoot: string | undefined
  readonly approvalTimeoutMs: number
  readonly http: Http.HttpGuards & { readonly host: string; readonly port: number }
  /** Run as one runner of a cluster (PostgreSQL storage): the address the other runners reach it at. */
  readonly runner?: {
    readonly host: string
    readonly port: number
    /** The interface runner-to-runner messages are accepted on (default: `host`). */
    readonly listenHost?: string
    /** Every runner of the cluster sends it first on each connection; a connection without it is closed. */
    readonly secret: Redacted.Redacted
  }
  /** The server's bearer token; undefined only for `--no-auth` on loopback. */
  readonly serverToken: Redacted.Redacted | undefined
  /** What a create request may ask for. */
  readonly policy: ServePolicy
  /** The server's own files and folders (real paths): never part of a session. */
  readonly serverPaths: ReadonlyArray<string>
  /** The environment of sessions' processes (already scrubbed). */
  readonly sessionEnv: Readonly<Record<string, string>>
  /** Where sessions' processes run; undefined: on the host (`--unsandboxed`). */
  readonly sandbox: Sandbox.SandboxAvailable | undefined
  /** Sessions idle this long are deleted (undefined: never). */
  readonly sessionTtlMs?: number
  /** A session's runtime no input uses (and with no background shell running) is released after this long. */
  readonly runtimeIdleMs?: number
  /** New inputs get 429 while this many run on this runner (undefined: no limit). */
  readonly maxRunningInputs?: number
  /** Cluster timings and sizes (the same on every runner). */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]>
  /** How often an event stream looks for events written by other runners. */
  readonly eventPollInterval?: Duration.DurationInput
  /** On SIGTERM: stop taking input, let running inputs finish, then say so (the caller stops the server). */
  readonly drain?: Drain.DrainOptions
  /** A runner whose shard lease ran out must stop at once (default: the process exits). */
  readonly onLeaseLost?: (message: string) => void
  /** Told the address the HTTP API listens on, once it does. */
  readonly onListening?: (url: string) => Effect.Effect<void>
}

/** How long open requests may go on once the server stops. */
const SHUTDOWN_GRACE = Duration.millis(500)

/** Ends this process at once (its exit hooks kill what it started): its shard lease ran out. */
const stopProcess = (message: string) => {
  process.stderr.write(`toolgate serve: ${message}\n`)
  process.exit(75)
}

/** Shards per group, the same on every runner (the cluster's default is 300). */
export const DEFAULT_SHARDS = 64

type Deps = SessionStore.SessionStore | Sessions.Runs | ShardLease.ShardLease

/** A model that cannot answer: a session without a script on a server without ANTHROPIC_API_KEY runs tool_use inputs only. */
const noModel = (reason: string): ModelClientService => ({
  model: "none",
  stream: () => Stream.fail(new ModelNotConfigured({ reason }))
})

/** An absolute Glob pattern searches under its own fixed prefix (`/etc/*.conf` under /etc), whatever `path` says. */
const globPatternBase = (input: { readonly pattern?: unknown }): ReadonlyArray<string> => {
  if (typeof input.pattern !== "string" || !path.isAbsolute(input.pattern)) return []
  const parts = input.pattern.split("/")
  const fixed = parts.findIndex((part) => /[*?[\]{}]/.test(part))
  return [path.resolve(fixed === -1 ? input.pattern : parts.slice(0, fixed).join("/") || "/")]
}

/** The tools that touch nothing of the host but the session's own folder (or only the model's API). */
const HOSTLESS_TOOLS = new Set([
  "AskUserQuestion",
  "TodoWrite",
  "ToolSearch",
  "Sleep",
  "WebSearch",
  "TaskOutput",
  "TaskStop"
])

/**
 * The built-in tools as a served session has them: Bash runs in the session's sandbox; tools that
 * work on files in this process are held to the session's directories; WebFetch only when the
 * server allows the network; anything else not listed here is refused rather than trusted.
 */
const servedTools = (
  confinement: Confinement,
  network: boolean,
  searchSandbox: Sandbox.ProcessWrapper | undefined
): ReadonlyArray<AnyTool> =>
  builtinTools.map((tool) => {
    if (tool.name === "Bash" || HOSTLESS_TOOLS.has(tool.name)) return tool
    if (tool.name === "WebFetch") {
      return network
        ? tool
        : refuseTool(tool, "WebFetch is not available: this server keeps its sessions off the network")
    }
    if (tool.name === "Glob") return confineTool(tool, confinement, globPatternBase, searchSandbox)
    if (tool.footprint !== undefined) return confineTool(tool, confinement, undefined, searchSandbox)
    return refuseTool(tool, `${tool.name} is not available in a served session`)
  })

const sessionRuntime = (
  options: {
    readonly sessionId: string
    readonly config: SessionRuntimes.StoredConfig
    readonly grantedRules: ReadonlyArray<string>
  },
  deps: Layer.Layer<Deps>,
  shell: Layer.Layer<ShellAnalyzer.ShellAnalyzer>,
  serve: ServeSettings.ServeSettingsService
): Layer.Layer<SessionRuntimes.SessionServices, SessionRuntimes.SessionUnavailable> => {
  const { config, sessionId } = options
  const { policy } = serve
  const unavailable = (reason: string) => new SessionRuntimes.SessionUnavailable({ sessionId, reason })
  const speed = config.replaySpeed ?? 1
  const timeScale = speed <= 0 ? 0 : 1 / speed
  const script = config.script === undefined ? undefined : parseScript("script", config.script)
  const inner = script === undefined
    ? anthropicFromConfig(config.model).pipe(
      Effect.catchTag("ModelNotConfigured", (e) => Effect.succeed(noModel(e.reason)))
    )
    : Either.match(script, {
      onLeft: (e) => Effect.fail(unavailable(`script: ${e.message}`)),
      onRight: (s) => Effect.succeed(makePositionedScripted({ script: s, cwd: config.cwd, timeScale }))
    })
  const model = Layer.effect(ModelClient, Effect.map(inner, (client) => durableModel(client)))
  const subagents = config.script === undefined
    ? SubagentModels.layerAnthropicConfig
    : Either.match(parseSubagentScripts("script", config.script), {
      onLeft: (e) => Layer.fail(unavailable(`script: ${e.message}`)),
      onRight: (scripts) =>
        SubagentModels.layerScriptedFrom(scripts, { cwd: config.cwd, timeScale }).pipe(
          Layer.mapError((e) => unavailable(e.message))
        )
    })
  // what the session may reach comes from the server and the checked create request, never from settings files
  fs.mkdirSync(config.sessionDir, { recursive: true })
  const confinement: Confinement = {
    writable: [config.cwd, ...(config.addDirs ?? [])],
    readOnly: policy.readOnlyPaths,
    own: fs.realpathSync(config.sessionDir),
    hidden: serve.serverPaths
  }
  const profile: Sandbox.ServedProfile | undefined = serve.sandbox === undefined
    ? undefined
    : {
      bwrapPath: serve.sandbox.bwrapPath,
      seccompHelper: serve.sandbox.seccompHelper,
      workingDirectories: confinement.writable,
      readOnly: [...confinement.readOnly, confinement.own],
      hidden: serve.serverPaths,
      network: policy.network
    }
  const sandbox = Sandbox.served(
    profile,
    serve.sandbox ?? { _tag: "Unavailable", reason: "toolgate serve --unsandboxed" }
  )
  const env = serve.sessionEnv
  // hooks of the request's settings and of the project's files run only where the server allows them
  const hooks = Layer.scoped(
    Hooks.Hooks,
    Effect.gen(function*() {
      const settings = yield* Settings.Settings
      const sources = Effect.map(
        settings.current,
        (loaded) =>
          policy.hooks
            ? loaded.sources
            : loaded.sources.filter((s) => s.source === "policySettings" || s.source === "userSettings")
      )
      return yield* Hooks.make({ sources, env, wrapProcess: sandbox.wrapProcess })
    })
  )
  const runtime = Runtime.layer({
    cwd: config.cwd,
    settings: config.settings === undefined
      ? []
      : [typeof config.settings === "string" ? config.settings : JSON.stringify(config.settings)],
    allowedTools: [...(config.allowedTools ?? []), ...options.grantedRules],
    disallowedTools: config.disallowedTools ?? [],
    addDirs: config.addDirs ?? [],
    trustProject: (config.trustProject ?? false) && policy.trustProject,
    ...(config.permissionMode === undefined ? {} : { permissionMode: config.permissionMode }),
    userConfigDir: serve.configDir,
    // ripgrep of Grep and Glob runs in the session's sandbox when there is one
    tools: servedTools(confinement, policy.network, profile === undefined ? undefined : sandbox.wrapProcess),
    processEnv: env,
    sandbox: Layer.succeed(Sandbox.Sandbox, sandbox),
    hooks,
    mcp: policy.mcp
      ? {
        cwd: config.cwd,
        env,
        wrapProcess: sandbox.wrapProcess,
        remoteServers: false,
        claudeJsonFile: path.join(serve.configDir, ".claude.json")
      }
      : false,
    extensions: { disabled: true },
    shellAnalyzer: shell,
    approver: Layer.effect(Approver, makeRemoteApprover(sessionId)).pipe(Layer.provide(deps)),
    wrapCallPipeline: (pipeline) => durableCalls(pipeline).pipe(Effect.provide(deps))
  })
  // background shells keep the runtime from being released while idle
  const activity = Layer.effect(
    SessionRuntimes.RuntimeActivity,
    Effect.map(BackgroundTasks.BackgroundTasks, (tasks) => ({
      busy: Effect.map(tasks.list, (list) => list.some((task) => task.status === "running"))
    }))
  )
  return Layer.mergeAll(Agent.layer, AgentTool.layer(), activity).pipe(
    Layer.provideMerge(subagents),
    Layer.provideMerge(model),
    Layer.provideMerge(runtime),
    Layer.catchAll((e) =>
      Layer.fail(
        e instanceof SessionRuntimes.SessionUnavailable
          ? e
          : unavailable(String((e as { message?: unknown }).message ?? e))
      )
    )
  )
}

const layerRuntimeBuilder: Layer.Layer<
  SessionRuntimes.SessionRuntimeBuilder,
  never,
  Deps | ServeSettings.ServeSettings
> = Layer.effect(
  SessionRuntimes.SessionRuntimeBuilder,
  Effect.gen(function*() {
    const deps = Layer.succeedContext(yield* Effect.context<Deps>())
    // One parser for every session of this runner (loaded on the first Bash call of any of them)
    const shell = Layer.succeed(ShellAnalyzer.ShellAnalyzer, yield* ShellAnalyzer.make)
    const serve = yield* ServeSettings.ServeSettings
    return SessionRuntimes.SessionRuntimeBuilder.of({ build: (options) => sessionRuntime(options, deps, shell, serve) })
  })
)

/**
 * The database drivers are optional packages (a library user installs neither): each loads when a
 * server starts on its storage, and a missing one is named with what to install.
 */
const loadDriver = <A>(load: () => Promise<A>, storage: string, driver: string) =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new BadRequest({
        reason:
          `${storage} storage needs the ${driver} package, which is not installed (${
            cause instanceof Error ? cause.message.split("\n")[0] : String(cause)
          }): ` +
          `install it where toolgate is installed, e.g. \`npm install ${driver}\` (\`npm install -g ${driver}\` for a global toolgate)`
      })
  })

const layerSql = (
  storage: Storage
): Layer.Layer<SqlClient.SqlClient, SqlError | ConfigError.ConfigError | BadRequest> => {
  if (storage._tag === "Postgres") {
    return Layer.unwrapEffect(
      Effect.map(
        loadDriver(() => import("@effect/sql-pg"), "PostgreSQL", "pg"),
        ({ PgClient }) => PgClient.layer({ url: storage.url, applicationName: "toolgate" })
      )
    )
  }
  const file = storage.file
  return Layer.unwrapEffect(
    Effect.map(loadDriver(() => import("@effect/sql-sqlite-node"), "SQLite", "better-sqlite3"), ({ SqliteClient }) => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      // a database that cannot be opened is named (the driver's words alone do not say which)
      return SqliteClient.layer({ filename: file }).pipe(
        Layer.catchAllCause((cause) =>
          Layer.fail(
            new BadRequest({ reason: `SQLite storage ${file}: ${StorageFaults.faultText(Cause.squash(cause))}` })
          )
        )
      )
    })
  )
}

/** This runner's name among the runners (`host:port`), or the one-process server's. */
export const runnerName = (runner: { readonly host: string; readonly port: number } | undefined): string =>
  runner === undefined ? ServeSettings.EMBEDDED_RUNNER : `${runner.host}:${runner.port}`

const layerCluster = (options: ServeOptions) => {
  // a message to an entity on this runner is handed over as it is (the cluster's default encodes
  // and decodes it, as if it came from another runner: a check for tests)
  const sharding = { shardsPerGroup: DEFAULT_SHARDS, simulateRemoteSerialization: false, ...options.sharding }
  if (options.runner === undefined) {
    return Layer.merge(StorageFaults.layerSingleRunner(sharding), ShardLease.layerNone)
  }
  const { runner } = options
  return RunnerSocket.layer({
    secret: runner.secret,
    onLeaseLost: options.onLeaseLost ?? stopProcess,
    shardingConfig: {
      ...sharding,
      runnerAddress: Option.some(RunnerAddress.make(runner.host, runner.port)),
      runnerListenAddress: Option.some(RunnerAddress.make(runner.listenHost ?? runner.host, runner.port))
    }
  })
}

/** Everything but the HTTP server: what a runner needs to run sessions and what the API calls. */
export const layerSessions = (options: ServeOptions) => {
  const runner = runnerName(options.runner)
  const storage = Layer.merge(layerCluster(options), SessionStore.layer).pipe(
    Layer.provideMerge(Layer.merge(layerSql(options.storage), StorageFaults.layerHealth))
  )
  const core = Layer.mergeAll(
    EventLog.layer(options.eventPollInterval === undefined ? {} : { pollInterval: options.eventPollInterval }),
    layerRuns,
    ServeSettings.layer({
      runner,
      stateDir: options.stateDir,
      workspaceRoot: options.workspaceRoot,
      approvalTimeoutMs: options.approvalTimeoutMs,
      policy: options.policy,
      serverPaths: options.serverPaths,
      sessionEnv: options.sessionEnv,
      sandbox: options.sandbox,
      configDir: path.join(options.stateDir, "claude"),
      shardsPerGroup: options.sharding?.shardsPerGroup ?? DEFAULT_SHARDS,
      sessionTtlMs: options.sessionTtlMs,
      maxRunningInputs: options.maxRunningInputs
    })
  ).pipe(Layer.provideMerge(storage))
  const runtimes = SessionRuntimes.layer(
    options.runtimeIdleMs === undefined ? {} : { idleTimeToLive: Duration.millis(options.runtimeIdleMs) }
  ).pipe(Layer.provide(layerRuntimeBuilder), Layer.provideMerge(core))
  const drain = options.drain === undefined ? Layer.empty : Drain.layer(options.drain)
  return Layer.mergeAll(Handlers.layer, Sessions.layer, drain).pipe(Layer.provideMerge(runtimes))
}

/** The HTTP API on its port, over `layerSessions`. */
export const layer = (options: ServeOptions) => {
  const runner = runnerName(options.runner)
  let nodeServer: Server | undefined
  const server = NodeHttpServer.layer(() => {
    const s = createServer({ maxHeaderSize: Http.PARSER_HEADER_BYTES })
    // inputs can wait minutes for the agent (and for permission answers): no request timeout
    s.requestTimeout = 0
    s.headersTimeout = 60_000
    s.on("clientError", Http.answerClientError)
    nodeServer = s
    return s
  }, { host: options.http.host, port: options.http.port })
  // Closing the server waits for its connections, and event streams and waiting inputs never end
  // by themselves: at shutdown they get a moment, then are cut (clients resume with Last-Event-ID
  // or by asking for their input's key again).
  const closeConnections = Layer.scopedDiscard(
    Effect.zipRight(
      HttpServer.HttpServer,
      Effect.addFinalizer(() =>
        Effect.sync(() => {
          nodeServer?.closeIdleConnections()
          setTimeout(() => nodeServer?.closeAllConnections(), Duration.toMillis(SHUTDOWN_GRACE)).unref()
        })
      )
    )
  )
  const announce = Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (s) => {
      const address = s.address._tag === "TcpAddress"
        ? `http://${s.address.hostname}:${s.address.port}`
        : `unix:${s.address.path}`
      return options.onListening === undefined
        ? Console.error(`toolgate serve: listening on ${address}`)
        : options.onListening(address)
    })
  )
  const { allowedHosts, corsOrigins, maxBodyBytes } = options.http
  return HttpApiBuilder.serve(Http.guard({ allowedHosts, corsOrigins, maxBodyBytes })).pipe(
    Layer.provide(Http.layer({ runner, serverToken: options.serverToken })),
    Layer.provideMerge(Layer.merge(announce, closeConnections)),
    Layer.provide(server),
    Layer.provide(layerSessions(options))
  )
}
