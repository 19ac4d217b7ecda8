/**
 * `toolgate serve`: agent sessions behind an HTTP API (see src/services/Sessions.ts).
 *
 * Alone, it is one embedded runner on SQLite in the state folder (`~/.toolgate/serve`), on
 * 127.0.0.1. With `--runner` and PostgreSQL storage, it is one runner among several: start one
 * per port or machine on the same database, with the same runner secret; sessions are spread
 * across them, and a runner that dies hands its sessions to the others.
 *
 * A server token is always required (`--token-file`, `TOOLGATE_SERVE_TOKEN`, or one generated and
 * shown once at start), unless `--no-auth` on a loopback address. Sessions' processes run in the
 * served sandbox with a scrubbed environment; where no sandbox can start, serve refuses to start
 * unless `--unsandboxed`. What a create request may ask for is the server's policy (`--allow`,
 * `--policy`). Every setting can come from the environment (`TOOLGATE_SERVE_*`), flags win.
 * The server code loads only when this command runs.
 */
import { Command } from "@effect/cli"
import {
  Config,
  Console,
  Deferred,
  Duration,
  Effect,
  Layer,
  Logger,
  LogLevel,
  Option,
  ParseResult,
  Redacted,
  Schema,
  Stream
} from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { BadRequest } from "../../Errors.js"
import { positiveIntConfig } from "../../internal/config.js"
import * as F from "../flags.js"
import { metasOf, optionsOf } from "../flags.js"
import { userInterrupts } from "../interrupts.js"
import type { CommandSpec } from "../spec.js"
import {
  ALLOWANCES,
  policyOf,
  refusedName,
  ServePolicyFile,
  sessionEnvironment,
  type Allowance
} from "../../ServePolicy.js"
import { servedSandbox } from "../../services/Sandbox.js"

const DEFAULT_PORT = 4700
const DEFAULT_MAX_BODY = 1024 * 1024
const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600
const DEFAULT_DRAIN_MS = 30_000

const serveFlags = {
  host: F.optionalText("host", "address", "Address the HTTP API listens on (default 127.0.0.1; TOOLGATE_SERVE_HOST)"),
  port: F.optionalInteger("port", "n", `HTTP port (default ${DEFAULT_PORT}; 0 picks a free one; TOOLGATE_SERVE_PORT)`),
  storage: F.optionalText(
    "storage",
    "url",
    "sqlite:FILE (default: sqlite in the state folder) or postgres://… (needed for --runner; TOOLGATE_SERVE_STORAGE)"
  ),
  stateDir: F.optionalText(
    "state-dir",
    "dir",
    "Where session folders (and the default SQLite file) live; default ~/.toolgate/serve (TOOLGATE_SERVE_STATE_DIR)"
  ),
  runner: F.boolean("runner", "Run as one runner of a cluster sharing PostgreSQL storage"),
  runnerHost: F.optionalText(
    "runner-host",
    "address",
    "Address other runners reach this one at (default: --host; TOOLGATE_SERVE_RUNNER_HOST)"
  ),
  runnerPort: F.optionalInteger("runner-port", "n", "Port for runner-to-runner messages (default: --port + 1)"),
  runnerListen: F.optionalText(
    "runner-listen",
    "address",
    "Interface runner-to-runner messages are accepted on (default: --runner-host; TOOLGATE_SERVE_RUNNER_LISTEN)"
  ),
  runnerSecretFile: F.optionalText(
    "runner-secret-file",
    "file",
    "A file holding the secret the runners of a cluster share (else TOOLGATE_SERVE_RUNNER_SECRET)"
  ),
  tokenFile: F.optionalText(
    "token-file",
    "file",
    "A file holding the server's bearer token (else TOOLGATE_SERVE_TOKEN, else one is generated and shown once)"
  ),
  noAuth: F.boolean(
    "no-auth",
    "No server token: anyone on this machine may create sessions (loopback addresses only, for development)"
  ),
  approvalTimeout: F.optionalInteger(
    "approval-timeout",
    "seconds",
    "Seconds a permission question waits for an answer before the call is denied (default 300)"
  ),
  workspaceRoot: F.optionalText(
    "workspace-root",
    "dir",
    "Sessions may only work in folders inside this one (TOOLGATE_SERVE_WORKSPACE_ROOT)"
  ),
  allow: F.repeatedText(
    "allow",
    "what",
    `Let create requests ask for it (refused by default): ${ALLOWANCES.join(", ")}`
  ),
  policy: F.optionalText(
    "policy",
    "file",
    "A JSON policy file: permissionModes, trustProject, hooks, settingsFiles, addDirs, mcp, network, env, readOnlyPaths (TOOLGATE_SERVE_POLICY)"
  ),
  sessionEnv: F.repeatedText(
    "session-env",
    "name",
    "A variable of this environment passed to sessions' processes (PATH, LANG, LC_*, TERM, TZ always are)"
  ),
  unsandboxed: F.boolean(
    "unsandboxed",
    "Serve where no sandbox can start: sessions' commands, hooks and MCP servers then run on this host"
  ),
  allowedHost: F.repeatedText(
    "allowed-host",
    "name",
    "A host name clients use for this server (loopback names and this machine's addresses always work; TOOLGATE_SERVE_ALLOWED_HOSTS)"
  ),
  corsOrigin: F.repeatedText(
    "cors-origin",
    "origin",
    "A web origin (https://app.example) allowed to call the API from a browser (TOOLGATE_SERVE_CORS_ORIGINS)"
  ),
  maxBody: F.optionalInteger(
    "max-body",
    "bytes",
    `Largest request body accepted (default ${DEFAULT_MAX_BODY}; TOOLGATE_SERVE_MAX_BODY)`
  ),
  sessionTtl: F.optionalInteger(
    "session-ttl",
    "seconds",
    `Delete sessions idle this long (default ${DEFAULT_SESSION_TTL_SECONDS}; 0 keeps them; TOOLGATE_SERVE_SESSION_TTL)`
  )
}

