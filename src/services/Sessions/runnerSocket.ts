/**
 * Runner-to-runner messages of a cluster of `toolgate serve --runner` processes: the cluster's
 * socket transport, on the interface the server was told to listen on, with a shared secret.
 * Every connection starts with a fixed-length preamble derived from the secret; a connection whose
 * first bytes are not it is closed before anything it sends reaches the cluster. (The secret
 * authenticates runners to each other; it does not encrypt: keep the runner port on a private
 * network.) Shard locks are leases (see `lease.ts`).
 */
import {
  Runners,
  RunnerHealth,
  ShardingConfig,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage
} from "@effect/cluster"
import { Socket, SocketServer } from "@effect/platform"
import { NodeSocket, NodeSocketServer } from "@effect/platform-node"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Effect, Layer, Option, Redacted, Scope } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import * as net from "node:net"
import { layer as layerLease, layerMessageStorage, layerRunnerStorage } from "./lease.js"
import { layerMessageStorage as layerPatient, layerRunnerStorage as layerResetting } from "./storageFaults.js"

/** The bytes a runner sends first on each connection. */
export const preambleOf = (secret: Redacted.Redacted): Uint8Array =>
  new TextEncoder().encode(
    `toolgate-runner/1 ${
      createHash("sha256").update(`toolgate serve runner: ${Redacted.value(secret)}`, "utf8").digest("hex")
    }\n`
  )

/** A connection to another runner that opens with the preamble. */
const connect = (address: { readonly host: string; readonly port: number }, preamble: Uint8Array) =>
  Effect.scopeWith((scope) => {
    let conn: net.Socket | undefined
    return Effect.flatMap(
      Scope.addFinalizer(
        scope,
        Effect.sync(() => {
          if (conn !== undefined && !conn.destroyed) conn.destroySoon()
        })
      ),
      () =>
        Effect.async<net.Socket, Socket.SocketError>((resume) => {
          conn = net.createConnection({ host: address.host, port: address.port, timeout: 5500 })
          conn.once("connect", () => {
            conn!.write(preamble)
            resume(Effect.succeed(conn!))
          })
          conn.on("error", (cause) => resume(Effect.fail(new Socket.SocketGenericError({ reason: "Open", cause }))))
        })
    )
  })

const layerClientProtocol = (preamble: Uint8Array) =>
  Layer.effect(
    Runners.RpcClientProtocol,
    Effect.gen(function*() {
      const serialization = yield* RpcSerialization.RpcSerialization
      return (address) =>
        Effect.gen(function*() {
          const socket = yield* NodeSocket.fromDuplex(connect(address, preamble), { openTimeout: 1000 })
          return yield* RpcClient.makeProtocolSocket().pipe(
            Effect.provideService(Socket.Socket, socket),
            Effect.provideService(RpcSerialization.RpcSerialization, serialization)
          )
        }).pipe(Effect.orDie)
    })
  )

/** The socket, read only once its first bytes are the preamble; anything else ends it. */
export const authenticated = (socket: Socket.Socket, preamble: Uint8Array): Socket.Socket => {
  const expected = Buffer.from(preamble)
  const guardRun = (run: Socket.Socket["runRaw"]): Socket.Socket["runRaw"] => (handler, options) => {
    let pending: Buffer = Buffer.alloc(0)
    let verified = false
    return run((chunk): Effect.Effect<any, any, any> | void => {
      if (verified) return handler(chunk)
      pending = Buffer.concat([pending, typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk)])
      if (pending.length < expected.length) return
      if (!timingSafeEqual(pending.subarray(0, expected.length), expected)) {
        // fails the connection's reading: it is closed
        return Effect.die(
          new Socket.SocketGenericError({
            reason: "Read",
            cause: new Error("a runner connection without the cluster's secret")
          })
        )
      }
      verified = true
      const rest = pending.subarray(expected.length)
      pending = Buffer.alloc(0)
      return rest.length > 0 ? handler(new Uint8Array(rest)) : undefined
    }, options)
  }
  return {
    ...socket,
    run: guardRun(socket.run as Socket.Socket["runRaw"]) as Socket.Socket["run"],
    runRaw: guardRun(socket.runRaw)
  }
}

const layerSocketServer = (preamble: Uint8Array) =>
  Layer.scoped(
    SocketServer.SocketServer,
    Effect.gen(function*() {
      const config = yield* ShardingConfig.ShardingConfig
      const listen = Option.orElse(config.runnerListenAddress, () => config.runnerAddress)
      if (Option.isNone(listen)) return yield* Effect.dieMessage("runner socket: no address to listen on")
      const inner = yield* NodeSocketServer.make({ host: listen.value.host, port: listen.value.port })
      return SocketServer.SocketServer.of({
        address: inner.address,
        run: (handler) => inner.run((socket) => handler(authenticated(socket, preamble)))
      })
    })
  )

/** The cluster's runner over authenticated sockets, on SQL storage (as `NodeClusterSocket.layer` builds it). */
export const layer = (options: {
  readonly secret: Redacted.Redacted
  readonly shardingConfig: Partial<ShardingConfig.ShardingConfig["Type"]>
  /** What to do when this runner's shard lease ran out: stop the process, at once. */
  readonly onLeaseLost: (message: string) => void
}) => {
  const preamble = preambleOf(options.secret)
  const client = layerClientProtocol(preamble)
  const runnerHealth = RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(client))
  return SocketRunner.layer.pipe(
    Layer.provide([layerSocketServer(preamble), client]),
    Layer.provide(runnerHealth),
    Layer.provideMerge(layerPatient(layerMessageStorage(SqlMessageStorage.layer))),
    Layer.provide(layerResetting(layerRunnerStorage(Layer.orDie(SqlRunnerStorage.layer)))),
    Layer.provideMerge(layerLease(options.onLeaseLost)),
    // shard locks as rows with an expiry, not advisory locks held as long as a connection lives
    Layer.provide(ShardingConfig.layerFromEnv({ ...options.shardingConfig, shardLockDisableAdvisory: true })),
    Layer.provide(RpcSerialization.layerMsgPack)
  )
}
