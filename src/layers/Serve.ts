/**
 * `toolgate serve` as one layer: SQL storage (SQLite in the state folder, or PostgreSQL), the
 * cluster (one embedded runner, or a runner among several on PostgreSQL), the workflow engine,
 * the Sessions stage with its entity and workflow, the per-session runtimes (the same stages as
 * `toolgate run`, with durable model turns and calls and the remote approver), and the HTTP API.
 */
import { ClusterWorkflowEngine, RunnerAddress, type ShardingConfig, SingleRunner } from "@effect/cluster"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeClusterSocket, NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { ConfigError } from "effect"
import { Console, Duration, Effect, Either, Layer, Option, type Redacted } from "effect"
import * as fs from "node:fs"
import { createServer, type Server } from "node:http"
import * as path from "node:path"
import * as Agent from "../services/Agent.js"
import * as SubagentModels from "../services/Agent/subagents/SubagentModels.js"
import { parseSubagentScripts } from "../services/Agent/subagents/scriptedSubagents.js"
import { Approver } from "../services/Approver.js"
import { anthropicFromConfig, ModelClient } from "../services/ModelClient.js"
import { parseScript } from "../services/ModelClient/script.js"
import * as Sessions from "../services/Sessions.js"
import { durableCalls } from "../services/Sessions/durableCalls.js"
import { durableModel } from "../services/Sessions/durableModel.js"
import * as EventLog from "../services/Sessions/events.js"
import * as Handlers from "../services/Sessions/handlers.js"
import * as Http from "../services/Sessions/http/handlers.js"
import { makeRemoteApprover } from "../services/Sessions/remoteApprover.js"
import { layerRuns, Runs, type RunsService } from "../services/Sessions/run.js"
import * as SessionRuntimes from "../services/Sessions/runtimes.js"
import * as ShellAnalyzer from "../services/ShellAnalyzer.js"
import { makePositionedScripted } from "../services/Sessions/scriptedModel.js"
import * as ServeSettings from "../services/Sessions/settings.js"
import * as SessionStore from "../services/Sessions/store.js"
import * as AgentTool from "../tools/AgentTool.js"
import * as Runtime from "./Runtime.js"

export type Storage =
  | { readonly _tag: "Sqlite"; readonly file: string }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted }

export interface ServeOptions {
  readonly storage: Storage
  /** Session folders live in `<stateDir>/sessions/<id>`. */
  readonly stateDir: string
  /** Sessions may only work in folders inside this one (undefined: anywhere). */
  readonly workspaceRoot: string | undefined
  readonly approvalTimeoutMs: number
  readonly http: { readonly host: string; readonly port: number }
  /** Run as one runner of a cluster (PostgreSQL storage): the address the other runners reach it at. */
  readonly runner?: { readonly host: string; readonly port: number }
  readonly serverToken: Redacted.Redacted | undefined
  /** Cluster timings and sizes (the same on every runner). */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]>
  /** How often an event stream looks for events written by other runners. */
  readonly eventPollInterval?: Duration.DurationInput
  /** Told the address the HTTP API listens on, once it does. */
  readonly onListening?: (url: string) => Effect.Effect<void>
}

/** How long open requests may go on once the server stops. */
const SHUTDOWN_GRACE = Duration.millis(500)

/** Shards per group, the same on every runner (the cluster's default is 300). */
export const DEFAULT_SHARDS = 64

type Deps = SessionStore.SessionStore | Runs

const sessionRuntime = (
  options: { readonly sessionId: string; readonly config: SessionRuntimes.StoredConfig; readonly grantedRules: ReadonlyArray<string> },
  deps: Layer.Layer<Deps>,
  runs: RunsService,
  shell: Layer.Layer<ShellAnalyzer.ShellAnalyzer>
): Layer.Layer<SessionRuntimes.SessionServices, SessionRuntimes.SessionUnavailable> => {
  const { config, sessionId } = options
  const unavailable = (reason: string) => new SessionRuntimes.SessionUnavailable({ sessionId, reason })
  const speed = config.replaySpeed ?? 1
  const timeScale = speed <= 0 ? 0 : 1 / speed
  const script = config.script === undefined ? undefined : parseScript("script", config.script)
  const inner =
    script === undefined
      ? anthropicFromConfig(config.model).pipe(Effect.mapError((e) => unavailable(e.message)))
      : Either.match(script, {
          onLeft: (e) => Effect.fail(unavailable(`script: ${e.message}`)),
          onRight: (s) => Effect.succeed(makePositionedScripted({ script: s, cwd: config.cwd, timeScale }))
        })
  const model = Layer.effect(ModelClient, Effect.map(inner, (client) => durableModel(client, runs)))
  const subagents =
    config.script === undefined
      ? SubagentModels.layerAnthropicConfig
      : Either.match(parseSubagentScripts("script", config.script), {
          onLeft: (e) => Layer.fail(unavailable(`script: ${e.message}`)),
          onRight: (scripts) =>
            SubagentModels.layerScriptedFrom(scripts, { cwd: config.cwd, timeScale }).pipe(Layer.mapError((e) => unavailable(e.message)))
        })
  const runtime = Runtime.layer({
    cwd: config.cwd,
    settings: config.settings === undefined ? [] : [typeof config.settings === "string" ? config.settings : JSON.stringify(config.settings)],
    allowedTools: [...(config.allowedTools ?? []), ...options.grantedRules],
    disallowedTools: config.disallowedTools ?? [],
    addDirs: config.addDirs ?? [],
    trustProject: config.trustProject ?? false,
    ...(config.permissionMode === undefined ? {} : { permissionMode: config.permissionMode }),
    mcp: { cwd: config.cwd },
    shellAnalyzer: shell,
    approver: Layer.effect(Approver, makeRemoteApprover(sessionId)).pipe(Layer.provide(deps)),
    wrapCallPipeline: (pipeline) => durableCalls(pipeline).pipe(Effect.provide(deps))
  })
  return Layer.merge(Agent.layer, AgentTool.layer()).pipe(
    Layer.provideMerge(subagents),
    Layer.provideMerge(model),
    Layer.provideMerge(runtime),
    Layer.catchAll((e) => Layer.fail(e instanceof SessionRuntimes.SessionUnavailable ? e : unavailable(String((e as { message?: unknown }).message ?? e))))
  )
}

