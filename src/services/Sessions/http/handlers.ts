/**
 * The HTTP API's handlers: each checks the caller's token, then asks the Sessions stage. Events
 * go out as server-sent events (`id` is the event's number, so a client that reconnects with
 * Last-Event-ID misses nothing).
 */
import { HttpApiBuilder, HttpServerError, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Cause, Effect, Layer, Option, Redacted, Schedule, Stream } from "effect"
import { Sessions, type Caller, type QuestionWait } from "../../Sessions.js"
import { InvalidRequest, PayloadTooLarge, Unauthorized, type ServeEvent } from "../model.js"
import { sameSecret } from "../tokens.js"
import { Authorization, CurrentCaller, ServeApi } from "./api.js"

/** The bearer token as a caller; the server's own token makes it an administrator. */
export const layerAuthorization = (serverToken: Redacted.Redacted | undefined): Layer.Layer<Authorization> =>
  Layer.succeed(
    Authorization,
    Authorization.of({
      bearer: (token) =>
        Effect.sync(() => {
          const value = Redacted.value(token).trim()
          const given = value === "" ? undefined : value
          return {
            token: given,
            admin: serverToken !== undefined && sameSecret(given, Redacted.value(serverToken)),
            open: serverToken === undefined
          } satisfies Caller & { readonly open: boolean }
        })
    })
  )

/** Without a server token (--no-auth, loopback only) anyone local may create and list sessions. */
const requireServerCaller = Effect.flatMap(
  CurrentCaller,
  (caller) =>
    caller.admin || caller.open
      ? Effect.void
      : Effect.fail(new Unauthorized({ message: "this endpoint needs the server's token as a bearer token" }))
)

const encoder = new TextEncoder()

/** `id` is the event's number, `event` its type, `data` its JSON (with the time it happened as `at`). */
const sseFrame = (event: ServeEvent): Uint8Array => {
  const data = event.data !== null && typeof event.data === "object" && !Array.isArray(event.data)
    ? { ...event.data, at: event.at }
    : { value: event.data, at: event.at }
  return encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`)
}

const KEEPALIVE = encoder.encode(": keepalive\n\n")

const lastEventId = (header: string | undefined): number | undefined => {
  const n = header === undefined ? Number.NaN : Number.parseInt(header, 10)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

export const layerSessionsGroup = HttpApiBuilder.group(ServeApi, "sessions", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const guard = (id: string) => Effect.flatMap(CurrentCaller, (caller) => sessions.authorize(id, caller))
    return handlers
      .handle("create", ({ payload }) => Effect.zipRight(requireServerCaller, sessions.create(payload)))
      .handle("list", ({ urlParams }) =>
        Effect.zipRight(requireServerCaller, sessions.list({ limit: urlParams.limit ?? 50, after: urlParams.after })))
      .handle("get", ({ path }) =>
        Effect.zipRight(guard(path.id), sessions.view(path.id)))
      .handle("send", ({ path, payload, urlParams }) =>
        Effect.zipRight(guard(path.id), sessions.send(path.id, payload, urlParams.wait ?? true)))
      .handle("input", ({ path, urlParams }) =>
        Effect.zipRight(guard(path.id), sessions.input(path.id, path.key, urlParams.wait ?? true)))
      .handleRaw("events", ({ path, request, urlParams }) =>
        Effect.gen(function*() {
          yield* guard(path.id)
          const after = urlParams.after ?? lastEventId(request.headers["last-event-id"]) ?? 0
          const follow = urlParams.follow ?? true
          const events = sessions.events(path.id, { after, follow }).pipe(
            Stream.map(sseFrame),
            Stream.catchAll((e) =>
              Stream.succeed(encoder.encode(`event: error\ndata: ${JSON.stringify({ message: e.message })}\n\n`))
            )
          )
          const body = follow
            ? Stream.merge(events, Stream.fromSchedule(Schedule.spaced("15 seconds")).pipe(Stream.as(KEEPALIVE)), {
              haltStrategy: "left"
            })
            : events
          return HttpServerResponse.stream(body, {
            contentType: "text/event-stream",
            headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
          })
        }))
      .handle("approvals", ({ path, urlParams }) =>
        Effect.zipRight(guard(path.id), sessions.approvals(path.id, questionWait(urlParams))))
      .handle("answer", ({ path, payload, urlParams }) =>
        Effect.zipRight(guard(path.id), sessions.answer(path.id, path.toolUseId, payload, questionWait(urlParams))))
      .handle("interrupt", ({ path }) =>
        Effect.zipRight(
          guard(path.id),
          Effect.map(sessions.interrupt(path.id), (interrupted) => ({ interrupted }))
        ))
      .handle("stop", ({ path }) =>
        Effect.zipRight(guard(path.id), sessions.stop(path.id)))
      .handle("transcript", ({ path }) =>
        Effect.zipRight(guard(path.id), sessions.transcript(path.id)))
      .handle("delete", ({ path }) =>
        Effect.zipRight(guard(path.id), Effect.as(sessions.remove(path.id), { deleted: true })))
  }))

const questionWait = (
  params: { readonly wait?: boolean | undefined; readonly timeout?: number | undefined }
): QuestionWait => ({
  wait: params.wait ?? false,
  timeoutMs: (params.timeout ?? 120) * 1000
})

export const layerServerGroup = (runner: string) =>
  HttpApiBuilder.group(ServeApi, "server", (handlers) =>
    Effect.gen(function*() {
      const sessions = yield* Sessions
      return handlers
        .handle("health", () => Effect.succeed({ ok: true, runner }))
        .handle(
          "ready",
          () => Effect.flatMap(sessions.readiness, (r) => (r.ready ? Effect.succeed(r) : Effect.fail(r)))
        )
    }))

/** A Schema issue path as one readable line. */
const issueLine = (issue: { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }) =>
  issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`

/**
 * Errors of the request itself, in one line each: a body that is not JSON says where it breaks,
 * a body that does not fit says which field and why, an oversized body is a 413, an unknown
 * route a 404 naming it.
 */
export const layerOpenApiGroup = HttpApiBuilder.group(
  ServeApi,
  "openapi",
  (handlers) => handlers.handle("document", () => Effect.as(requireServerCaller, OpenApi.fromApi(ServeApi)))
)

export const layerErrors = HttpApiBuilder.middleware(ServeApi, (app) =>
  app.pipe(
    // a body that cannot be read or parsed is a defect of the endpoint's decoding: caught here too
    Effect.catchAllCause((cause) => {
      const error = Option.getOrUndefined(Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause)))
      return error === undefined ? Effect.failCause(cause) : requestError(error, cause)
    })
  ))

