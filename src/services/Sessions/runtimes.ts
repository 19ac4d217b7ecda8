/**
 * Each served session runs on a runtime of its own (settings, tool pool, MCP servers, file
 * state, background shells, the agent on its model), built on the runner where the session runs
 * at its first input there and kept while it is used and for a while after. How a runtime is put
 * together is the preset's business (`SessionRuntimeBuilder`): this stage only caches them.
 */
import { Context, Duration, Effect, Layer, Option, RcMap, Schema, type Scope } from "effect"
import type { Agent } from "../Agent.js"
import type { Scheduler } from "../Scheduler.js"
import type { Settings } from "../Settings.js"
import type { ToolRegistry } from "../ToolRegistry.js"
import { CreateSession } from "./model.js"
import { SessionStore } from "./store.js"

/** A session's configuration as stored: what it was created with, and where its files go. */
export const StoredConfig = Schema.Struct({
  ...CreateSession.fields,
  sessionDir: Schema.String
})
export type StoredConfig = typeof StoredConfig.Type

export type SessionServices = Agent | Scheduler | Settings | ToolRegistry

export class SessionUnavailable extends Schema.TaggedError<SessionUnavailable>()("SessionUnavailable", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId}: ${this.reason}`
  }
}

export interface SessionRuntimeBuilderService {
  readonly build: (options: {
    readonly sessionId: string
    readonly config: StoredConfig
    /** Rules granted by "allow for the session" answers so far. */
    readonly grantedRules: ReadonlyArray<string>
  }) => Layer.Layer<SessionServices, SessionUnavailable>
}

export class SessionRuntimeBuilder extends Context.Tag("toolgate/Sessions/SessionRuntimeBuilder")<
  SessionRuntimeBuilder,
  SessionRuntimeBuilderService
>() {}

export interface SessionRuntimesService {
  /** The session's runtime on this runner, held for the scope. */
  readonly get: (sessionId: string) => Effect.Effect<Context.Context<SessionServices>, SessionUnavailable, Scope.Scope>
  /** Lets go of the session's runtime here (its shells and servers stop once no input uses it). */
  readonly release: (sessionId: string) => Effect.Effect<void>
}

export class SessionRuntimes
  extends Context.Tag("toolgate/Sessions/SessionRuntimes")<SessionRuntimes, SessionRuntimesService>()
{}

export const decodeConfig = Schema.decodeUnknown(StoredConfig)

export const make = (options: { readonly idleTimeToLive?: Duration.DurationInput } = {}) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const builder = yield* SessionRuntimeBuilder
    const runtimes = yield* RcMap.make({
      lookup: (sessionId: string) =>
        Effect.gen(function*() {
          const row = yield* store.session(sessionId).pipe(
            Effect.mapError((e) => new SessionUnavailable({ sessionId, reason: e.message }))
          )
          if (Option.isNone(row)) return yield* new SessionUnavailable({ sessionId, reason: "no such session" })
          const config = yield* decodeConfig(row.value.config).pipe(
            Effect.mapError((e) =>
              new SessionUnavailable({ sessionId, reason: `its stored configuration cannot be read: ${e.message}` })
            )
          )
          return yield* Layer.build(builder.build({ sessionId, config, grantedRules: row.value.grantedRules }))
        }),
      idleTimeToLive: options.idleTimeToLive ?? Duration.minutes(10)
    })
    return SessionRuntimes.of({
      get: (sessionId) => RcMap.get(runtimes, sessionId),
      release: (sessionId) => RcMap.invalidate(runtimes, sessionId)
    })
  })

export const layer = (options: { readonly idleTimeToLive?: Duration.DurationInput } = {}): Layer.Layer<
  SessionRuntimes,
  never,
  SessionStore | SessionRuntimeBuilder
> => Layer.scoped(SessionRuntimes, make(options))