export const serveSpec: CommandSpec = {
  path: ["serve"],
  summary: "Serve agent sessions over an HTTP API (SSE events, remote approvals, durable state)",
  args: [],
  flags: metasOf(serveFlags)
}

const isLoopback = (host: string) =>
  host === "127.0.0.1" || host === "::1" || host === "localhost" || host.startsWith("127.")

/** A flag, else its environment variable. */
const orEnv = (flag: Option.Option<string>, name: string) =>
  Option.isSome(flag)
    ? Effect.succeed(flag)
    : Config.option(Config.nonEmptyString(name)).pipe(Effect.orElseSucceed(() => Option.none<string>()))

const intOrEnv = (flag: Option.Option<number>, name: string) =>
  Effect.gen(function*() {
    if (Option.isSome(flag)) return flag
    const text = yield* orEnv(Option.none(), name)
    if (Option.isNone(text)) return Option.none<number>()
    const value = Number(text.value.trim())
    if (!Number.isInteger(value) || value < 0) {
      return yield* new BadRequest({ reason: `${name}=${text.value}: expected a whole number` })
    }
    return Option.some(value)
  })

const listOrEnv = (flag: ReadonlyArray<string>, name: string) =>
  flag.length > 0
    ? Effect.succeed(flag)
    : Effect.map(orEnv(Option.none(), name), (text) => (Option.isNone(text) ? [] : text.value.split(",").map((v) =>
      v.trim()
    ).filter((v) => v !== "")))

const readSecret = (file: string, label: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(file, "utf8").trim(),
      catch: (e) => new BadRequest({ reason: `${label} ${file}: ${(e as Error).message}` })
    })
    if (text.length < 16) {
      return yield* new BadRequest({ reason: `${label} ${file}: the secret must have at least 16 characters` })
    }
    return Redacted.make(text)
  })

const secretFrom = (file: Option.Option<string>, label: string, envName: string) =>
  Effect.gen(function*() {
    if (Option.isSome(file)) return Option.some(yield* readSecret(file.value, label))
    const fromEnv = yield* Config.option(Config.redacted(envName)).pipe(Effect.orElseSucceed(() => Option.none()))
    const given = Option.filter(fromEnv, (t) => Redacted.value(t).trim() !== "")
    if (Option.isSome(given) && Redacted.value(given.value).trim().length < 16) {
      return yield* new BadRequest({ reason: `${envName}: the secret must have at least 16 characters` })
    }
    return given
  })

