/**
 * `toolgate tools`: the pool with each tool's flags; `toolgate tools schema`: what the model sees.
 */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import type { AnyTool } from "../../Tool.js"
import { metasOf } from "../flags.js"
import { commonFlags, commonOptions } from "../options.js"
import type { CommandSpec } from "../spec.js"
import { bold, dim } from "../render.js"
import { withRuntime } from "../runtime.js"

const flag = (f: () => boolean): boolean => {
  try {
    return f()
  } catch {
    return false
  }
}

/** Flags as the tool reports them for an empty input; Bash's depend on the command. */
const describe = (tool: AnyTool) => ({
  name: tool.name,
  aliases: tool.aliases,
  source: tool.mcp === undefined ? "built-in" : `mcp:${tool.mcp.serverName}`,
  readOnly: flag(() => tool.isReadOnly({})),
  concurrencySafe: flag(() => tool.isConcurrencySafe({})),
  destructive: flag(() => tool.isDestructive({})),
  interruptBehavior: tool.interruptBehavior(),
  maxResultSizeChars: Number.isFinite(tool.maxResultSizeChars) ? tool.maxResultSizeChars : null,
  deferred: tool.shouldDefer,
  hasFootprint: tool.footprint !== undefined,
  description: tool.description
})

export const toolsSchemaSpec: CommandSpec = {
  path: ["tools", "schema"],
  summary: "Print the tool definitions the model sees (JSON)",
  args: [],
  flags: metasOf(commonFlags)
}

export const toolsSpec: CommandSpec = {
  path: ["tools"],
  summary: "List the tool pool with each tool's flags",
  args: [],
  flags: metasOf(commonFlags)
}

export const toolsSchema = Command.make("schema", commonOptions, (values) =>
  withRuntime(
    values,
    () =>
      Effect.gen(function* () {
        const pool = yield* (yield* ToolRegistry).pool
        yield* Console.log(JSON.stringify(pool.apiSchemas, null, 2))
      }),
    {},
    { mcpNotices: false }
  )
).pipe(Command.withDescription(toolsSchemaSpec.summary))

export const tools = Command.make("tools", commonOptions, (values) =>
  withRuntime(
    values,
    () =>
      Effect.gen(function* () {
        const pool = yield* (yield* ToolRegistry).pool
        const rows = pool.tools.map(describe)
        if (values.json) {
          yield* Console.log(JSON.stringify({ tools: rows, removed: pool.removed }, null, 2))
          return
        }
        // columns as wide as the longest name and source (MCP tools have long ones)
        const nameWidth = Math.max(4, ...rows.map((r) => r.name.length), ...pool.removed.map((r) => r.name.length))
        const sourceWidth = Math.max(6, ...rows.map((r) => r.source.length))
        for (const row of rows) {
          const flags = [
            row.readOnly ? "read-only" : null,
            row.concurrencySafe ? "concurrency-safe" : null,
            row.destructive ? "destructive" : null,
            `interrupt:${row.interruptBehavior}`,
            row.name === "Bash" ? "read-only per command" : null
          ].filter((f) => f !== null)
          yield* Console.log(`${bold(row.name.padEnd(nameWidth))}  ${dim(row.source.padEnd(sourceWidth))}  ${flags.join(", ")}`)
        }
        for (const removed of pool.removed) yield* Console.log(dim(`${removed.name.padEnd(nameWidth)}  removed: ${removed.reason}`))
      }),
    {},
    { mcpNotices: false }
  )
).pipe(Command.withDescription(toolsSpec.summary), Command.withSubcommands([toolsSchema]))
