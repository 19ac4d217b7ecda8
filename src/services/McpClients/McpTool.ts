/**
 * One tool of an MCP server as a toolgate Tool. The server's hints
 * are untrusted, so they are mapped conservatively: only `readOnlyHint: true` makes the tool
 * read-only and concurrency-safe; it is destructive unless read-only or `destructiveHint: false`.
 * It never allows itself: with no rule it asks. An `isError` result is a tool failure, so
 * PostToolUseFailure hooks fire.
 */
import { Effect, Fiber, Queue } from "effect"
import { ToolError } from "../../Errors.js"
import type { ToolResultContent } from "../../Messages.js"
import { buildTool, type AnyTool, type ToolProgress } from "../../Tool.js"
import { passthrough } from "../../Permission.js"
import type { McpScope } from "./config.js"
import type { McpProgress } from "./connection.js"
import type { McpRequestError } from "./errors.js"
import type { CompiledInputSchema } from "./jsonSchema.js"
import { capContent, errorText, resultContent, type McpCallResult } from "./results.js"

export const DEFAULT_MCP_MAX_RESULT_SIZE_CHARS = 100_000
/** Ceiling of `_meta["anthropic/maxResultSizeChars"]`. */
export const MAX_MCP_MAX_RESULT_SIZE_CHARS = 500_000
const MAX_DESCRIPTION_CHARS = 2048
const DONE = Symbol("done")

/** The fields of a `tools/list` entry this wrapper reads. */
export interface McpToolListing {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly annotations?: Readonly<Record<string, unknown>>
  readonly _meta?: Readonly<Record<string, unknown>>
}

export interface McpToolSpec {
  /** The model-facing name, `mcp__<server>__<tool>` (see services/McpClients/naming.ts). */
  readonly name: string
  readonly serverName: string
  readonly scope: McpScope
  readonly listing: McpToolListing
  readonly schema: CompiledInputSchema
  /** The server's `alwaysLoad`: its tools are never deferred. */
  readonly alwaysLoad: boolean
  readonly maxOutputTokens: number
  readonly call: (
    args: Record<string, unknown>,
    onProgress: (progress: McpProgress) => void
  ) => Effect.Effect<McpCallResult, McpRequestError>
}

const describe = (listing: McpToolListing): string => {
  const text = listing.description ?? ""
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}… [truncated]` : text
}

export const progressLine = (p: McpProgress): ToolProgress => {
  const count = p.total === undefined ? `${p.progress}` : `${p.progress}/${p.total}`
  return { message: p.message === undefined || p.message === "" ? count : `${count} ${p.message}`, data: p }
}

const maxResultSizeOf = (meta: Readonly<Record<string, unknown>> | undefined): number => {
  const value = meta?.["anthropic/maxResultSizeChars"]
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.min(Math.floor(value), MAX_MCP_MAX_RESULT_SIZE_CHARS)
    : DEFAULT_MCP_MAX_RESULT_SIZE_CHARS
}

const isContentBlock = (u: unknown): boolean =>
  typeof u === "object" &&
  u !== null &&
  (((u as { type?: unknown }).type === "text" && typeof (u as { text?: unknown }).text === "string") ||
    ((u as { type?: unknown }).type === "image" && typeof (u as { source?: unknown }).source === "object"))

/** An MCP tool's output as a hook may replace it: text, content blocks, or anything else as JSON. */
const mcpHookOutput = (replacement: unknown): ToolResultContent =>
  typeof replacement === "string"
    ? replacement
    : Array.isArray(replacement) && replacement.length > 0 && replacement.every(isContentBlock)
    ? (replacement as ToolResultContent)
    : JSON.stringify(replacement, null, 2)

export const makeMcpTool = (spec: McpToolSpec): AnyTool => {
  const { listing } = spec
  const annotations = listing.annotations ?? {}
  const readOnly = annotations.readOnlyHint === true
  const destructive = !readOnly && annotations.destructiveHint !== false
  const description = describe(listing)
  return buildTool<Record<string, unknown>, ToolResultContent>({
    name: spec.name,
    // As Claude Code does, the model's input goes to the server unchecked: the server knows its
    // own schema (and its own coercions) best, and answers a bad input itself.
    inputSchema: {
      _tag: "JsonSchema",
      jsonSchema: spec.schema.apiSchema,
      validate: (input) => ({ ok: true, value: input as Record<string, unknown> })
    },
    description,
    prompt: description,
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    isDestructive: () => destructive,
    interruptBehavior: () => "cancel",
    maxResultSizeChars: maxResultSizeOf(listing._meta),
    checkPermissions: () => Effect.succeed(passthrough),
    call: (input, ctx) =>
      Effect.gen(function*() {
        // Progress arrives in SDK callbacks; one forwarder reports it in order, and all of it
        // is reported before the call returns.
        const progress = yield* Queue.unbounded<McpProgress | typeof DONE>()
        const forward: Effect.Effect<void> = Effect.flatMap(Queue.take(progress), (item) =>
          item === DONE
            ? Effect.void
            : Effect.zipRight(
              ctx.reportProgress(progressLine(item)),
              Effect.suspend(() => forward)
            ))
        const forwarder = yield* Effect.fork(forward)
        const result = yield* spec.call(input, (p) => void Queue.unsafeOffer(progress, p)).pipe(
          Effect.tap(() => Effect.zipRight(Queue.offer(progress, DONE), Fiber.join(forwarder))),
          Effect.ensuring(Fiber.interrupt(forwarder)),
          Effect.mapError((e) => new ToolError({ reason: e.reason, response: { kind: e.kind } }))
        )
        if (result.isError === true) return yield* new ToolError({ reason: errorText(result), response: result })
        const { content } = capContent(resultContent(result, spec.name), spec.maxOutputTokens)
        return {
          data: content,
          mcpMeta: {
            ...(result._meta === undefined ? {} : { _meta: result._meta }),
            ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
          }
        }
      }),
    mapResult: (output) => output,
    hookResponse: (output) => (typeof output === "string" ? [{ type: "text", text: output }] : output),
    hookOutput: mcpHookOutput,
    userFacingName: () => `${spec.serverName} - ${listing.title ?? listing.name} (MCP)`,
    mcp: { serverName: spec.serverName, toolName: listing.name, source: spec.scope },
    shouldDefer: !(spec.alwaysLoad || listing._meta?.["anthropic/alwaysLoad"] === true),
    requiresUserInteraction: listing._meta?.["anthropic/requiresUserInteraction"] === true,
    ...(typeof listing._meta?.["anthropic/searchHint"] === "string"
      ? { searchHint: listing._meta["anthropic/searchHint"] as string }
      : {})
  })
}