/** A path as it really is, for a file that may not exist yet. */
const realPath = (p: string): string => {
  try {
    return fs.realpathSync(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(realPath(parent), path.basename(p))
  }
}

const millis = (name: string, fallback: number) =>
  positiveIntConfig(name, fallback).pipe(Config.map((ms) => Duration.millis(ms)))

/**
 * Cluster timings from the environment; every runner of a cluster must use the same. A runner's
 * running call gets `TOOLGATE_SERVE_TERMINATION_MS` to finish where it runs when its session's
 * shard goes to another runner; the one-process server has no other runner to wait for (past its
 * drain time, or a storage fault, it stops the call at once and resumes it itself).
 */
const shardingFromEnv = (oneProcess: boolean) =>
  Effect.gen(function*() {
    const read = <A>(config: Config.Config<A>) => Effect.orDie(config)
    return {
      shardsPerGroup: yield* read(positiveIntConfig("TOOLGATE_SERVE_SHARDS", 64)),
      shardLockRefreshInterval: yield* read(millis("TOOLGATE_SERVE_LOCK_REFRESH_MS", 10_000)),
      shardLockExpiration: yield* read(millis("TOOLGATE_SERVE_LOCK_EXPIRATION_MS", 35_000)),
      refreshAssignmentsInterval: yield* read(millis("TOOLGATE_SERVE_ASSIGNMENTS_MS", 3_000)),
      entityMessagePollInterval: yield* read(millis("TOOLGATE_SERVE_POLL_MS", 2_000)),
      runnerHealthCheckInterval: yield* read(millis("TOOLGATE_SERVE_HEALTH_MS", 10_000)),
      // how long a running call gets to finish (and be recorded) where it runs when its session's
      // shard goes to another runner (a runner joins or leaves); past it, the call is stopped
      entityTerminationTimeout: yield* read(millis("TOOLGATE_SERVE_TERMINATION_MS", oneProcess ? 1_000 : 10_000))
    }
  })

/** The folder exists (made when missing) and takes new files; otherwise one line naming it. */
const writableFolder = (dir: string, what: string, why: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(dir, { recursive: true })
      fs.accessSync(dir, fs.constants.W_OK)
    },
    catch: (e) => {
      const code = (e as NodeJS.ErrnoException).code
      const problem = code === "EROFS"
        ? "it is on a read-only file system"
        : code === "EACCES" || code === "EPERM"
        ? "this user may not write there"
        : code === "ENOENT" || code === "ENOTDIR"
        ? "a parent folder is missing, read-only or not a folder"
        : (e as Error).message
      return new BadRequest({ reason: `${what}: ${dir} is not a folder this server can write to (${problem}): ${why}` })
    }
  })

/** A start-up failure in one line: a busy port names the port. */
const startFailure = (
  error: unknown,
  http: { readonly host: string; readonly port: number },
  runner: { readonly host: string; readonly port: number } | undefined
) => {
  const cause = (error as { cause?: unknown }).cause
  const code = (cause as { code?: unknown } | undefined)?.code
  const tag = (error as { _tag?: unknown })._tag
  if (code === "EADDRINUSE") {
    return tag === "SocketServerError" && runner !== undefined
      ? new BadRequest({
        reason: `the runner port ${runner.port} on ${runner.host} is already in use (choose another with --runner-port)`
      })
      : new BadRequest({
        reason:
          `port ${http.port} on ${http.host} is already in use (another server listens there; choose another with --port, or --port 0 for a free one)`
      })
  }
  if (code === "EADDRNOTAVAIL" || code === "EACCES") {
    return new BadRequest({ reason: `cannot listen on ${http.host}:${http.port}: ${(cause as Error).message}` })
  }
  if (error instanceof BadRequest) return error
  const message = error instanceof Error && error.message !== ""
    ? error.message
    : cause instanceof Error
    ? cause.message
    : String(tag ?? error)
  return new BadRequest({
    reason: `the server could not start: ${
      typeof tag === "string" && !message.includes(tag) ? `${tag}: ` : ""
    }${message}`
  })
}

