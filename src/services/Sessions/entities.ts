/**
 * A served session in the cluster: the `Session` entity, addressed by the session id, takes the
 * session's inputs one at a time (persisted, so an input survives the runner it was sent to), and
 * reaches the input that runs (permission answers, interrupts). Each input runs as an execution of
 * the `SessionInput` workflow, whose steps (model turns, tool calls) are durable.
 *
 * An input's workflow execution is pinned to the shard of its session entity (see `pinExecution`),
 * so a session, its running input and the session's tools' state (files read, background shells)
 * live on one runner at a time, and move together when that runner dies.
 */
import { ClusterSchema, Entity, EntityId, Sharding } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Workflow } from "@effect/workflow"
import { Effect, Equal, Schema } from "effect"
import { InputResult } from "./model.js"

export const SessionInput = Workflow.make({
  name: "toolgate/SessionInput",
  payload: {
    sessionId: Schema.String,
    key: Schema.String,
    /** Chosen so the execution lands on the session's shard. */
    salt: Schema.Number
  },
  success: InputResult,
  idempotencyKey: ({ key, salt, sessionId }) => `${sessionId}/${key}/${salt}`
})

export const Send = Rpc.make("Send", {
  payload: { key: Schema.String },
  success: InputResult,
  primaryKey: ({ key }) => key
}).annotate(ClusterSchema.Persisted, true)

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

export const Session = Entity.make("toolgate/Session", [Send, Answer, Interrupt, Stop])

const MAX_SALT = 100_000

/**
 * The first salt whose execution id hashes to the session's shard: the workflow entity then
 * runs where the session entity does. Deterministic, so a redelivered input finds the same one.
 */
export const pinExecution = (sessionId: string, key: string) =>
  Effect.gen(function*() {
    const sharding = yield* Sharding.Sharding
    const group = Session.getShardGroup(EntityId.make(sessionId))
    const target = sharding.getShardId(EntityId.make(sessionId), group)
    for (let salt = 0; salt < MAX_SALT; salt++) {
      const executionId = yield* SessionInput.executionId({ sessionId, key, salt })
      if (Equal.equals(sharding.getShardId(EntityId.make(executionId), group), target)) return { salt, executionId }
    }
    return yield* Effect.dieMessage(`no execution id on the shard of session ${sessionId}`)
  })
