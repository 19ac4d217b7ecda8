/**
 * The HTTP API of `toolgate serve`, written with @effect/platform's HttpApi: the OpenAPI document
 * at /openapi.json is generated from these definitions.
 *
 * Every session endpoint needs a bearer token: the session's own (returned once, when it is
 * created) or the server's. Creating and listing sessions need the server's token (unless the
 * server runs with --no-auth, on loopback only). A token is read from the Authorization header
 * only, never from the URL.
 */
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "@effect/platform"
import { Context, Schema } from "effect"
import type { Caller } from "../../Sessions.js"
import {
  AnswerApproval,
  ApprovalView,
  Conflict,
  CreateSession,
  Forbidden,
  InputResult,
  InvalidRequest,
  PayloadTooLarge,
  Readiness,
  SendInput,
  SessionCreated,
  SessionNotFound,
  SessionPage,
  SessionView,
  Unauthorized,
  Unavailable,
  TooBusy
} from "../model.js"

export class CurrentCaller
  extends Context.Tag("toolgate/Sessions/CurrentCaller")<CurrentCaller, Caller & { readonly open: boolean }>()
{}

/** Reads the bearer token; whether it is good enough is each endpoint's question. */
export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("toolgate/Sessions/Authorization", {
  provides: CurrentCaller,
  failure: Unauthorized,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const id = HttpApiSchema.param("id", Schema.String)
const key = HttpApiSchema.param("key", Schema.String)
const toolUseId = HttpApiSchema.param("toolUseId", Schema.String)

const WaitForQuestion = Schema.Struct({
  wait: Schema.optional(Schema.BooleanFromString).annotations({
    description: "true: wait until the question is asked (default false)"
  }),
  timeout: Schema.optional(Schema.NumberFromString.pipe(Schema.between(0, 600))).annotations({
    description: "Seconds to wait (default 120)"
  })
})

const Wait = Schema.Struct({
  wait: Schema.optional(Schema.BooleanFromString).annotations({
    description: "true (default): answer once the input finished"
  })
})

export const sessions = HttpApiGroup.make("sessions")
  .add(
    HttpApiEndpoint.post("create", "/sessions")
      .setPayload(CreateSession)
      .addSuccess(SessionCreated, { status: 201 })
      .annotate(OpenApi.Summary, "Create a session")
  )
  .add(
    HttpApiEndpoint.get("list", "/sessions")
      .setUrlParams(
        Schema.Struct({
          limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500))).annotations({
            description: "Sessions per page (default 50)"
          }),
          after: Schema.optional(Schema.String).annotations({ description: "The `next` cursor of the previous page" })
        })
      )
      .addSuccess(SessionPage)
      .annotate(OpenApi.Summary, "List sessions, oldest first, a page at a time")
  )
  .add(
    HttpApiEndpoint.get("get")`/sessions/${id}`.addSuccess(SessionView).annotate(OpenApi.Summary, "Inspect a session")
  )
  .add(
    HttpApiEndpoint.post("send")`/sessions/${id}/messages`
      .setPayload(SendInput)
      .setUrlParams(Wait)
      .addSuccess(InputResult)
      .addError(TooBusy)
      .annotate(OpenApi.Summary, "Send a prompt (the agent loop runs) or tool_use blocks (the scheduler runs them)")
  )
  .add(
    HttpApiEndpoint.get("input")`/sessions/${id}/messages/${key}`
      .setUrlParams(Wait)
      .addSuccess(InputResult)
      .annotate(OpenApi.Summary, "An input's status and result")
  )
  .add(
    HttpApiEndpoint.get("events")`/sessions/${id}/events`
      .setUrlParams(
        Schema.Struct({
          after: Schema.optional(Schema.NumberFromString).annotations({
            description: "Only events after this one (also the Last-Event-ID header)"
          }),
          follow: Schema.optional(Schema.BooleanFromString).annotations({
            description: "true (default): stay open for new events"
          })
        })
      )
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .annotate(OpenApi.Summary, "The session's events as server-sent events")
  )
  .add(
    HttpApiEndpoint.get("approvals")`/sessions/${id}/approvals`
      .setUrlParams(WaitForQuestion)
      .addSuccess(Schema.Array(ApprovalView))
      .annotate(OpenApi.Summary, "Open permission questions (with wait=true: once there is one)")
  )
  .add(
    HttpApiEndpoint.post("answer")`/sessions/${id}/approvals/${toolUseId}`
      .setPayload(AnswerApproval)
      .setUrlParams(WaitForQuestion)
      .addSuccess(ApprovalView)
      .annotate(OpenApi.Summary, "Answer a permission question (with wait=true: once it is asked)")
  )
  .add(
    HttpApiEndpoint.post("interrupt")`/sessions/${id}/interrupt`
      .addSuccess(Schema.Struct({ interrupted: Schema.Boolean }))
      .annotate(OpenApi.Summary, "Interrupt the running input (like Ctrl-C)")
  )
  .add(
    HttpApiEndpoint.post("stop")`/sessions/${id}/stop`.addSuccess(SessionView).annotate(
      OpenApi.Summary,
      "Stop the session"
    )
  )
  .add(
    HttpApiEndpoint.del("delete")`/sessions/${id}`
      .addSuccess(Schema.Struct({ deleted: Schema.Boolean }))
      .annotate(OpenApi.Summary, "Stop the session and delete everything it stored (inputs, events, transcript, files)")
  )
  .add(
    HttpApiEndpoint.get("transcript")`/sessions/${id}/transcript`
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }))
      .annotate(OpenApi.Summary, "The transcript (JSONL, as `toolgate replay` reads it)")
  )
  .addError(SessionNotFound)
  .addError(Conflict)
  .addError(InvalidRequest)
  .addError(Unavailable)
  .middleware(Authorization)

export const server = HttpApiGroup.make("server")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Schema.Struct({ ok: Schema.Boolean, runner: Schema.String }))
      .annotate(OpenApi.Summary, "Liveness: the process answers (no token needed)")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Readiness)
      .addError(Readiness, { status: 503 })
      .annotate(
        OpenApi.Summary,
        "Readiness: storage reachable, shards owned, not shutting down (no token needed; 503 when not ready)"
      )
  )

export const openApiGroup = HttpApiGroup.make("openapi")
  .add(
    HttpApiEndpoint.get("document", "/openapi.json").addSuccess(Schema.Unknown).annotate(
      OpenApi.Summary,
      "This document"
    )
  )
  .middleware(Authorization)

export class ServeApi extends HttpApi.make("toolgate")
  .add(sessions)
  .add(server)
  .add(openApiGroup)
  .addError(Forbidden)
  .addError(PayloadTooLarge)
  .addError(InvalidRequest)
  .annotate(OpenApi.Title, "toolgate serve")
  .annotate(
    OpenApi.Description,
    "Agent sessions behind an HTTP API: create a session, send prompts or tool_use blocks, follow its events, answer its permission questions."
  )
{}
