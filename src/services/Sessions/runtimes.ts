/**
 * Each served session runs on a runtime of its own (settings, tool pool, MCP servers, file
 * state, background shells, the agent on its model), built on the runner where the session runs
 * at its first input there and kept while it is used, while its background shells run, and for an
 * idle time after (then its memory and processes are given back; the next input builds it again
 * from storage). How a runtime is put together is the preset's business (`SessionRuntimeBuilder`):
 * this stage only caches them.
 */
import { Context, Duration, Effect, Layer, Option, RcMap, Schedule, Schema, Scope } from "effect"
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

/** Whether a session's runtime still does work of its own between inputs (background shells). */
export interface RuntimeActivityService {
  readonly busy: Effect.Effect<boolean>
}

export class RuntimeActivity extends Context.Tag("toolgate/Sessions/RuntimeActivity")<
  RuntimeActivity,
  RuntimeActivityService
>() {}

export type SessionServices = Agent | Scheduler | Settings | ToolRegistry | RuntimeActivity

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
  /** How many sessions have a runtime on this runner. */
  readonly count: Effect.Effect<number>
}

export class SessionRuntimes
  extends Context.Tag("toolgate/Sessions/SessionRuntimes")<SessionRuntimes, SessionRuntimesService>()
{}

export const decodeConfig = Schema.decodeUnknown(StoredConfig)

export interface RuntimesOptions {
  /** How long a runtime no input uses and with no background shell running is kept (default 2 minutes). */
  readonly idleTimeToLive?: Duration.DurationInput
}

const DEFAULT_IDLE = Duration.minutes(2)

export const make = (options: RuntimesOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const builder = yield* SessionRuntimeBuilder
    const idleMs = Duration.toMillis(options.idleTimeToLive ?? DEFAULT_IDLE)
    // released here, not by the map's own idle timer: a runtime whose background shells run is kept
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
          // built apart from the runner's services (cluster, storage, the HTTP request that came
          // first): the runtime hands its whole context to every tool call, and keeps it
          return yield* Layer.build(builder.build({ sessionId, config, grantedRules: row.value.grantedRules })).pipe(
            Effect.mapInputContext((outer: Context.Context<Scope.Scope>) =>
              Context.make(Scope.Scope, Context.get(outer, Scope.Scope))
            )
          )
        }),
      idleTimeToLive: Duration.infinity
    })
    /** Inputs holding each runtime, and when the last one let go. */
    const uses = new Map<string, { holders: number; since: number }>()
    const hold = (sessionId: string) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const use = uses.get(sessionId) ?? { holders: 0, since: Date.now() }
          uses.set(sessionId, { holders: use.holders + 1, since: use.since })
        }),
        () =>
          Effect.sync(() => {
            const use = uses.get(sessionId)
            if (use !== undefined) uses.set(sessionId, { holders: Math.max(0, use.holders - 1), since: Date.now() })
          })
      )
    const release = (sessionId: string) =>
      Effect.zipRight(Effect.sync(() => uses.delete(sessionId)), RcMap.invalidate(runtimes, sessionId))
    const sweep = Effect.gen(function*() {
      const now = Date.now()
      for (const [sessionId, use] of Array.from(uses)) {
        if (use.holders > 0 || now - use.since < idleMs) continue
        // a runtime whose build failed is not in the map: looking it up would build it again
        if (!(yield* RcMap.has(runtimes, sessionId))) {
          uses.delete(sessionId)
          continue
        }
        const context = yield* RcMap.get(runtimes, sessionId).pipe(Effect.scoped, Effect.option)
        const busy = Option.isSome(context)
          ? yield* Context.get(context.value, RuntimeActivity).busy.pipe(Effect.orElseSucceed(() => false))
          : false
        if (busy) uses.set(sessionId, { holders: 0, since: now })
        else if (uses.get(sessionId)?.holders === 0) yield* release(sessionId)
      }
    })
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(Math.min(10_000, Math.max(100, Math.floor(idleMs / 4)))))),
      Effect.forkScoped
    )
    return SessionRuntimes.of({
      get: (sessionId) => Effect.zipRight(hold(sessionId), RcMap.get(runtimes, sessionId)),
      release,
      count: Effect.map(RcMap.keys(runtimes), (keys) => keys.length)
    })
  })

export const layer = (options: RuntimesOptions = {}): Layer.Layer<
  SessionRuntimes,
  never,
  SessionStore | SessionRuntimeBuilder
> => Layer.scoped(SessionRuntimes, make(options))
