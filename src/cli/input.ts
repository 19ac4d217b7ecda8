/**
 * Reading what the CLI is given: a file or stdin, JSON, and the tool_use blocks of a message.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { BadRequest } from "../Errors.js"
import type { ToolUseBlock } from "../Messages.js"
import { isRecord } from "../internal/json.js"

/** The text of a file, or of stdin for `-`. */
export const readSource = (source: string): Effect.Effect<string, BadRequest> =>
  source === "-"
    ? Effect.tryPromise({
        try: async () => {
          const chunks: Array<Buffer> = []
          for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
          return Buffer.concat(chunks).toString("utf8")
        },
        catch: (e) => new BadRequest({ reason: `cannot read stdin: ${(e as Error).message}` })
      })
    : Effect.try({
        try: () => fs.readFileSync(source, "utf8"),
        catch: (e) => new BadRequest({ reason: `cannot read ${source}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}` })
      })

export const parseJson = (text: string, what: string): Effect.Effect<unknown, BadRequest> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new BadRequest({ reason: `${what} is not valid JSON: ${(e as Error).message}` })
  })


/**
 * The tool_use blocks of a Messages API response, an assistant message, or an array of blocks
 * (a single tool_use block is accepted too). Other content blocks are skipped.
 */
export const toolUsesOf = (value: unknown): Effect.Effect<ReadonlyArray<ToolUseBlock>, BadRequest> =>
  Effect.gen(function* () {
    let blocks: ReadonlyArray<unknown>
    if (Array.isArray(value)) blocks = value
    else if (isRecord(value) && value.type === "tool_use") blocks = [value]
    else if (isRecord(value) && Array.isArray(value.content)) {
      if (value.role !== undefined && value.role !== "assistant") {
        return yield* new BadRequest({ reason: `expected an assistant message, got role ${JSON.stringify(value.role)}` })
      }
      blocks = value.content
    } else if (isRecord(value) && typeof value.content === "string") blocks = []
    else {
      return yield* new BadRequest({
        reason: "expected a Messages API response, an assistant message, or an array of tool_use blocks"
      })
    }
    const uses: Array<ToolUseBlock> = []
    for (const [i, block] of blocks.entries()) {
      if (!isRecord(block)) return yield* new BadRequest({ reason: `content block ${i} is not an object` })
      if (block.type !== "tool_use") continue
      if (typeof block.id !== "string" || block.id === "") return yield* new BadRequest({ reason: `tool_use block ${i} has no id` })
      if (typeof block.name !== "string") return yield* new BadRequest({ reason: `tool_use block ${i} (${block.id}) has no name` })
      uses.push({ type: "tool_use", id: block.id, name: block.name, input: block.input })
    }
    if (uses.length === 0) return yield* new BadRequest({ reason: "the message has no tool_use blocks" })
    return uses
  })
