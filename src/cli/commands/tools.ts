/**
 * `toolgate tools`: the pool with each tool's flags; `toolgate tools schema`: what the model sees.
 * Both show the pool `run` offers a model on Claude (with the Agent tool and WebSearch).
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option, Stream } from "effect"
import * as Agent from "../../services/Agent.js"
import { Extensions } from "../../services/Extensions.js"
import { ModelClient, type ModelClientService } from "../../services/ModelClient.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as AgentTool from "../../tools/AgentTool.js"
import * as WebSearch from "../../tools/WebSearch.js"
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

/** A model for the listing only: nothing here calls a tool, so it is never asked. */
const LISTING_MODEL: ModelClientService = {
  model: "claude-listing",
  stream: () => Stream.die(new Error("the tool listing never calls a model"))
}

/** The pool `run` offers a model on Claude: the runtime's tools, the Agent tool and WebSearch. */
const sessionPool = Effect.gen(function*() {
  yield* AgentTool.register({ reportWarnings: false }).pipe(
    Effect.provide(Agent.SubagentModels.layerInherit),
    Effect.provideService(ModelClient, LISTING_MODEL)
  )
  yield* WebSearch.register(LISTING_MODEL)
  return yield* (yield* ToolRegistry).pool
})

/** Where a tool comes from: built in, a custom tool module (`.toolgate/tools`), or an MCP server. */
const sourceOf = (tool: AnyTool, customOrigins: ReadonlyMap<string, string>): string =>
  tool.mcp !== undefined ? `mcp:${tool.mcp.serverName}` : customOrigins.has(tool.name) ? "custom" : "built-in"

/** Flags as the tool reports them for an empty input; Bash's depend on the command. A read-only tool destroys nothing. */
const describe = (tool: AnyTool, customOrigins: ReadonlyMap<string, string>) => ({
  name: tool.name,
  aliases: tool.aliases,
  source: sourceOf(tool, customOrigins),
  ...(customOrigins.has(tool.name) ? { origin: customOrigins.get(tool.name) } : {}),
  readOnly: flag(() => tool.isReadOnly({})),
  concurrencySafe: flag(() => tool.isConcurrencySafe({})),
  destructive: !flag(() => tool.isReadOnly({})) && flag(() => tool.isDestructive({})),
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
      Effect.gen(function*() {
        const pool = yield* sessionPool
        yield* Console.log(JSON.stringify(pool.apiSchemas, null, 2))
      }),
    {},
    { mcpNotices: false }
  )).pipe(Command.withDescription(toolsSchemaSpec.summary))

export const tools = Command.make("tools", commonOptions, (values) =>
  withRuntime(
    values,
    () =>
      Effect.gen(function*() {
        const pool = yield* sessionPool
        const extensions = yield* Effect.serviceOption(Extensions)
        const customOrigins = Option.match(extensions, {
          onNone: () => new Map<string, string>(),
          onSome: (e) => e.loaded.origins
        })
        const rows = pool.tools.map((tool) => describe(tool, customOrigins))
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
          yield* Console.log(
            `${bold(row.name.padEnd(nameWidth))}  ${dim(row.source.padEnd(sourceWidth))}  ${flags.join(", ")}`
          )
        }
        for (const removed of pool.removed) {
          yield* Console.log(dim(`${removed.name.padEnd(nameWidth)}  removed: ${removed.reason}`))
        }
      }),
    {},
    { mcpNotices: false }
  )).pipe(Command.withDescription(toolsSpec.summary), Command.withSubcommands([toolsSchema]))
