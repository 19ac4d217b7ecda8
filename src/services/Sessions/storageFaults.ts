/**
 * Storage that stops taking writes (a full disk, a read-only or failing volume, a database server
 * that restarts) and takes them again later. Every storage fault is noted (readiness reports it; a probe row written every half
 * second notices a full disk even while nothing else writes). The writes that must land wait for
 * storage to take them rather than fail: an input's start and end, and the cluster's writes made
 * through its message storage service. The replies the cluster writes for messages it read back
 * from storage do not go through that service: one whose COMMIT fails leaves its entity waiting
 * for good, so after a fault the runner lets go of its shards and takes them back once storage
 * takes writes again (`resetting`), and the unanswered messages are delivered again.
 */
import {
  MessageStorage,
  RunnerHealth,
  RunnerStorage,
  Runners,
  Sharding,
  ShardingConfig,
  SqlMessageStorage,
  SqlRunnerStorage
} from "@effect/cluster"
import { PersistenceError } from "@effect/cluster/ClusterError"
import { Cause, Context, Duration, Effect, Exit, Layer, Schedule, type Scope } from "effect"

export interface StorageHealthService {
  /** Notes a write that failed because of the storage itself. */
  readonly noteFault: (reason: string) => void
  /** The last storage fault, if one happened within `withinMs`. */
  readonly recentFault: (withinMs: number) => { readonly reason: string; readonly at: number } | undefined
  /** A storage fault was noted at or after `at` (ms since the epoch). */
  readonly faultSince: (at: number) => boolean
}

export class StorageHealth extends Context.Tag("toolgate/Sessions/StorageHealth")<
  StorageHealth,
  StorageHealthService
>() {}

export const makeHealth = (): StorageHealthService => {
  let last: { reason: string; at: number } | undefined
  return {
    noteFault: (reason) => {
      last = { reason, at: Date.now() }
    },
    recentFault: (withinMs) => (last !== undefined && Date.now() - last.at <= withinMs ? last : undefined),
    faultSince: (at) => last !== undefined && last.at >= at
  }
}

export const layerHealth: Layer.Layer<StorageHealth> = Layer.sync(StorageHealth, makeHealth)

// a database server that restarts (after a crash, or a full write-ahead log) is storage failing for
// a while too: its connections end, and new ones are refused until it has recovered
const FAULT =
  /SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)|disk is full|disk I\/O error|readonly database|read-only file system|unable to open database|ENOSPC|EROFS|EDQUOT|EIO\b|no space left|could not extend file|could not write|connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|ECONNREFUSED|ECONNRESET/i

/** The messages and codes of an error and its causes, most specific last. */
export const faultText = (error: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    if (typeof current !== "object") {
      parts.push(String(current))
      break
    }
    const { cause, code, message, reason } = current as {
      cause?: unknown
      code?: unknown
      message?: unknown
      reason?: unknown
    }
    for (const text of [reason, message, code]) {
      if (typeof text === "string" && text !== "" && !parts.includes(text)) parts.push(text)
    }
    current = cause
  }
  return parts.join(": ")
}

/** The storage itself failed (full, read-only, broken), not the statement. */
export const isStorageFault = (error: unknown): boolean => FAULT.test(faultText(error))

/**
 * The words of a storage fault (`database or disk is full`; `could not extend file "…": No space
 * left on device`), without the error codes.
 */
export const faultReason = (error: unknown): string => {
  const text = faultText(error)
  const match = FAULT.exec(text)
  if (match === null) return text
  const parts = text.split(": ").filter((part) => FAULT.test(part) && !/^SQLITE_/.test(part))
  return parts.length === 0 ? match[0] : parts.join(": ")
}

const RETRY_EVERY = Duration.millis(250)

/** The storage fault among a write's failures and defects (a failed COMMIT is a defect of the SQL client). */
export const faultOf = (cause: Cause.Cause<unknown>): unknown =>
  [...Cause.failures(cause), ...Cause.defects(cause)].find(isStorageFault)

/**
 * Runs `write` until storage takes it: a storage fault is noted and the write tried again;
 * any other failure is the caller's.
 */
export const untilStored = (health: StorageHealthService) =>
<A, E, R>(
  write: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    for (;;) {
      const exit = yield* Effect.exit(write)
      if (Exit.isSuccess(exit)) return exit.value
      const fault = faultOf(exit.cause)
      if (fault === undefined) return yield* exit
      health.noteFault(faultReason(fault))
      yield* Effect.sleep(RETRY_EVERY)
    }
  })

