/**
 * What a served session looks like from outside: the bodies the HTTP API takes and returns, the
 * events its stream carries, and its errors. Everything here is JSON; the OpenAPI document is
 * generated from these schemas.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { PermissionModeName } from "../../Permission.js"

const Json = Schema.Unknown
const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const Block = JsonObject.annotations({ description: "A Messages API content block" })

export const CreateSession = Schema.Struct({
  cwd: Schema.String.annotations({ description: "The session's working directory on the server (must exist)" }),
  permissionMode: Schema.optional(PermissionModeName),
  allowedTools: Schema.optional(Schema.Array(Schema.String)).annotations({
    description: "Allow rules, e.g. \"Bash(git log:*)\""
  }),
  disallowedTools: Schema.optional(Schema.Array(Schema.String)),
  settings: Schema.optional(Schema.Union(JsonObject, Schema.String)).annotations({
    description: "Settings as a JSON object, or a settings file on the server"
  }),
  addDirs: Schema.optional(Schema.Array(Schema.String)),
  trustProject: Schema.optional(Schema.Boolean),
  model: Schema.optional(Schema.NonEmptyString).annotations({
    description: "A Claude model (the server needs ANTHROPIC_API_KEY)"
  }),
  script: Schema.optional(Schema.NonEmptyString).annotations({
    description:
      "A scripted session (JSONL, as `toolgate run --replay` takes): the scripted model replays it instead of Claude"
  }),
  replaySpeed: Schema.optional(Schema.NonNegative).annotations({
    description: "Scripted model timing: 1 = as recorded, 0 = no delays"
  }),
  maxTurns: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  approvalTimeoutSeconds: Schema.optional(Schema.Positive).annotations({
    description: "How long a permission question waits for an answer before it is denied"
  })
})
export type CreateSession = typeof CreateSession.Type

export const Usage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cache_creation_input_tokens: Schema.Number,
  cache_read_input_tokens: Schema.Number
})

export const Message = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Union(Schema.String, Schema.Array(Block))
})

export const InputKind = Schema.Literal("prompt", "tool_uses")
export const InputStatus = Schema.Literal("queued", "running", "done", "failed")

/** One input of a session (a prompt, or an assistant message of tool_use blocks) and what it produced. */
export const InputResult = Schema.Struct({
  key: Schema.String,
  seq: Schema.Number,
  kind: InputKind,
  status: InputStatus,
  /** Why the agent stopped (end_turn, max_turns, interrupted, refusal, error, …); `tool_uses`: "done". */
  stop: Schema.optional(Schema.String),
  stopReason: Schema.optional(Schema.NullOr(Schema.String)),
  /** The text of the last assistant message. */
  text: Schema.optional(Schema.String),
  turns: Schema.optional(Schema.Number),
  usage: Schema.optional(Usage),
  /** The messages this input added to the conversation (the last one answers every tool_use). */
  messages: Schema.optional(Schema.Array(Message)),
  error: Schema.optional(Schema.String),
  createdAt: Schema.Number,
  finishedAt: Schema.optional(Schema.Number)
})
export type InputResult = typeof InputResult.Type

export const SendInput = Schema.Struct({
  key: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._:-]{1,128}$/))).annotations({
    description: "Idempotency key: sending the same key again returns the same input (default: a new id)"
  }),
  role: Schema.Literal("user", "assistant").annotations({
    description: "user: a prompt the agent loop runs; assistant: tool_use blocks the scheduler runs"
  }),
  content: Schema.Union(Schema.String, Schema.Array(Block))
})
export type SendInput = typeof SendInput.Type

export const ApprovalView = Schema.Struct({
  toolUseId: Schema.String,
  inputKey: Schema.String,
  tool: Schema.String,
  input: Json,
  message: Schema.String,
  /** Rules that "session" / "always" would add. */
  rules: Schema.Array(Schema.String),
  askedAt: Schema.Number,
  expiresAt: Schema.Number,
  answer: Schema.optional(Json),
  answeredAt: Schema.optional(Schema.Number)
})
export type ApprovalView = typeof ApprovalView.Type

export const AnswerApproval = Schema.Struct({
  decision: Schema.Literal("allow", "deny"),
  scope: Schema.optional(Schema.Literal("once", "session", "always")).annotations({
    description: "allow once; for the rest of the session; or always (also saved to .claude/settings.local.json)"
  }),
  rules: Schema.optional(Schema.Array(Schema.String)),
  updatedInput: Schema.optional(JsonObject),
  feedback: Schema.optional(Schema.String).annotations({ description: "deny: what the model should do instead" })
})
export type AnswerApproval = typeof AnswerApproval.Type

export const SessionStatus = Schema.Literal("idle", "running", "stopped")

export const SessionSummary = Schema.Struct({
  id: Schema.String,
  status: SessionStatus,
  cwd: Schema.String,
  model: Schema.String,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  inputs: Schema.Number
})
export type SessionSummary = typeof SessionSummary.Type

export const SessionPage = Schema.Struct({
  sessions: Schema.Array(SessionSummary),
  /** Pass as `after` for the next page; absent on the last page. */
  next: Schema.optional(Schema.String)
})
export type SessionPage = typeof SessionPage.Type

export const Readiness = Schema.Struct({
  ready: Schema.Boolean,
  runner: Schema.String,
  storage: Schema.Boolean,
  /** Shards of the session entities this runner holds now. */
  shards: Schema.Number,
  draining: Schema.Boolean,
  /** Sessions whose runtime (tools, MCP servers, background shells) this runner holds now. */
  runtimes: Schema.Number,
  reason: Schema.optional(Schema.String)
})
export type Readiness = typeof Readiness.Type

export const SessionView = Schema.Struct({
  ...SessionSummary.fields,
  permissionMode: Schema.String,
  turns: Schema.Number,
  usage: Usage,
  pendingApprovals: Schema.Array(ApprovalView),
  lastInput: Schema.optional(InputResult)
})
export type SessionView = typeof SessionView.Type

export const SessionCreated = Schema.Struct({
  ...SessionView.fields,
  token: Schema.String.annotations({
    description: "The session's bearer token: shown once, needed for every request on the session"
  })
})

export const ServeEvent = Schema.Struct({
  seq: Schema.Number,
  type: Schema.String,
  at: Schema.Number,
  data: Json
})
export type ServeEvent = typeof ServeEvent.Type

// ---------------------------------------------------------------------------------------------
// Errors

export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()(
  "SessionNotFound",
  { id: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

/** The server's policy does not allow what was asked for. */
export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {}

/** This runner runs as many inputs as it may (`TOOLGATE_SERVE_MAX_RUNNING_INPUTS`): send again later, or to another runner. */
export class TooBusy extends Schema.TaggedError<TooBusy>()(
  "TooBusy",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class Unavailable extends Schema.TaggedError<Unavailable>()(
  "Unavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

export const notFound = (id: string) => new SessionNotFound({ id, message: `no session ${id}` })
