/**
 * The typed failures of every stage, and the one mapping from a call's failure to the text the
 * model sees.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

// ---------------------------------------------------------------------------------------------
// Per-call failures: each ends one tool_use with an error tool_result.
// ---------------------------------------------------------------------------------------------

/**
 * Stage 0, lookup: the model named a tool that is not in the pool.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  toolName: Schema.String,
  /** Appended to the message as it is, e.g. ". Call Read instead." */
  hint: Schema.optionalWith(Schema.String, { exact: true })
}) {
  override get message() {
    return `No such tool available: ${this.toolName}`
  }
}

/**
 * Stage 1, schema: the input does not match the tool's schema (or is not a JSON object).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidToolInput extends Schema.TaggedError<InvalidToolInput>()("InvalidToolInput", {
  toolName: Schema.String,
  issues: Schema.Array(Schema.String),
  /** zod's own issue list, which Claude Code sends instead of sentences when no parameter is missing, unexpected or mistyped. */
  issueList: Schema.optionalWith(Schema.String, { exact: true })
}) {
  override get message() {
    return this.issueList ??
      `${this.toolName} failed due to the following ${this.issues.length === 1 ? "issue" : "issues"}:\n${
        this.issues.join("\n")
      }`
  }
}

/**
 * Stage 2, the tool's own `validateInput` refused the input.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputRejected extends Schema.TaggedError<InputRejected>()("InputRejected", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * Stage 3, a PreToolUse hook blocked the call (exit code 2 or a JSON deny).
 *
 * @since 0.1.0
 * @category errors
 */
export class HookBlocked extends Schema.TaggedError<HookBlocked>()("HookBlocked", {
  toolName: Schema.String,
  event: Schema.String,
  /** Set for an exit-2 block: the hook command, shown in brackets. */
  command: Schema.optionalWith(Schema.String, { exact: true }),
  reason: Schema.String
}) {
  override get message() {
    return this.command === undefined
      ? `${this.event}:${this.toolName} hook error: ${this.reason}`
      : `${this.event}:${this.toolName} hook error: [${this.command}]: ${this.reason}`
  }
}

/**
 * A hook answered `continue: false`: the call does not run.
 *
 * @since 0.1.0
 * @category errors
 */
export class HookStopped extends Schema.TaggedError<HookStopped>()("HookStopped", {
  toolName: Schema.String,
  event: Schema.String,
  stopReason: Schema.String
}) {
  override get message() {
    return `Execution stopped by ${this.event} hook${this.stopReason === "" ? "" : `: ${this.stopReason}`}`
  }
}

/**
 * Stage 4, a permission rule, the mode, or a safety check denied the call.
 *
 * @since 0.1.0
 * @category errors
 */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * Stage 4, an "ask" that the user (or an approver) answered with no.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotApproved extends Schema.TaggedError<NotApproved>()("NotApproved", {
  toolName: Schema.String,
  feedback: Schema.optionalWith(Schema.String, { exact: true }),
  /** The whole text the model sees, in place of the rejection (a program's approval callback said it). */
  reason: Schema.optionalWith(Schema.String, { exact: true })
}) {
  override get message() {
    if (this.reason !== undefined && this.reason !== "") return this.reason
    return this.feedback === undefined || this.feedback === ""
      ? REJECT_MESSAGE
      : `${REJECT_MESSAGE_WITH_FEEDBACK}${this.feedback}`
  }
}

/**
 * Stage 5, the tool ran and failed (a non-zero exit, an MCP `isError`, a typed tool error).
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolFailed extends Schema.TaggedError<ToolFailed>()("ToolFailed", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return truncateMiddle(this.reason, 10_000)
  }
}

/**
 * Stage 5, the tool threw or died unexpectedly: a bug, not an expected failure.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolDefect extends Schema.TaggedError<ToolDefect>()("ToolDefect", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Error calling tool (${this.toolName}): ${this.reason}`
  }
}

/**
 * The user interrupted the turn while this call was queued or running.
 *
 * @since 0.1.0
 * @category errors
 */
export class Interrupted extends Schema.TaggedError<Interrupted>()("Interrupted", {
  toolName: Schema.String
}) {
  override get message() {
    return REJECT_MESSAGE
  }
}

/**
 * A Bash sibling in the same concurrent batch failed, so this call was cancelled.
 *
 * @since 0.1.0
 * @category errors
 */
export class CancelledBySibling extends Schema.TaggedError<CancelledBySibling>()("CancelledBySibling", {
  toolName: Schema.String,
  /** The failing sibling as its tool labels it, e.g. `Bash(npm test)`; empty when unknown. */
  sibling: Schema.String
}) {
  override get message() {
    return this.sibling === ""
      ? "Cancelled: parallel tool call errored"
      : `Cancelled: parallel tool call ${this.sibling} errored`
  }
}

