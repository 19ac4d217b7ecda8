/**
 * The scripted model: replays the turns of a script or transcript (see script.ts), one per
 * request, with their streaming timing, through the same assembler as the SDK layer. Failures
 * in the script go through the same retries as live ones.
 */
import { Clock, Duration, Effect, Ref, Stream } from "effect"
import type { ModelClientService, ModelRequest } from "../ModelClient.js"
import { ModelApiError, ModelConnectionError, ScriptError, type ModelError } from "./errors.js"
import type { ModelEvent } from "../../ModelEvents.js"
import { defaultRetryPolicy, withRetries, type RetryPolicy } from "./retry.js"
import { loadScript, substituteCwd, type Script } from "./script.js"
import { assembleStream } from "./stream.js"

export interface ScriptedOptions {
  /** A script / transcript file, or one already loaded. */
  readonly script: string | Script
  /** The session's working directory, for `{{cwd}}` and a transcript's recorded cwd. */
  readonly cwd: string
  /** Multiplies every recorded delay: 1 = as recorded, 0 = no delays. */
  readonly timeScale?: number
  readonly retry?: RetryPolicy
}

export const makeScripted = (options: ScriptedOptions): Effect.Effect<ModelClientService, ScriptError> =>
  Effect.gen(function*() {
    const script = typeof options.script === "string" ? yield* loadScript(options.script) : options.script
    const next = yield* Ref.make(0)
    const scale = Math.max(0, options.timeScale ?? 1)
    const policy = options.retry ?? { ...defaultRetryPolicy, baseDelayMs: 50, maxDelayMs: 200 }

    const take = Effect.gen(function*() {
      const index = yield* Ref.getAndUpdate(next, (n) => n + 1)
      const turn = script.turns[index]
      if (turn === undefined) {
        return yield* new ScriptError({
          file: script.file,
          reason: `the scripted session has ${script.turns.length} model turn(s) and the run asked for turn ${
            index + 1
          }`
        })
      }
      if (turn._tag === "Failure") {
        const failure: ModelError = turn.status === 0
          ? new ModelConnectionError({ baseUrl: `scripted:${script.file}`, reason: turn.message })
          : new ModelApiError(
            turn.errorType === undefined
              ? { status: turn.status, reason: turn.message }
              : { status: turn.status, errorType: turn.errorType, reason: turn.message }
          )
        return yield* Effect.fail(failure)
      }
      return substituteCwd(turn.events, options.cwd, script.recordedCwd)
    })

    const stream = (request: ModelRequest): Stream.Stream<ModelEvent, ModelError> =>
      Stream.unwrap(
        Effect.gen(function*() {
          const t0 = yield* Clock.currentTimeMillis
          const events = yield* withRetries(take, policy, request.onRetry)
          const raw = Stream.fromIterable(events).pipe(
            Stream.mapEffect((e) =>
              scale === 0 || e.delayMs <= 0
                ? Effect.succeed(e.event)
                : Effect.as(Effect.sleep(Duration.millis(e.delayMs * scale)), e.event)
            )
          )
          return assembleStream(raw, t0)
        })
      ).pipe(Stream.withSpan("ModelClient.stream", { attributes: { model: `scripted:${script.file}` } }))

    return { model: `scripted:${script.file}`, stream }
  })
