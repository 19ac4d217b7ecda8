/**
 * The runner storage after a storage fault (`resetting`, over the lease-renewing storage of a
 * runner on PostgreSQL): the refresh of the shard locks is refused, so the cluster lets go of the
 * shards; the probes that follow still store the runner's heartbeat, which renews its lease, and
 * are refused until storage has taken writes for a while; then the shards are taken back.
 */
import { RunnerAddress, type RunnerStorage, ShardId } from "@effect/cluster"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { renewing } from "../../../src/services/Sessions/lease.js"
import { faultReason, isStorageFault, makeHealth, resetting } from "../../../src/services/Sessions/storageFaults.js"

const address = RunnerAddress.make("127.0.0.1", 34431)
const shard = ShardId.make("default", 1)

/** A runner storage whose refreshes succeed and are counted (with how many shards each named). */
const countingStorage = () => {
  const refreshed: Array<number> = []
  const storage = {
    refresh: (_address: RunnerAddress.RunnerAddress, shardIds: Iterable<ShardId.ShardId>) =>
      Effect.sync(() => {
        const ids = Array.from(shardIds)
        refreshed.push(ids.length)
        return ids.map(String)
      })
  } as unknown as RunnerStorage.RunnerStorage["Type"]
  return { storage, refreshed }
}

describe("storage faults", () => {
  it("are named in their own words, without error codes", () => {
    const sqlError = (cause: unknown) => ({ message: "Failed to execute statement", cause })
    expect(
      faultReason(
        sqlError({ message: "could not extend file \"base/16385/16499\": No space left on device", code: "53100" })
      )
    ).toBe("could not extend file \"base/16385/16499\": No space left on device")
    expect(faultReason(sqlError({ message: "database or disk is full", code: "SQLITE_FULL" }))).toBe(
      "database or disk is full"
    )
  })

  it("include a database server that restarts, not a statement it refuses", () => {
    const sqlError = (cause: unknown) => ({ message: "Failed to execute statement", cause })
    expect(isStorageFault(sqlError(new Error("Connection terminated unexpectedly")))).toBe(true)
    expect(isStorageFault(sqlError({ message: "the database system is in recovery mode", code: "57P03" }))).toBe(true)
    expect(isStorageFault(sqlError({ message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" }))).toBe(
      true
    )
    expect(
      isStorageFault(sqlError({ message: "duplicate key value violates unique constraint", code: "23505" }))
    ).toBe(false)
  })
})

describe("runner storage after a storage fault", () => {
  it.live("lets go of the shards, keeps the lease with its heartbeat, and takes the shards back once quiet", () =>
    Effect.gen(function*() {
      const health = makeHealth()
      const renewals: Array<number> = []
      const inner = countingStorage()
      const storage = resetting(
        renewing(inner.storage, { check: Effect.void, renewed: (at) => void renewals.push(at) }),
        health
      )

      expect(yield* storage.refresh(address, [shard])).toEqual([String(shard)])
      expect(renewals).toHaveLength(1)

      health.noteFault("No space left on device")
      // the locks are not refreshed: the cluster lets go of the shards
      expect(Exit.isFailure(yield* Effect.exit(storage.refresh(address, [shard])))).toBe(true)
      expect(inner.refreshed).toEqual([1])

      // a probe while the fault is recent: refused, but the heartbeat is stored and renews the lease
      expect(Exit.isFailure(yield* Effect.exit(storage.refresh(address, [])))).toBe(true)
      expect(inner.refreshed).toEqual([1, 0])
      expect(renewals).toHaveLength(2)

      // storage took writes for a while: the probe succeeds, and the shards' locks are refreshed again
      yield* Effect.sleep("1100 millis")
      expect(yield* storage.refresh(address, [])).toEqual([])
      expect(yield* storage.refresh(address, [shard])).toEqual([String(shard)])
      expect(inner.refreshed).toEqual([1, 0, 0, 1])
      expect(renewals).toHaveLength(4)
    }))
})