/**
 * The call never started: the model's message ended otherwise than with `tool_use` (max_tokens,
 * refusal, a stream error), or a hook stopped the turn first. `reason` says which.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotStarted extends Schema.TaggedError<NotStarted>()("NotStarted", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Error: this tool call was not run: ${this.reason}`
  }
}

/**
 * Two tool_use blocks of one message share an id; the later ones are not run.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateToolUseId extends Schema.TaggedError<DuplicateToolUseId>()("DuplicateToolUseId", {
  toolName: Schema.String,
  toolUseId: Schema.String
}) {
  override get message() {
    return `Error: duplicate tool_use id ${this.toolUseId}; only the first call with this id was run`
  }
}

/**
 * A served session's runner stopped (crashed, was killed) while this call ran. A call with side
 * effects is never run twice, so it is answered with this instead of running again.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunnerLost extends Schema.TaggedError<RunnerLost>()("RunnerLost", {
  toolName: Schema.String
}) {
  override get message() {
    return `Error: the server running this ${this.toolName} call stopped while it ran (a crash or a shutdown). It was not run again, so it may have partly or fully happened: check before you try it again.`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type CallError =
  | UnknownTool
  | InvalidToolInput
  | InputRejected
  | HookBlocked
  | HookStopped
  | PermissionDenied
  | NotApproved
  | ToolFailed
  | ToolDefect
  | Interrupted
  | CancelledBySibling
  | NotStarted
  | DuplicateToolUseId
  | RunnerLost

/**
 * @since 0.1.0
 * @category errors
 */
export const CallError = Schema.Union(
  UnknownTool,
  InvalidToolInput,
  InputRejected,
  HookBlocked,
  HookStopped,
  PermissionDenied,
  NotApproved,
  ToolFailed,
  ToolDefect,
  Interrupted,
  CancelledBySibling,
  NotStarted,
  DuplicateToolUseId,
  RunnerLost
)

/**
 * What the model reads for a failed call: one exhaustive mapping.
 *
 * @since 0.1.0
 * @category utils
 */
export const toModelText = (error: CallError): string => {
  switch (error._tag) {
    case "UnknownTool":
      return wrap(`Error: ${error.message}${error.hint ?? ""}`)
    case "InvalidToolInput":
      return wrap(`InputValidationError: ${error.message}`)
    case "InputRejected":
    case "ToolDefect":
    case "CancelledBySibling":
    case "NotStarted":
    case "DuplicateToolUseId":
    case "RunnerLost":
      return wrap(error.message)
    case "HookBlocked":
    case "HookStopped":
    case "PermissionDenied":
    case "NotApproved":
    case "ToolFailed":
    case "Interrupted":
      return error.message
    default:
      return absurd(error)
  }
}

const wrap = (text: string) => `<tool_use_error>${text}</tool_use_error>`

const absurd = (value: never): never => {
  throw new Error(`unhandled call error ${JSON.stringify(value)}`)
}

/**
 * @since 0.1.0
 * @category constants
 */
export const REJECT_MESSAGE =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

/**
 * @since 0.1.0
 * @category constants
 */
export const REJECT_MESSAGE_WITH_FEEDBACK =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"

/**
 * @since 0.1.0
 * @category constants
 */
export const INTERRUPT_MARKER = "[Request interrupted by user for tool use]"

/**
 * Keeps the head and tail of a long text (the first 5000 characters, a marker, the last 5000, as Claude Code does).
 *
 * @since 0.1.0
 * @category utils
 */
export const truncateMiddle = (text: string, max: number): string => {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  const cut = text.length - 2 * half
  return `${text.slice(0, half)}\n\n... [${cut} characters truncated] ...\n\n${text.slice(text.length - half)}`
}

// ---------------------------------------------------------------------------------------------
// Runtime failures: not per call; they end a command or a turn.
// ---------------------------------------------------------------------------------------------

/**
 * A settings file could not be read or written (e.g. saving an "always allow" rule).
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/**
 * Exit status of the CLI when a settings file is broken (sysexits' EX_CONFIG).
 *
 * @since 0.1.0
 * @category constants
 */
export const BROKEN_SETTINGS_EXIT_CODE = 78

/**
 * A settings file exists but cannot be read whole (bad JSON, a field of the wrong shape). It
 * could hold deny rules or hooks, so nothing runs until it is fixed.
 *
 * @since 0.1.0
 * @category errors
 */
export class BrokenSettings extends Schema.TaggedError<BrokenSettings>()("BrokenSettings", {
  /** The file, or `--settings` for inline JSON. */
  file: Schema.String,
  /** What is wrong, with its place inside the document (`permissions.deny[2]: …`). */
  problem: Schema.String
}) {
  override get message() {
    return `settings file ${this.file} is broken: ${this.problem}. Nothing runs until it is fixed or removed (a broken settings file could hold deny rules or hooks).`
  }
}

/**
 * The input given to the CLI or the library (a message, a tool input) is unusable as a whole.
 *
 * @since 0.1.0
 * @category errors
 */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * A hook's JSON answer does not match the hook protocol (a field of the wrong type, an unknown
 * decision, another event's name). The answer is ignored and the hook counts as a non-blocking
 * error; `path` is where in the document the problem is.
 *
 * @since 0.1.0
 * @category errors
 */
export class HookOutputInvalid extends Schema.TaggedError<HookOutputInvalid>()("HookOutputInvalid", {
  hook: Schema.String,
  path: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `JSON validation failed${this.path === "" ? "" : ` at ${this.path}`}: ${this.problem}`
  }
}

/**
 * A result could not be written to the session directory.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResultStoreError extends Schema.TaggedError<ResultStoreError>()("ResultStoreError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `could not save ${this.path}: ${this.reason}`
  }
}

/**
 * The failure channel of a tool's `call`: an expected failure whose text the model sees
 * (e.g. `Exit code 1` and the output of a Bash command). `response` is what PostToolUseFailure
 * hooks and renderers may use.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  reason: Schema.String,
  response: Schema.optionalWith(Schema.Unknown, { exact: true })
}) {
  override get message() {
    return this.reason
  }
}
