/**
 * `toolgate serve`: agent sessions behind an HTTP API (see src/services/Sessions.ts).
 *
 * Alone, it is one embedded runner on SQLite in the state folder (`~/.toolgate/serve`), on
 * 127.0.0.1. With `--runner` and PostgreSQL storage, it is one runner among several: start one
 * per port or machine on the same database; sessions are spread across them, and a runner that
 * dies hands its sessions to the others. Binding beyond 127.0.0.1 needs a bearer token
 * (`--token-file`, or `TOOLGATE_SERVE_TOKEN`). The server code loads only when this command runs.
 */
import { Command } from "@effect/cli"
import { Config, Duration, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { BadRequest } from "../../Errors.js"
import { positiveIntConfig } from "../../internal/config.js"
import * as F from "../flags.js"
import { metasOf, optionsOf } from "../flags.js"
import type { CommandSpec } from "../spec.js"

const DEFAULT_PORT = 4700

const serveFlags = {
  host: F.optionalText("host", "address", "Address the HTTP API listens on (default 127.0.0.1)"),
  port: F.optionalInteger("port", "n", `HTTP port (default ${DEFAULT_PORT}; 0 picks a free one)`),
  storage: F.optionalText("storage", "url", "sqlite:FILE (default: sqlite in the state folder) or postgres://… (needed for --runner)"),
  stateDir: F.optionalText("state-dir", "dir", "Where session folders (and the default SQLite file) live; default ~/.toolgate/serve"),
  runner: F.boolean("runner", "Run as one runner of a cluster sharing PostgreSQL storage"),
  runnerHost: F.optionalText("runner-host", "address", "Address other runners reach this one at (default: --host)"),
  runnerPort: F.optionalInteger("runner-port", "n", "Port for runner-to-runner messages (default: --port + 1)"),
  tokenFile: F.optionalText("token-file", "file", "A file holding the server's bearer token (else TOOLGATE_SERVE_TOKEN)"),
  approvalTimeout: F.optionalInteger("approval-timeout", "seconds", "Seconds a permission question waits for an answer before the call is denied (default 300)"),
  workspaceRoot: F.optionalText("workspace-root", "dir", "Sessions may only work in folders inside this one")
}

export const serveSpec: CommandSpec = {
  path: ["serve"],
  summary: "Serve agent sessions over an HTTP API (SSE events, remote approvals, durable state)",
  args: [],
  flags: metasOf(serveFlags)
}

const isLoopback = (host: string) => host === "127.0.0.1" || host === "::1" || host === "localhost" || host.startsWith("127.")

const readToken = (file: string | undefined) =>
  Effect.gen(function* () {
    if (file !== undefined) {
      const text = yield* Effect.try({
        try: () => fs.readFileSync(file, "utf8").trim(),
        catch: (e) => new BadRequest({ reason: `--token-file ${file}: ${(e as Error).message}` })
      })
      if (text.length < 16) return yield* new BadRequest({ reason: `--token-file ${file}: the token must have at least 16 characters` })
      return Option.some(Redacted.make(text))
    }
    const fromEnv = yield* Config.option(Config.redacted("TOOLGATE_SERVE_TOKEN")).pipe(Effect.orElseSucceed(() => Option.none()))
    return Option.filter(fromEnv, (t) => Redacted.value(t).trim() !== "")
  })

const millis = (name: string, fallback: number) => positiveIntConfig(name, fallback).pipe(Config.map((ms) => Duration.millis(ms)))

/** Cluster timings from the environment; every runner of a cluster must use the same. */
const shardingFromEnv = Effect.gen(function* () {
  const read = <A>(config: Config.Config<A>) => Effect.orDie(config)
  return {
    shardsPerGroup: yield* read(positiveIntConfig("TOOLGATE_SERVE_SHARDS", 64)),
    shardLockRefreshInterval: yield* read(millis("TOOLGATE_SERVE_LOCK_REFRESH_MS", 10_000)),
    shardLockExpiration: yield* read(millis("TOOLGATE_SERVE_LOCK_EXPIRATION_MS", 35_000)),
    refreshAssignmentsInterval: yield* read(millis("TOOLGATE_SERVE_ASSIGNMENTS_MS", 3_000)),
    entityMessagePollInterval: yield* read(millis("TOOLGATE_SERVE_POLL_MS", 2_000)),
    runnerHealthCheckInterval: yield* read(millis("TOOLGATE_SERVE_HEALTH_MS", 10_000)),
    // how long a stopping runner waits for its sessions' running inputs (they resume elsewhere)
    entityTerminationTimeout: yield* read(millis("TOOLGATE_SERVE_TERMINATION_MS", 5_000))
  }
})

export const serve = Command.make("serve", optionsOf(serveFlags), (flags) =>
  Effect.gen(function* () {
    const values = {
      ...flags,
      host: Option.getOrElse(flags.host, () => "127.0.0.1"),
      port: Option.getOrElse(flags.port, () => DEFAULT_PORT),
      approvalTimeout: Option.getOrElse(flags.approvalTimeout, () => 300)
    }
    const stateDir = path.resolve(Option.getOrElse(values.stateDir, () => path.join(os.homedir(), ".toolgate", "serve")))
    const storageText = Option.getOrElse(values.storage, () => `sqlite:${path.join(stateDir, "toolgate.db")}`)
    const storage = storageText.startsWith("sqlite:")
      ? ({ _tag: "Sqlite", file: path.resolve(storageText.slice("sqlite:".length)) } as const)
      : /^postgres(ql)?:/.test(storageText)
        ? ({ _tag: "Postgres", url: Redacted.make(storageText.replace(/^postgres(ql)?:(?!\/\/)/, "")) } as const)
        : undefined
    if (storage === undefined) return yield* new BadRequest({ reason: `--storage ${storageText}: expected sqlite:FILE or postgres://…` })
    if (values.runner && storage._tag !== "Postgres") {
      return yield* new BadRequest({ reason: "--runner needs PostgreSQL storage shared by every runner (--storage postgres://…)" })
    }
    const token = yield* readToken(Option.getOrUndefined(values.tokenFile))
    if (!isLoopback(values.host) && Option.isNone(token)) {
      return yield* new BadRequest({ reason: `listening on ${values.host} needs a bearer token: --token-file FILE or TOOLGATE_SERVE_TOKEN` })
    }
    const workspaceRoot = Option.getOrUndefined(Option.map(values.workspaceRoot, (dir) => path.resolve(dir)))
    if (workspaceRoot !== undefined && !fs.existsSync(workspaceRoot)) return yield* new BadRequest({ reason: `--workspace-root ${workspaceRoot}: no such directory` })
    if (values.approvalTimeout < 1) return yield* new BadRequest({ reason: "--approval-timeout must be at least 1 second" })
    const sharding = yield* shardingFromEnv
    const eventPollMs = yield* Effect.orDie(positiveIntConfig("TOOLGATE_SERVE_EVENT_POLL_MS", 500))
    // the server code (cluster, SQL drivers, HTTP) loads only for this command
    const Serve = yield* Effect.promise(() => import("../../layers/Serve.js"))
    const served = Serve.layer({
      storage,
      stateDir,
      workspaceRoot,
      approvalTimeoutMs: values.approvalTimeout * 1000,
      http: { host: values.host, port: values.port },
      ...(values.runner
        ? { runner: { host: Option.getOrElse(values.runnerHost, () => values.host), port: Option.getOrElse(values.runnerPort, () => values.port + 1) } }
        : {}),
      serverToken: Option.getOrUndefined(token),
      sharding,
      eventPollInterval: Duration.millis(eventPollMs)
    })
    // SIGTERM stops the server like Ctrl-C: finalisers run, sessions resume at the next start
    const terminated = Effect.async<void>((resume) => {
      const onTerm = () => resume(Effect.void)
      process.once("SIGTERM", onTerm)
      return Effect.sync(() => process.off("SIGTERM", onTerm))
    })
    // logs (the cluster's too) go to stderr; TOOLGATE_LOG_LEVEL=debug shows the cluster at work
    const level = yield* Config.logLevel("TOOLGATE_LOG_LEVEL").pipe(Config.withDefault(LogLevel.Warning), Effect.orElseSucceed(() => LogLevel.Warning))
    const logging = Layer.merge(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)), Logger.minimumLogLevel(level))
    yield* Effect.raceFirst(Layer.launch(served), terminated).pipe(Effect.provide(logging))
  }).pipe(
    // Once the server's finalisers ran, nothing of it should keep the process: inputs cut short
    // by the shutdown stay unrecorded (they resume at the next start) and may leave idle fibers.
    Effect.ensuring(Effect.sync(() => void setTimeout(() => process.exit(), 200).unref()))
  )
).pipe(Command.withDescription("Serve agent sessions over HTTP (one embedded runner, or a cluster of runners on PostgreSQL)"))
