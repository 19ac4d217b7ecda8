/**
 * Failures of a model turn. They end the turn (not one call): every tool_use that streamed in
 * before still gets its result from the scheduler.
 */
import { Schema } from "effect"

/** The API answered with an HTTP error (401 invalid key, 400 bad request, 429, 529 …). */
export class ModelApiError extends Schema.TaggedError<ModelApiError>()("ModelApiError", {
  status: Schema.Number,
  errorType: Schema.optionalWith(Schema.String, { exact: true }),
  reason: Schema.String
}) {
  override get message() {
    return `the Anthropic API answered ${this.status}${
      this.errorType === undefined ? "" : ` ${this.errorType}`
    }: ${this.reason}`
  }
}

/** The API could not be reached (connection refused, DNS, reset, timeout). */
export class ModelConnectionError extends Schema.TaggedError<ModelConnectionError>()("ModelConnectionError", {
  baseUrl: Schema.String,
  reason: Schema.String,
  attempts: Schema.optionalWith(Schema.Number, { exact: true })
}) {
  override get message() {
    return `cannot reach the Anthropic API at ${this.baseUrl}${
      this.attempts === undefined ? "" : ` (tried ${this.attempts} times)`
    }: ${this.reason}`
  }
}

/** The stream failed after HTTP 200: an `error` event, or the connection closed mid-message. */
export class ModelStreamError extends Schema.TaggedError<ModelStreamError>()("ModelStreamError", {
  errorType: Schema.String,
  reason: Schema.String,
  /** True when no event of the message had arrived yet (so a retry cannot duplicate anything). */
  beforeFirstEvent: Schema.Boolean
}) {
  override get message() {
    return `the model's stream failed: ${this.errorType}: ${this.reason}`
  }
}

/** Neither an API key nor a scripted model was given. */
export class ModelNotConfigured extends Schema.TaggedError<ModelNotConfigured>()("ModelNotConfigured", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** A scripted session (or transcript) cannot be used: where and what is wrong. */
export class ScriptError extends Schema.TaggedError<ScriptError>()("ScriptError", {
  file: Schema.String,
  line: Schema.optionalWith(Schema.Number, { exact: true }),
  reason: Schema.String
}) {
  override get message() {
    return `${this.file}${this.line === undefined ? "" : `:${this.line}`}: ${this.reason}`
  }
}

export type ModelError = ModelApiError | ModelConnectionError | ModelStreamError | ModelNotConfigured | ScriptError

/** Worth another attempt (only before the first event of a message arrived). */
export const isRetryable = (error: ModelError): boolean => {
  switch (error._tag) {
    case "ModelConnectionError":
      return true
    case "ModelApiError":
      return (
        error.status === 408 ||
        error.status === 409 ||
        error.status === 429 ||
        error.status >= 500 ||
        error.errorType === "overloaded_error" ||
        error.errorType === "rate_limit_error"
      )
    case "ModelStreamError":
      return (
        error.beforeFirstEvent &&
        (error.errorType === "overloaded_error" || error.errorType === "rate_limit_error" ||
          error.errorType === "api_error" || error.errorType === "connection")
      )
    default:
      return false
  }
}
