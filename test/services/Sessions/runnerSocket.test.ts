/**
 * The runners' shared secret on their sockets: a connection is read only once its first bytes are
 * the preamble of the cluster's secret (however the bytes arrive); another secret, or none, ends it
 * before anything reaches the cluster.
 */
import { Socket } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { authenticated, preambleOf } from "../../../src/services/Sessions/runnerSocket.js"

/** A socket that delivers these chunks, in order, to whatever reads it. */
const socketOf = (chunks: ReadonlyArray<Uint8Array>): Socket.Socket => {
  const run: Socket.Socket["runRaw"] = (handler) =>
    Effect.gen(function*() {
      for (const chunk of chunks) {
        const result = handler(chunk)
        if (Effect.isEffect(result)) yield* result
      }
    }) as never
  return {
    [Socket.TypeId]: Socket.TypeId,
    run: run as Socket.Socket["run"],
    runRaw: run,
    writer: Effect.succeed(() => Effect.void)
  } as Socket.Socket
}

const read = (socket: Socket.Socket) =>
  Effect.gen(function*() {
    const received: Array<number> = []
    const exit = yield* Effect.exit(socket.run((chunk) => void received.push(...chunk)))
    return { exit, received }
  })

const secret = Redacted.make("the-cluster-secret-0123456789")
const body = new Uint8Array([1, 2, 3, 4])

describe("runner sockets", () => {
  it.effect("pass what follows the cluster's preamble, split anywhere", () =>
    Effect.gen(function*() {
      const preamble = preambleOf(secret)
      const whole = new Uint8Array([...preamble, ...body])
      for (const cut of [1, 10, preamble.length, preamble.length + 2]) {
        const { exit, received } = yield* read(
          authenticated(socketOf([whole.slice(0, cut), whole.slice(cut)]), preamble)
        )
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(received).toEqual([...body])
      }
    }))

  it.effect("end a connection that opens with another secret or none, passing nothing on", () =>
    Effect.gen(function*() {
      const preamble = preambleOf(secret)
      const other = preambleOf(Redacted.make("another-secret-0123456789"))
      for (const opening of [other, new Uint8Array(preamble.length).fill(0x82)]) {
        const { exit, received } = yield* read(authenticated(socketOf([opening, body]), preamble))
        expect(Exit.isSuccess(exit)).toBe(false)
        expect(received).toEqual([])
      }
    }))
})
