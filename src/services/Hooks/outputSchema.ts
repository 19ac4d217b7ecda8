/**
 * What a hook may answer, as a Schema: the common fields, and
 * `hookSpecificOutput` for the event that ran it. Unknown keys are ignored; a known key with the
 * wrong type, or `hookSpecificOutput` for another event, makes the whole answer invalid (one
 * `HookOutputInvalid`, with the path inside the document), and an invalid answer is ignored.
 */
import { Either, ParseResult, Schema } from "effect"
import { HookOutputInvalid } from "../../Errors.js"
import type { HookEvent, HookJsonOutput } from "./types.js"

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

const InputObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const PermissionUpdateSchema = Schema.Struct({
  type: Schema.Literal("addRules", "replaceRules", "removeRules", "setMode", "addDirectories", "removeDirectories"),
  rules: optional(Schema.Array(Schema.Struct({ toolName: Schema.String, ruleContent: optional(Schema.String) }))),
  behavior: optional(Schema.Literal("allow", "deny", "ask")),
  mode: optional(Schema.String),
  directories: optional(Schema.Array(Schema.String)),
  destination: Schema.Literal("session", "localSettings", "projectSettings", "userSettings")
})

const contextOnly = <E extends HookEvent>(event: E) =>
  Schema.Struct({ hookEventName: Schema.Literal(event), additionalContext: optional(Schema.String) })

const specificSchemas = {
  PreToolUse: Schema.Struct({
    hookEventName: Schema.Literal("PreToolUse"),
    permissionDecision: optional(Schema.Literal("allow", "deny", "ask", "defer")),
    permissionDecisionReason: optional(Schema.String),
    updatedInput: optional(InputObject),
    additionalContext: optional(Schema.String)
  }),
  PermissionRequest: Schema.Struct({
    hookEventName: Schema.Literal("PermissionRequest"),
    decision: optional(
      Schema.Union(
        Schema.Struct({
          behavior: Schema.Literal("allow"),
          updatedInput: optional(InputObject),
          updatedPermissions: optional(Schema.Array(PermissionUpdateSchema))
        }),
        Schema.Struct({
          behavior: Schema.Literal("deny"),
          message: optional(Schema.String),
          interrupt: optional(Schema.Boolean)
        })
      )
    )
  }),
  PostToolUse: Schema.Struct({
    hookEventName: Schema.Literal("PostToolUse"),
    additionalContext: optional(Schema.String),
    updatedMCPToolOutput: optional(Schema.Unknown),
    updatedToolOutput: optional(Schema.Unknown)
  }),
  PostToolUseFailure: contextOnly("PostToolUseFailure"),
  PostToolBatch: contextOnly("PostToolBatch"),
  UserPromptSubmit: Schema.Struct({
    hookEventName: Schema.Literal("UserPromptSubmit"),
    additionalContext: optional(Schema.String),
    /** With `decision: "block"`: leave the prompt out of the block message. */
    suppressOriginalPrompt: optional(Schema.Boolean)
  }),
  SessionStart: contextOnly("SessionStart"),
  Stop: contextOnly("Stop"),
  SubagentStop: contextOnly("SubagentStop"),
  Notification: contextOnly("Notification"),
  SessionEnd: Schema.Struct({ hookEventName: Schema.Literal("SessionEnd") })
} satisfies Record<HookEvent, Schema.Schema.Any>

const commonFields = {
  continue: optional(Schema.Boolean),
  stopReason: optional(Schema.String),
  suppressOutput: optional(Schema.Boolean),
  systemMessage: optional(Schema.String),
  decision: optional(Schema.Literal("approve", "block")),
  reason: optional(Schema.String)
}

const EventNamed = Schema.Struct({ hookEventName: Schema.String })

const decoders = Object.fromEntries(
  (Object.keys(specificSchemas) as Array<HookEvent>).map((event) => [
    event,
    Schema.decodeUnknownEither(
      Schema.Struct({ ...commonFields, hookSpecificOutput: optional(specificSchemas[event]) }),
      { errors: "first" }
    )
  ])
) as Record<HookEvent, (u: unknown) => Either.Either<HookJsonOutput, ParseResult.ParseError>>

const describe = (error: ParseResult.ParseError) => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  return { path: (first?.path ?? []).map(String).join("."), problem: first?.message ?? "invalid" }
}

/** Decodes a hook's JSON answer for `event`; `{ async: true }` is the acknowledgement of an async hook. */
export const decodeHookOutput = (
  hook: string,
  event: HookEvent,
  value: unknown
): Either.Either<HookJsonOutput, HookOutputInvalid> => {
  if (typeof value === "object" && value !== null && (value as { async?: unknown }).async === true) {
    return Either.right({})
  }
  const named = Schema.decodeUnknownEither(Schema.Struct({ hookSpecificOutput: EventNamed }))(value)
  if (Either.isRight(named) && named.right.hookSpecificOutput.hookEventName !== event) {
    return Either.left(
      new HookOutputInvalid({
        hook,
        path: "hookSpecificOutput.hookEventName",
        problem:
          `Hook returned incorrect event name: expected '${event}' but got '${named.right.hookSpecificOutput.hookEventName}'`
      })
    )
  }
  return Either.mapLeft(decoders[event](value), (error) => new HookOutputInvalid({ hook, ...describe(error) }))
}
