/**
 * Claude through `@anthropic-ai/sdk` 1.x, streaming. The SDK is imported when the layer is built
 * (it is external to the CLI bundle and must not slow `toolgate --version`). The SDK's own
 * retries are off (`maxRetries: 0`): retries are an Effect Schedule here, and happen only
 * before the first event of a message. SDK errors become typed model errors; an `error` event
 * after HTTP 200 is turned back into a raw `error` event so the shared assembler handles it.
 */
import { Clock, Effect, Option, Redacted, Stream } from "effect"
import type { ModelClientService, ModelRequest } from "../ModelClient.js"
import { ModelApiError, ModelConnectionError, ModelStreamError, type ModelError } from "./errors.js"
import type { ModelEvent } from "../../ModelEvents.js"
import { buildParams } from "./request.js"
import { defaultRetryPolicy, withRetries, type RetryPolicy } from "./retry.js"
import { assembleStream } from "./stream.js"

export interface AnthropicOptions {
  readonly apiKey: Redacted.Redacted<string>
  readonly model: string
  /** Defaults to the SDK's (https://api.anthropic.com). */
  readonly baseUrl?: string
  readonly maxTokens?: number
  readonly retry?: RetryPolicy
  /** Per request, ms (the SDK's default is 10 minutes). */
  readonly timeoutMs?: number
}

interface SdkStream extends AsyncIterable<unknown> {
  readonly controller: AbortController
}
interface SdkClient {
  readonly baseURL: string
  readonly messages: {
    create: (params: Record<string, unknown>, options: { signal: AbortSignal }) => PromiseLike<SdkStream>
  }
}
type SdkModule = {
  default?: new(options: Record<string, unknown>) => SdkClient
  Anthropic?: new(options: Record<string, unknown>) => SdkClient
}

const isObject = (u: unknown): u is Record<string, any> => u !== null && typeof u === "object"

/** The deepest useful text of a network failure (`fetch failed` → `connect ECONNREFUSED 127.0.0.1:1`). */
const networkReason = (e: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = e
  for (let depth = 0; depth < 4 && isObject(current); depth++) {
    const message = typeof current.message === "string" ? current.message : ""
    const code = typeof current.code === "string" ? current.code : ""
    if (message !== "" && !parts.includes(message)) parts.push(message)
    else if (code !== "" && !parts.includes(code)) parts.push(code)
    current = current.cause
  }
  // the SDK's own "Connection error." says less than its causes
  const useful = parts.length > 1 && /^connection error\.?$/i.test(parts[0]!) ? parts.slice(1) : parts
  return useful.length === 0 ? String(e) : useful.join(": ")
}

/** SDK error → model error. `beforeFirstEvent`: nothing of the message has arrived yet. */
export const toModelError = (e: unknown, baseUrl: string, beforeFirstEvent: boolean): ModelError => {
  if (isObject(e) && typeof e.status === "number") {
    const body = isObject(e.error) ? e.error : {}
    const inner = isObject(body.error) ? body.error : body
    const errorType = typeof e.type === "string" ? e.type : typeof inner.type === "string" ? inner.type : undefined
    const reason = typeof e.apiMessage === "string" && e.apiMessage !== ""
      ? e.apiMessage
      : typeof inner.message === "string"
      ? inner.message
      : typeof e.message === "string"
      ? e.message.replace(/^\d+\s+/, "")
      : "no details"
    return new ModelApiError(
      errorType === undefined ? { status: e.status, reason } : { status: e.status, errorType, reason }
    )
  }
  const name = isObject(e) && typeof e.name === "string" ? e.name : ""
  if (name === "APIError" && isObject(e)) {
    // an `error` event after HTTP 200
    return new ModelStreamError({
      errorType: typeof e.type === "string" ? e.type : "error",
      reason: typeof e.apiMessage === "string" && e.apiMessage !== "" ? e.apiMessage : String(e.message),
      beforeFirstEvent
    })
  }
  if (!beforeFirstEvent) {
    return new ModelStreamError({ errorType: "connection", reason: networkReason(e), beforeFirstEvent })
  }
  return new ModelConnectionError({ baseUrl, reason: networkReason(e) })
}

export const makeAnthropic = (options: AnthropicOptions): Effect.Effect<ModelClientService> =>
  Effect.gen(function*() {
    const sdk = yield* Effect.promise(() => import("@anthropic-ai/sdk") as Promise<unknown>)
    const mod = sdk as SdkModule
    const Anthropic = mod.Anthropic ?? mod.default
    if (Anthropic === undefined) return yield* Effect.dieMessage("@anthropic-ai/sdk has no Anthropic export")
    const client = new Anthropic({
      apiKey: Redacted.value(options.apiKey),
      maxRetries: 0,
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs })
    })
    const baseUrl = client.baseURL
    const policy = options.retry ?? defaultRetryPolicy
    const maxTokens = options.maxTokens ?? 16_384

    /** One HTTP attempt, up to its first event. The controller lives as long as the stream's scope. */
    const open = (params: Record<string, unknown>) =>
      Effect.gen(function*() {
        const controller = new AbortController()
        yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
        const attempt = Effect.gen(function*() {
          const stream = yield* Effect.tryPromise({
            try: (signal) => {
              signal.addEventListener("abort", () => controller.abort())
              return client.messages.create(params, { signal: controller.signal })
            },
            catch: (e) => toModelError(e, baseUrl, true)
          })
          const iterator = stream[Symbol.asyncIterator]()
          const first = yield* Effect.tryPromise({
            try: (signal) => {
              signal.addEventListener("abort", () => controller.abort())
              return iterator.next()
            },
            catch: (e) => toModelError(e, baseUrl, true)
          })
          if (first.done === true) {
            return yield* new ModelStreamError({
              errorType: "connection",
              reason: "the stream ended before any event",
              beforeFirstEvent: true
            })
          }
          return { first: first.value as unknown, iterator }
        })
        return yield* attempt.pipe(Effect.onError(() => Effect.sync(() => controller.abort())))
      })

    const rest = (iterator: AsyncIterator<unknown>): Stream.Stream<unknown, ModelError> =>
      Stream.repeatEffectOption(
        Effect.tryPromise({ try: () => iterator.next(), catch: (e) => e }).pipe(
          Effect.matchEffect({
            onFailure: (e) => {
              const error = toModelError(e, baseUrl, false)
              // an error event mid-stream: hand it to the assembler as the raw event it was
              return error._tag === "ModelStreamError" && error.errorType !== "connection"
                ? Effect.succeed<unknown>({ type: "error", error: { type: error.errorType, message: error.reason } })
                : Effect.fail(Option.some(error))
            },
            onSuccess: (
              result
            ) => (result.done === true ? Effect.fail(Option.none()) : Effect.succeed(result.value as unknown))
          })
        )
      ).pipe(Stream.takeUntil((event) => isObject(event) && event.type === "error"))

    const stream = (request: ModelRequest): Stream.Stream<ModelEvent, ModelError> =>
      Stream.unwrapScoped(
        Effect.gen(function*() {
          const t0 = yield* Clock.currentTimeMillis
          const params = buildParams(options.model, maxTokens, request)
          const { first, iterator } = yield* withRetries(open(params), policy, request.onRetry)
          return assembleStream(Stream.concat(Stream.succeed(first), rest(iterator)), t0)
        })
      ).pipe(Stream.withSpan("ModelClient.stream", { attributes: { model: options.model } }))

    return { model: options.model, stream }
  })
