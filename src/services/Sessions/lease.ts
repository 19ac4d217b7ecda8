/**
 * A runner's hold on its shards, as a lease: the cluster's shard locks are rows another runner
 * may take once they go unrefreshed for the lock expiration (not PostgreSQL advisory locks,
 * which a frozen or cut-off runner would keep for as long as its connection stays open).
 *
 * A runner that cannot renew its lease in time stops itself before another runner may take its
 * shards, with everything it started (its sandboxes die with it, its process groups are killed
 * on exit): a runner that was frozen, or cut off from the database, never runs a call or writes
 * a result for a session that moved on. Besides the watchdog, writes that record outcomes
 * (`check`) stop the process first when the lease ran out, as a runner woken from a pause may
 * reach them before its watchdog runs. A runner that let go of its shards after a storage fault
 * (`storageFaults.ts`) renews its lease with its heartbeat: it holds nothing to give up.
 */
import { MessageStorage, RunnerStorage, ShardingConfig } from "@effect/cluster"
import { Context, Duration, Effect, Layer, Schedule, type Scope } from "effect"

export interface ShardLeaseService {
  /** Returns while the lease holds; when it may have run out, stops this process at once. */
  readonly check: Effect.Effect<void>
  /** A refresh of this runner's locks that started at `at` (ms since the epoch) was stored. */
  readonly renewed: (at: number) => void
}

export class ShardLease extends Context.Tag("toolgate/Sessions/ShardLease")<ShardLease, ShardLeaseService>() {}

/** No lease to keep: the one embedded runner (SQLite) owns every shard. */
export const layerNone: Layer.Layer<ShardLease> = Layer.succeed(ShardLease, { check: Effect.void, renewed: () => {} })

/**
 * A lease that lasts `expiration` from the start of its last stored refresh; it counts as run
 * out one refresh `interval` early, the time this process gets to stop. `stop` ends the process.
 */
export const makeLease = (options: {
  readonly expiration: Duration.DurationInput
  readonly interval: Duration.DurationInput
  readonly stop: (message: string) => void
}): ShardLeaseService => {
  const expiration = Duration.toMillis(options.expiration)
  const limit = Math.max(expiration / 2, expiration - Duration.toMillis(options.interval))
  let renewedAt = Date.now()
  const check = Effect.sync(() => {
    const gap = Date.now() - renewedAt
    if (gap <= limit) return
    options.stop(
      `this runner could not renew its shard lease for ${
        (gap / 1000).toFixed(1)
      } s (another runner may take its sessions after ${
        (expiration / 1000).toFixed(1)
      } s): it stops now, with everything it started`
    )
  })
  return {
    check,
    renewed: (at) => {
      if (at > renewedAt) renewedAt = at
    }
  }
}

/** Checks the lease every `every` until the scope closes. */
export const watch = (
  lease: ShardLeaseService,
  every: Duration.DurationInput
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(Effect.forkScoped(Effect.repeat(lease.check, Schedule.spaced(every))))

/** The runner storage, renewing the lease with each stored refresh of this runner's locks. */
export const renewing = (
  storage: RunnerStorage.RunnerStorage["Type"],
  lease: ShardLeaseService
): RunnerStorage.RunnerStorage["Type"] => ({
  ...storage,
  refresh: (address, shardIds) =>
    Effect.suspend(() => {
      const startedAt = Date.now()
      return Effect.tap(storage.refresh(address, shardIds), () => Effect.sync(() => lease.renewed(startedAt)))
    })
})

/** The message storage, refusing to record anything once the lease may have run out. */
export const fenced = (
  storage: MessageStorage.MessageStorage["Type"],
  lease: ShardLeaseService
): MessageStorage.MessageStorage["Type"] => ({
  ...storage,
  saveRequest: (envelope) => Effect.zipRight(lease.check, storage.saveRequest(envelope)),
  saveEnvelope: (envelope) => Effect.zipRight(lease.check, storage.saveEnvelope(envelope)),
  saveReply: (reply) => Effect.zipRight(lease.check, storage.saveReply(reply))
})

/** The runner's lease from the cluster's lock timings, watched; `stop` ends the process. */
export const layer = (stop: (message: string) => void): Layer.Layer<ShardLease, never, ShardingConfig.ShardingConfig> =>
  Layer.scoped(
    ShardLease,
    Effect.gen(function*() {
      const config = yield* ShardingConfig.ShardingConfig
      const expiration = Duration.decode(config.shardLockExpiration)
      const interval = Duration.min(
        Duration.decode(config.shardLockRefreshInterval),
        Duration.unsafeDivide(expiration, 3)
      )
      const lease = makeLease({ expiration, interval, stop })
      yield* watch(lease, Duration.millis(Math.min(250, Duration.toMillis(interval))))
      return lease
    })
  )

/** Lease-renewing runner storage over `inner`. */
export const layerRunnerStorage = <E, R>(inner: Layer.Layer<RunnerStorage.RunnerStorage, E, R>) =>
  Layer.effect(
    RunnerStorage.RunnerStorage,
    Effect.map(Effect.zip(RunnerStorage.RunnerStorage, ShardLease), ([storage, lease]) => renewing(storage, lease))
  ).pipe(Layer.provide(inner))

/** Fenced message storage over `inner`. */
export const layerMessageStorage = <E, R>(inner: Layer.Layer<MessageStorage.MessageStorage, E, R>) =>
  Layer.effect(
    MessageStorage.MessageStorage,
    Effect.map(Effect.zip(MessageStorage.MessageStorage, ShardLease), ([storage, lease]) => fenced(storage, lease))
  ).pipe(Layer.provide(inner))
