/**
 * Custom tools with no Effect in them: a module exports plain definitions, and toolgate wraps
 * them. The input schema is a JSON Schema (validated with ajv); `run` gets the decoded input and
 * a small context with an AbortSignal (aborted when the call is interrupted), and returns a string,
 * any JSON value, or a Promise of one. A thrown error becomes the tool's error result.
 *
 *   // .toolgate/tools/word-count.js
 *   module.exports = {
 *     name: "WordCount",
 *     description: "Counts the words of a text",
 *     inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
 *     readOnly: true,
 *     run: async ({ text }) => `${text.split(/\s+/).filter(Boolean).length} words`
 *   }
 *
 * Permissions are never skipped for a plain tool: with no rule it asks, like any tool that does
 * not say otherwise (use the factory form to write your own `checkPermissions`).
 */
import { Effect } from "effect"
import { ToolError } from "../../Errors.js"
import { buildTool, type AnyTool } from "../../Tool.js"
import type { JsonSchemaInput } from "./jsonSchemaInput.js"

export interface PlainToolContext {
  readonly toolUseId: string
  readonly cwd: string
  readonly projectDir: string
  readonly sessionId: string
  readonly sessionDir: string
  readonly signal: AbortSignal
}

export interface PlainToolDefinition {
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly run: (input: Record<string, unknown>, context: PlainToolContext) => unknown
  readonly prompt?: string
  /** Read-only tools are also concurrency-safe unless `concurrencySafe` says otherwise. */
  readonly readOnly?: boolean
  readonly concurrencySafe?: boolean
  readonly destructive?: boolean
  readonly maxResultSizeChars?: number
}

export const isPlainDefinition = (value: unknown): value is PlainToolDefinition =>
  typeof value === "object" && value !== null && typeof (value as { run?: unknown }).run === "function" &&
  typeof (value as { call?: unknown }).call !== "function"

const errorText = (
  error: unknown
): string => (error instanceof Error
  ? error.message
  : typeof error === "string"
  ? error
  : JSON.stringify(error) ?? String(error))

/** Wraps a plain definition as a Tool; throws when the definition is unusable (bad schema, bad fields). */
export const plainTool = async (
  definition: PlainToolDefinition,
  jsonSchemaInput: JsonSchemaInput
): Promise<AnyTool> => {
  if (
    typeof definition.inputSchema !== "object" || definition.inputSchema === null ||
    Array.isArray(definition.inputSchema)
  ) {
    throw new Error("inputSchema must be a JSON Schema object")
  }
  const inputSchema = await jsonSchemaInput(definition.inputSchema)
  const readOnly = definition.readOnly === true
  const concurrencySafe = definition.concurrencySafe ?? readOnly
  const run = definition.run
  return buildTool<Record<string, unknown>, unknown>({
    name: definition.name,
    description: definition.description,
    inputSchema,
    ...(typeof definition.prompt === "string" ? { prompt: definition.prompt } : {}),
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => concurrencySafe,
    isDestructive: () => definition.destructive ?? !readOnly,
    interruptBehavior: () => "cancel",
    ...(typeof definition.maxResultSizeChars === "number" ? { maxResultSizeChars: definition.maxResultSizeChars } : {}),
    call: (input, ctx) =>
      Effect.tryPromise({
        try: async (signal) =>
          run(input, {
            toolUseId: ctx.toolUseId,
            cwd: ctx.session.cwd,
            projectDir: ctx.session.projectDir,
            sessionId: ctx.session.sessionId,
            sessionDir: ctx.session.sessionDir,
            signal
          }),
        catch: (error) => new ToolError({ reason: errorText(error) })
      }).pipe(Effect.map((data) => ({ data: data === undefined ? "" : data })))
  })
}