const layerRuntimeBuilder: Layer.Layer<SessionRuntimes.SessionRuntimeBuilder, never, Deps> = Layer.effect(
  SessionRuntimes.SessionRuntimeBuilder,
  Effect.gen(function* () {
    const deps = Layer.succeedContext(yield* Effect.context<Deps>())
    const runs = yield* Runs
    // One parser for every session of this runner (loaded on the first Bash call of any of them)
    const shell = Layer.succeed(ShellAnalyzer.ShellAnalyzer, yield* ShellAnalyzer.make)
    return SessionRuntimes.SessionRuntimeBuilder.of({ build: (options) => sessionRuntime(options, deps, runs, shell) })
  })
)

const layerSql = (storage: Storage): Layer.Layer<SqlClient.SqlClient, SqlError | ConfigError.ConfigError> => {
  if (storage._tag === "Postgres") return PgClient.layer({ url: storage.url, applicationName: "toolgate" })
  fs.mkdirSync(path.dirname(storage.file), { recursive: true })
  return SqliteClient.layer({ filename: storage.file })
}

const layerCluster = (options: ServeOptions) => {
  const sharding = { shardsPerGroup: DEFAULT_SHARDS, ...options.sharding }
  if (options.runner === undefined) return SingleRunner.layer({ runnerStorage: "sql", shardingConfig: sharding })
  return NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: {
      ...sharding,
      runnerAddress: Option.some(RunnerAddress.make(options.runner.host, options.runner.port))
    }
  })
}

/** Everything but the HTTP server: what a runner needs to run sessions and what the API calls. */
export const layerSessions = (options: ServeOptions) => {
  const runner = options.runner === undefined ? "embedded" : `${options.runner.host}:${options.runner.port}`
  const storage = Layer.merge(layerCluster(options), SessionStore.layer).pipe(Layer.provideMerge(layerSql(options.storage)))
  const core = Layer.mergeAll(
    ClusterWorkflowEngine.layer,
    EventLog.layer(options.eventPollInterval === undefined ? {} : { pollInterval: options.eventPollInterval }),
    layerRuns(),
    ServeSettings.layer({
      runner,
      stateDir: options.stateDir,
      workspaceRoot: options.workspaceRoot,
      approvalTimeoutMs: options.approvalTimeoutMs
    })
  ).pipe(Layer.provideMerge(storage))
  const runtimes = SessionRuntimes.layer().pipe(Layer.provide(layerRuntimeBuilder), Layer.provideMerge(core))
  return Layer.merge(Handlers.layer, Sessions.layer).pipe(Layer.provideMerge(runtimes))
}

/** The HTTP API on its port, over `layerSessions`. */
export const layer = (options: ServeOptions) => {
  const runner = options.runner === undefined ? "embedded" : `${options.runner.host}:${options.runner.port}`
  let nodeServer: Server | undefined
  const server = NodeHttpServer.layer(() => {
    const s = createServer()
    // inputs can wait minutes for the agent (and for permission answers): no request timeout
    s.requestTimeout = 0
    s.headersTimeout = 60_000
    nodeServer = s
    return s
  }, options.http)
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
      const address = s.address._tag === "TcpAddress" ? `http://${s.address.hostname}:${s.address.port}` : `unix:${s.address.path}`
      return options.onListening === undefined ? Console.error(`toolgate serve: listening on ${address}`) : options.onListening(address)
    })
  )
  return HttpApiBuilder.serve().pipe(
    Layer.provide(Http.layer({ runner, serverToken: options.serverToken })),
    Layer.provideMerge(Layer.merge(announce, closeConnections)),
    Layer.provide(server),
    Layer.provide(layerSessions(options))
  )
}
