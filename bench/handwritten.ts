/**
 * The per-call baseline: toolgate's stages written by hand in Effect, as someone would without a
 * framework, for the calls of one message:
 *   lookup (a Map) → strict decode (the tool's Schema, unknown keys are errors, every issue) →
 *   the tool's validateInput → allow check (whole-tool rules, deny first) → the tool's call →
 *   map the result → size check (truncate over the threshold),
 * one fiber per call under a cap, results in tool_use order, every call answered (typed errors
 * and defects become error results). No hooks, no modes, no paths: what the rules of this
 * benchmark never exercise. It uses the tool's own functions, so it does the tool's work too.
 */
import { Effect, Either, Schema } from "effect"
import type { ToolResultBlock, ToolUseBlock } from "../src/Messages.js"
import { contentLength, contentText } from "../src/Messages.js"
import type { SessionContext } from "../src/Session.js"
import type { AnyTool, ToolCheckContext, ToolContext } from "../src/Tool.js"
import { thresholdFor } from "../src/services/ResultStore.js"

interface HandTool {
  readonly tool: AnyTool
  readonly decode: (input: unknown) => Either.Either<unknown, unknown>
  readonly threshold: number
}

export interface HandwrittenTools {
  readonly byName: ReadonlyMap<string, HandTool>
  readonly allow: ReadonlySet<string>
  readonly deny: ReadonlySet<string>
  readonly check: ToolCheckContext
  readonly context: (toolUseId: string) => ToolContext
}

const noFileState: ToolCheckContext["fileState"] = {
  record: () => Effect.void,
  get: () => Effect.succeedNone,
  forget: () => Effect.void
}

export const handwrittenTools = (
  tools: ReadonlyArray<AnyTool>,
  allow: ReadonlyArray<string>,
  session: SessionContext
): HandwrittenTools => {
  const byName = new Map<string, HandTool>()
  for (const tool of tools) {
    if (tool.inputSchema._tag !== "Schema") throw new Error(`bench: ${tool.name} has no effect Schema`)
    const decode = Schema.decodeUnknownEither(tool.inputSchema.schema, { onExcessProperty: "error", errors: "all" })
    byName.set(tool.name, { tool, decode, threshold: thresholdFor(tool.maxResultSizeChars) })
  }
  return {
    byName,
    allow: new Set(allow),
    deny: new Set(),
    check: { session, fileState: noFileState, mode: session.permissionMode },
    context: (toolUseId) => ({ toolUseId, session, fileState: noFileState, reportProgress: () => Effect.void })
  }
}

const failed = (toolUseId: string, text: string): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content: `<tool_use_error>${text}</tool_use_error>`,
  is_error: true
})

const handwrittenCall = (tools: HandwrittenTools, block: ToolUseBlock): Effect.Effect<ToolResultBlock> =>
  Effect.suspend(() => {
    const entry = tools.byName.get(block.name)
    if (entry === undefined) return Effect.succeed(failed(block.id, `No such tool available: ${block.name}`))
    const decoded = entry.decode(block.input)
    if (Either.isLeft(decoded)) return Effect.succeed(failed(block.id, `InputValidationError: ${String(decoded.left)}`))
    const input = decoded.right
    const { tool } = entry
    return tool.validateInput(input, tools.check).pipe(
      Effect.flatMap(() =>
        tools.deny.has(tool.name) || !tools.allow.has(tool.name)
          ? Effect.succeed(failed(block.id, `Permission to use ${tool.name} has been denied.`))
          : Effect.map(tool.call(input, tools.context(block.id)), (result): ToolResultBlock => {
            const content = tool.mapResult(result.data, block.id)
            if (contentLength(content) <= entry.threshold) {
              return { type: "tool_result", tool_use_id: block.id, content }
            }
            return {
              type: "tool_result",
              tool_use_id: block.id,
              content: `${contentText(content).slice(0, entry.threshold)}\n... [truncated]`
            }
          })
      ),
      Effect.catchAllCause((cause) => Effect.succeed(failed(block.id, String(cause))))
    )
  })

/** One message: a fiber per call under the cap, results in tool_use order. */
export const handwrittenMessage = (tools: HandwrittenTools, blocks: ReadonlyArray<ToolUseBlock>, cap: number) =>
  Effect.forEach(blocks, (block) => handwrittenCall(tools, block), { concurrency: cap })
