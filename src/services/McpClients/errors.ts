/**
 * Typed failures of the MCP stage. A server that cannot start is not an error of the runtime: it
 * becomes a server state (`failed`, `needs-auth`) with a reason. These errors are what a single
 * request to a connected (or formerly connected) server can end with.
 */
import { Schema } from "effect"

/** Why a request to a server did not produce a result. */
export const McpRequestFailure = Schema.Literal(
  /** The server is not connected (failed, needs-auth, disabled, or gone). */
  "not-connected",
  /** The per-call timeout passed. */
  "timeout",
  /** The connection closed while the request was in flight (e.g. the server crashed). */
  "disconnected",
  /** The server answered with a JSON-RPC error, or something the protocol does not allow. */
  "protocol",
  /** Our own controller aborted the request (the call was interrupted). */
  "interrupted"
)
export type McpRequestFailure = typeof McpRequestFailure.Type

export class McpRequestError extends Schema.TaggedError<McpRequestError>()("McpRequestError", {
  server: Schema.String,
  /** The method, e.g. `tools/call`, and for calls the tool: `tools/call echo`. */
  request: Schema.String,
  kind: McpRequestFailure,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}
