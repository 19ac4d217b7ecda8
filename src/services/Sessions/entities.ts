/**
 * A served session in the cluster: the `Session` entity, addressed by the session id, takes the
 * session's inputs one at a time (among runners as persisted messages, so an input survives the
 * runner it was sent to; from the one-process server directly, see `Run`), and reaches the input
 * that runs (permission answers, interrupts). The entity runs each input itself (see
 * `execute.ts`), as durable steps (model turns, tool calls) stored under the input's execution id:
 * a session, its running input and the session's tools' state (files read, background shells)
 * live on one runner at a time, and move together when that runner dies.
 */
import { ClusterSchema, Entity } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Schema } from "effect"
import { createHash } from "node:crypto"
import { InputResult } from "./model.js"

/**
 * Sends an input to its session; the reply is the input's result. Uninterruptible: a client that
 * stops waiting (an HTTP request cut) does not stop the input, and an input stopped any other way
 * than by its runner shutting down is started again (it resumes from its stored steps).
 */
export const Send = Rpc.make("Send", {
  payload: { key: Schema.String },
  success: InputResult,
  primaryKey: ({ key }) => key
}).annotate(ClusterSchema.Persisted, true).annotate(ClusterSchema.Uninterruptible, true)

/**
 * `Send` without a cluster message: the one-process server's delivery. The input's stored row is
 * the durable record there, and the server itself delivers again what a crash or a storage fault
 * left unfinished (see `Sessions.ts`); a persisted message would be a second record, written and
 * read back through the cluster's storage for every input.
 */
export const Run = Rpc.make("Run", {
  payload: { key: Schema.String },
  success: InputResult
}).annotate(ClusterSchema.Uninterruptible, true)

export const Answer = Rpc.make("Answer", {
  payload: { toolUseId: Schema.String },
  success: Schema.Boolean
})

export const Interrupt = Rpc.make("Interrupt", {
  payload: { times: Schema.Number },
  success: Schema.Boolean
})

/** Interrupts the running input twice (everything stops) and lets go of the session's runtime. */
export const Stop = Rpc.make("Stop", { success: Schema.Boolean })

export const Session = Entity.make("toolgate/Session", [Send, Run, Answer, Interrupt, Stop])

/**
 * The execution id of an input: what its durable steps, call marks and permission questions are
 * stored under. Deterministic, so a redelivered input finds its steps; an input started by an
 * earlier version keeps the id stored with it.
 */
export const executionIdOf = (sessionId: string, key: string): string =>
  `input-${createHash("sha256").update(`${sessionId}/${key}`).digest("hex").slice(0, 40)}`