/** The cluster's message storage, whose writes wait for storage to take them. */
export const patient = (
  storage: MessageStorage.MessageStorage["Type"],
  health: StorageHealthService
): MessageStorage.MessageStorage["Type"] => {
  const until = untilStored(health)
  return {
    ...storage,
    saveRequest: (envelope) => until(storage.saveRequest(envelope)),
    saveEnvelope: (envelope) => until(storage.saveEnvelope(envelope)),
    saveReply: (reply) => until(storage.saveReply(reply)),
    clearReplies: (requestId) => until(storage.clearReplies(requestId)),
    resetAddress: (address) => until(storage.resetAddress(address)),
    clearAddress: (address) => until(storage.clearAddress(address)),
    resetShards: (shards) => until(storage.resetShards(shards))
  }
}

/** Patient message storage over `inner`. */
export const layerMessageStorage = <E, R>(inner: Layer.Layer<MessageStorage.MessageStorage, E, R>) =>
  Layer.effect(
    MessageStorage.MessageStorage,
    Effect.map(
      Effect.zip(MessageStorage.MessageStorage, StorageHealth),
      ([storage, health]) => patient(storage, health)
    )
  ).pipe(Layer.provide(inner))

/** How long storage must take writes again before the shards are taken back. */
const QUIET_MS = 1_000

/**
 * The runner storage, letting go of every shard after storage failed a write. A cluster write
 * that failed (a reply whose COMMIT did not land) leaves its entity waiting for good: the refresh
 * of the shard locks that follows a storage fault fails, so the cluster stops the shards'
 * entities, and once storage takes writes again it takes the shards back and delivers their
 * unprocessed messages again (each durable step then replays, or is answered as lost).
 * Meanwhile the runner's probes store its heartbeat: over a lease-renewing runner storage, that
 * keeps a runner that holds no shard alive however long storage fails.
 */
export const resetting = (
  storage: RunnerStorage.RunnerStorage["Type"],
  health: StorageHealthService
): RunnerStorage.RunnerStorage["Type"] => {
  let lastGood = Date.now()
  const refused = new PersistenceError({
    cause: new Error("storage failed a write since the shard locks were last refreshed")
  })
  return {
    ...storage,
    refresh: (address, shardIds) =>
      Effect.suspend(() => {
        const startedAt = Date.now()
        const stored = Effect.tap(storage.refresh(address, shardIds), () =>
          Effect.sync(() => {
            if (!health.faultSince(startedAt)) lastGood = startedAt
          }))
        // a probe (from a runner that let go of its shards) stores the heartbeat in any case
        if (Array.from(shardIds).length === 0) {
          return Effect.flatMap(
            stored,
            (held) => health.recentFault(QUIET_MS) === undefined ? Effect.succeed(held) : Effect.fail(refused)
          )
        }
        return health.faultSince(lastGood) ? Effect.fail(refused) : stored
      })
  }
}

/**
 * The one embedded runner on SQL storage (as `SingleRunner.layer` builds it), recovering from
 * storage faults: patient message storage, resetting runner storage.
 */
export const layerSingleRunner = (shardingConfig: Partial<ShardingConfig.ShardingConfig["Type"]>) =>
  Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(layerMessageStorage(SqlMessageStorage.layer)),
    Layer.provide([layerRunnerStorage(Layer.orDie(SqlRunnerStorage.layer)), RunnerHealth.layerNoop]),
    Layer.provide(ShardingConfig.layerFromEnv(shardingConfig))
  )

/** Resetting runner storage over `inner`. */
export const layerRunnerStorage = <E, R>(inner: Layer.Layer<RunnerStorage.RunnerStorage, E, R>) =>
  Layer.effect(
    RunnerStorage.RunnerStorage,
    Effect.map(
      Effect.zip(RunnerStorage.RunnerStorage, StorageHealth),
      ([storage, health]) => resetting(storage, health)
    )
  ).pipe(Layer.provide(inner))

const MONITOR_EVERY = Duration.millis(500)

/** Writes a probe row every half second: a full disk is noticed even when nothing else writes. */
export const monitor = (probe: Effect.Effect<void, unknown>): Effect.Effect<void, never, Scope.Scope> =>
  probe.pipe(
    Effect.ignore,
    Effect.repeat(Schedule.spaced(MONITOR_EVERY)),
    Effect.forkScoped,
    Effect.asVoid
  )