export const serve = Command.make("serve", optionsOf(serveFlags), (flags) =>
  Effect.gen(function*() {
    const host = Option.getOrElse(yield* orEnv(flags.host, "TOOLGATE_SERVE_HOST"), () => "127.0.0.1")
    const port = Option.getOrElse(yield* intOrEnv(flags.port, "TOOLGATE_SERVE_PORT"), () => DEFAULT_PORT)
    const approvalTimeout = Option.getOrElse(flags.approvalTimeout, () => 300)
    const stateDir = path.resolve(Option.getOrElse(yield* orEnv(flags.stateDir, "TOOLGATE_SERVE_STATE_DIR"), () =>
      path.join(os.homedir(), ".toolgate", "serve")))
    const storageText = Option.getOrElse(yield* orEnv(flags.storage, "TOOLGATE_SERVE_STORAGE"), () =>
      `sqlite:${path.join(stateDir, "toolgate.db")}`)
    const storage = storageText.startsWith("sqlite:")
      ? ({ _tag: "Sqlite", file: path.resolve(storageText.slice("sqlite:".length)) } as const)
      : /^postgres(ql)?:/.test(storageText)
      ? ({ _tag: "Postgres", url: Redacted.make(storageText.replace(/^postgres(ql)?:(?!\/\/)/, "")) } as const)
      : undefined
    // the URL may carry a password: it is not repeated
    if (storage === undefined) {
      return yield* new BadRequest({ reason: `--storage: expected sqlite:FILE or postgres://…` })
    }
    if (flags.runner && storage._tag !== "Postgres") {
      return yield* new BadRequest({
        reason: "--runner needs PostgreSQL storage shared by every runner (--storage postgres://…)"
      })
    }

    // a server token, always (generated when none is given), unless --no-auth on loopback
    const tokenFile = yield* orEnv(flags.tokenFile, "TOOLGATE_SERVE_TOKEN_FILE")
    let token = yield* secretFrom(tokenFile, "--token-file", "TOOLGATE_SERVE_TOKEN")
    if (flags.noAuth) {
      if (!isLoopback(host)) {
        return yield* new BadRequest({
          reason: `--no-auth is for loopback addresses only; listening on ${host} needs a server token`
        })
      }
      if (Option.isSome(token)) {
        return yield* new BadRequest({
          reason: "--no-auth and a server token (--token-file or TOOLGATE_SERVE_TOKEN) exclude each other"
        })
      }
    }
    // made now (so it can be kept from sessions), shown once everything else checked out
    const generated = !flags.noAuth && Option.isNone(token)
      ? `tgsrv_${randomBytes(32).toString("base64url")}`
      : undefined
    if (generated !== undefined) {
      token = Option.some(Redacted.make(generated))
    }

    const workspaceText = yield* orEnv(flags.workspaceRoot, "TOOLGATE_SERVE_WORKSPACE_ROOT")
    const workspaceRoot = Option.isNone(workspaceText) ? undefined : path.resolve(workspaceText.value)
    if (workspaceRoot !== undefined && !fs.existsSync(workspaceRoot)) {
      return yield* new BadRequest({ reason: `--workspace-root ${workspaceRoot}: no such directory` })
    }
    if (approvalTimeout < 1) {
      return yield* new BadRequest({ reason: "--approval-timeout must be at least 1 second" })
    }

    // what create requests may ask for
    const allow: Array<Allowance> = []
    for (
      const name of flags.allow.flatMap((a) =>
        a.split(",")
      )
    ) {
      const trimmed = name.trim()
      if (!(ALLOWANCES as ReadonlyArray<string>).includes(trimmed)) {
        return yield* new BadRequest({ reason: `--allow ${trimmed}: expected one of ${ALLOWANCES.join(", ")}` })
      }
      allow.push(trimmed as Allowance)
    }
    const policyFile = yield* orEnv(flags.policy, "TOOLGATE_SERVE_POLICY")
    const fromFile = Option.isNone(policyFile)
      ? undefined
      : yield* Effect.try({
        try: () =>
          JSON.parse(fs.readFileSync(policyFile.value, "utf8")) as unknown,
        catch: (e) => new BadRequest({ reason: `--policy ${policyFile.value}: ${(e as Error).message}` })
      }).pipe(
        Effect.flatMap((raw) =>
          Schema.decodeUnknown(ServePolicyFile)(raw).pipe(
            Effect.mapError((e) => {
              const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
              const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
              return new BadRequest({
                reason: `--policy ${policyFile.value}: ${where}${issue?.message ?? "not a policy"}`
              })
            })
          )
        )
      )
    const widened = policyOf(fromFile, allow, flags.sessionEnv)
    const policy = { ...widened, readOnlyPaths: widened.readOnlyPaths.map((dir) => realPath(path.resolve(dir))) }
    for (const name of policy.env) {
      const refused = refusedName(name)
      if (refused !== undefined) return yield* new BadRequest({ reason: `--session-env: ${refused}` })
    }

    // the runners of a cluster share a secret; their socket listens where it is told to
    const runnerSecret = flags.runner
      ? yield* secretFrom(flags.runnerSecretFile, "--runner-secret-file", "TOOLGATE_SERVE_RUNNER_SECRET")
      : Option.none()
    if (flags.runner && Option.isNone(runnerSecret)) {
      return yield* new BadRequest({
        reason:
          "--runner needs the secret the runners share: --runner-secret-file FILE or TOOLGATE_SERVE_RUNNER_SECRET (16 characters or more)"
      })
    }
    const runnerHost = Option.getOrElse(yield* orEnv(flags.runnerHost, "TOOLGATE_SERVE_RUNNER_HOST"), () => host)
    const runnerListen = yield* orEnv(flags.runnerListen, "TOOLGATE_SERVE_RUNNER_LISTEN")
    const runner = flags.runner
      ? {
        host: runnerHost,
        port: Option.getOrElse(flags.runnerPort, () => port + 1),
        listenHost: Option.getOrElse(runnerListen, () => runnerHost),
        secret: Option.getOrThrow(runnerSecret)
      }
      : undefined

    // the server's own files: never part of a session, hidden from every sandbox
    const serverPaths = [
      realPath(stateDir),
      ...(storage._tag === "Sqlite"
        ? ["", "-wal", "-shm", "-journal"].map((suffix) => realPath(`${storage.file}${suffix}`))
        : []),
      ...[tokenFile, policyFile, flags.runnerSecretFile].flatMap((
        file
      ) => (Option.isSome(file) ? [realPath(path.resolve(file.value))] : []))
    ]

    // OpenTelemetry export, when the environment names a collector (its headers are credentials)
    const Telemetry = yield* Effect.promise(() => import("../../layers/Telemetry.js"))
    const telemetry = yield* Telemetry.settingsFromEnv

    // sessions' processes: a scrubbed environment, in the served sandbox (or, explicitly, none)
    const secrets = [
      ...Telemetry.headerSecrets(telemetry),
      ...(Option.isSome(token) ? [Redacted.value(token.value)] : []),
      ...(Option.isSome(runnerSecret) ? [Redacted.value(runnerSecret.value)] : []),
      ...(storage._tag === "Postgres" ? [Redacted.value(storage.url)] : [])
    ]
    const sessionEnv = sessionEnvironment(process.env, policy.env, secrets)
    yield* writableFolder(stateDir, "--state-dir", "the server keeps its database and session folders there")
    if (storage._tag === "Sqlite") {
      yield* writableFolder(
        path.dirname(storage.file),
        `SQLite storage ${storage.file}`,
        "its database and journal go there"
      )
    }
    const sandbox = yield* servedSandbox(stateDir)
    if (sandbox._tag === "Unavailable") {
      if (!flags.unsandboxed) {
        return yield* new BadRequest({
          reason:
            `no sandbox can start here (${sandbox.reason}): sessions' commands, hooks and MCP servers would run on this host. Install bubblewrap (toolgate doctor), or pass --unsandboxed to serve without one`
        })
      }
      yield* Console.error(
        `toolgate serve: warning: --unsandboxed: sessions' commands, hooks and MCP servers run on this host (${sandbox.reason})`
      )
    }
    if (workspaceRoot === undefined) {
      yield* Console.error(
        "toolgate serve: note: no --workspace-root: a create request may name any folder of this host as a session's cwd"
      )
    }
    if (generated !== undefined) {
      yield* Console.error(
        `toolgate serve: server token (generated for this run, shown only now; give one with --token-file or TOOLGATE_SERVE_TOKEN): ${generated}`
      )
    }

    const maxBody = Option.getOrElse(yield* intOrEnv(flags.maxBody, "TOOLGATE_SERVE_MAX_BODY"), () => DEFAULT_MAX_BODY)
    const ttlSeconds = Option.getOrElse(yield* intOrEnv(flags.sessionTtl, "TOOLGATE_SERVE_SESSION_TTL"), () =>
      DEFAULT_SESSION_TTL_SECONDS)
    const sharding = yield* shardingFromEnv(runner === undefined)
    const eventPollMs = yield* Effect.orDie(positiveIntConfig("TOOLGATE_SERVE_EVENT_POLL_MS", 500))
    // an idle session's runtime (tools, MCP servers) is released after this long, and rebuilt at its next input
    const runtimeIdleMs = yield* Effect.orDie(positiveIntConfig("TOOLGATE_SERVE_RUNTIME_IDLE_MS", 120_000))
    const drainMs = yield* Effect.orDie(positiveIntConfig("TOOLGATE_SERVE_DRAIN_MS", DEFAULT_DRAIN_MS))
    // 0: no cap on the inputs running on this runner
    const maxRunningInputs = yield* Effect.orDie(
      Config.integer("TOOLGATE_SERVE_MAX_RUNNING_INPUTS").pipe(
        Config.validate({
          message: "a number of inputs, 0 for no limit",
          validation: (n) =>
            n >= 0
        }),
        Config.withDefault(0)
      )
    )
    // The first SIGTERM (or Ctrl-C) drains: the runner stops taking input, lets running inputs
    // finish for up to TOOLGATE_SERVE_DRAIN_MS, then stops (a second one stops it at once).
    // Listening for it from the start keeps the CLI from stopping the server outright.
    const requested = yield* Deferred.make<void>()
    const drained = yield* Deferred.make<void>()
    yield* Stream.runForEach(userInterrupts, () =>
      Deferred.succeed(requested, undefined)).pipe(Effect.forkScoped)
    // the server code (cluster, SQL drivers, HTTP) loads only for this command
    const Serve = yield* Effect.promise(() => import("../../layers/Serve.js"))
    const served = Serve.layer({
      storage,
      stateDir,
      workspaceRoot: workspaceRoot === undefined ? undefined : fs.realpathSync(workspaceRoot),
      approvalTimeoutMs: approvalTimeout * 1000,
      http: {
        host,
        port,
        allowedHosts: [
          ...(yield* listOrEnv(flags.allowedHost, "TOOLGATE_SERVE_ALLOWED_HOSTS")),
          ...(isLoopback(host) || host === "0.0.0.0" || host === "::" ? [] : [host])
        ],
        corsOrigins: yield* listOrEnv(flags.corsOrigin, "TOOLGATE_SERVE_CORS_ORIGINS"),
        maxBodyBytes: maxBody
      },
      ...(runner === undefined ? {} : { runner }),
      serverToken: Option.getOrUndefined(token),
      policy,
      serverPaths,
      sessionEnv,
      sandbox: sandbox._tag === "Available" ? sandbox : undefined,
      ...(ttlSeconds > 0 ? { sessionTtlMs: ttlSeconds * 1000 } : {}),
      sharding,
      ...(maxRunningInputs > 0 ? { maxRunningInputs } : {}),
      eventPollInterval: Duration.millis(eventPollMs),
      runtimeIdleMs,
      drain: {
        requested: Deferred.await(requested),
        timeout: Duration.millis(drainMs),
        onDraining: (running) =>
          Console.error(
            `toolgate serve: draining: not ready, taking no new input; ${running} running input(s) get up to ${
              drainMs / 1000
            } s to finish`
          ),
        onDrained: ({ left }) =>
          Effect.zipRight(
            Console.error(
              left === 0
                ? "toolgate serve: drained: no input runs here; stopping"
                : `toolgate serve: drain time over: ${left} input(s) still running are stopped here and resume on another runner`
            ),
            Deferred.succeed(drained, undefined)
          )
      }
    })
    // logs (the cluster's too) go to stderr; TOOLGATE_LOG_LEVEL=debug shows the cluster at work
    const level = yield* Config.logLevel("TOOLGATE_LOG_LEVEL").pipe(
      Config.withDefault(LogLevel.Warning),
      Effect.orElseSucceed(() => LogLevel.Warning)
    )
    const logging = Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
      Logger.minimumLogLevel(level)
    )
    // without an exporter nobody reads a span: the HTTP server's, the cluster's and the SQL
    // client's are not made at all
    const exporters = telemetry === undefined
      ? Layer.setTracerEnabled(false)
      : Telemetry.layer(telemetry, Serve.runnerName(runner))
    yield* Effect.raceFirst(Layer.launch(served).pipe(Effect.provide(exporters)), Deferred.await(drained)).pipe(
      Effect.mapError((error) => startFailure(error, { host, port }, runner)),
      Effect.provide(logging)
    )
  }).pipe(
    Effect.scoped,
    // Once the server's finalisers ran, nothing of it should keep the process: inputs cut short
    // by the shutdown stay unrecorded (they resume at the next start) and may leave idle fibers.
    Effect.ensuring(Effect.sync(() => void setTimeout(() => process.exit(), 200).unref()))
  )).pipe(
    Command.withDescription(
      "Serve agent sessions over HTTP (one embedded runner, or a cluster of runners on PostgreSQL)"
    )
  )