type Answer = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  InvalidRequest | PayloadTooLarge,
  HttpServerRequest.HttpServerRequest
>

const requestError = (error: unknown, cause: Cause.Cause<unknown>): Answer => {
  if (error instanceof HttpApiDecodeError) {
    return Effect.fail(new InvalidRequest({ message: `invalid request: ${error.issues.map(issueLine).join("; ")}` }))
  }
  if (error instanceof HttpServerError.RequestError) {
    const why = error.cause instanceof Error ? error.cause.message : String(error.cause ?? error.description ?? "")
    if (why.includes("maxBytes")) {
      return Effect.fail(new PayloadTooLarge({ message: "the request body is larger than this server accepts" }))
    }
    return Effect.fail(
      new InvalidRequest({
        message: error.reason === "Decode"
          ? `the body is not valid JSON: ${why}`
          : `the request could not be read: ${why}`
      })
    )
  }
  if (error instanceof HttpServerError.RouteNotFound) {
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      HttpServerResponse.json(
        {
          _tag: "NotFound",
          message: `no such endpoint: ${request.method} ${new URL(request.url, "http://server").pathname}`
        },
        { status: 404 }
      ).pipe(Effect.orDie))
  }
  return Effect.failCause(cause as Cause.Cause<InvalidRequest>)
}

/** The whole API, given the Sessions stage and the server's token (undefined only with --no-auth). */
export const layer = (options: { readonly runner: string; readonly serverToken: Redacted.Redacted | undefined }) =>
  HttpApiBuilder.api(ServeApi).pipe(
    Layer.provide([layerSessionsGroup, layerServerGroup(options.runner), layerOpenApiGroup, layerErrors]),
    Layer.provide(layerAuthorization(options.serverToken))
  )

export { answerClientError, guard, PARSER_HEADER_BYTES, type HttpGuards } from "./guards.js"
