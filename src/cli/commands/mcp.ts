/**
 * `toolgate mcp list [--json]`: every configured MCP server with its scope, transport, state,
 * tool count and what went wrong.
 *
 * The command builds only what it needs (settings, the registry, the MCP clients), so it works
 * on its own; the servers are stopped (their whole process groups) when it ends. A project
 * server nobody approved is listed as "needs approval" and never started.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Layer } from "effect"
import * as McpClients from "../../services/McpClients.js"
import * as Settings from "../../services/Settings.js"
import * as ToolRegistry from "../../services/ToolRegistry.js"
import { builtinTools } from "../../tools/index.js"
import { makeResourceTools } from "../../tools/mcp/resourceTools.js"
import { metasOf } from "../flags.js"
import { commonFlags, commonOptions, runtimeOptions, type CommonValues } from "../options.js"
import type { CommandSpec } from "../spec.js"
import { bold, dim, green, red } from "../render.js"

/** The state as people read it ("needs approval"). */
const stateLabel = (state: McpClients.McpServerState): string => state.replace("-", " ")

const stateText = (state: McpClients.McpServerState): string => {
  switch (state) {
    case "connected":
      return green(stateLabel(state))
    case "failed":
    case "needs-auth":
    case "needs-approval":
      return red(stateLabel(state))
    default:
      return dim(stateLabel(state))
  }
}

const printTable = (servers: ReadonlyArray<McpClients.McpServerStatus>) =>
  Effect.gen(function*() {
    if (servers.length === 0) {
      yield* Console.log(dim("No MCP servers configured (.mcp.json, ~/.claude.json or --mcp-config)."))
      return
    }
    const width = Math.max(4, ...servers.map((s) => s.name.length))
    const stateWidth = Math.max(5, ...servers.map((s) => stateLabel(s.state).length))
    yield* Console.log(
      dim(`${"NAME".padEnd(width)}  ${"SCOPE".padEnd(7)}  ${"TYPE".padEnd(5)}  ${"STATE".padEnd(stateWidth)}  TOOLS`)
    )
    for (const s of servers) {
      const tools = s.state === "connected" ? String(s.tools.length) : "-"
      const label = stateLabel(s.state)
      yield* Console.log(
        `${bold(s.name.padEnd(width))}  ${s.scope.padEnd(7)}  ${s.type.padEnd(5)}  ${stateText(s.state)}${
          " ".repeat(stateWidth - label.length + 2)
        }${tools}`
      )
      if (s.reason !== undefined) { for (const line of s.reason.split("\n")) yield* Console.log(`  ${line}`) }
      for (const warning of s.warnings) yield* Console.log(dim(`  warning: ${warning}`))
    }
  })

export const mcpListSpec: CommandSpec = {
  path: ["mcp", "list"],
  summary: "List the MCP servers with their state, tool count and errors",
  args: [],
  flags: metasOf(commonFlags),
  details: ["Exit code 1 when servers are configured and none of them connected."]
}

export const mcpSpec: CommandSpec = {
  path: ["mcp"],
  summary: "Inspect the MCP servers of .mcp.json, ~/.claude.json and --mcp-config",
  args: [],
  flags: [],
  group: true
}

export const mcpList = Command.make("list", commonOptions, (values) =>
  Effect.gen(function*() {
    const clients = yield* McpClients.McpClients
    const servers = yield* clients.servers
    const { errors, warnings } = clients.configuration
    if (values.json) yield* Console.log(JSON.stringify({ servers, errors, warnings }, null, 2))
    else {
      for (const e of errors) yield* Console.log(red(`config error: ${e}`))
      for (const w of warnings) yield* Console.log(dim(`config warning: ${w}`))
      yield* printTable(servers)
    }
    // every server that was tried failed: a script should notice
    const tried = servers.filter((s) => s.state !== "disabled")
    process.exitCode = tried.length > 0 && tried.every((s) => s.state === "failed" || s.state === "needs-auth") ? 1 : 0
  }).pipe(Effect.provide(mcpLayer(values)))).pipe(Command.withDescription(mcpListSpec.summary))

/** Settings, the registry and the MCP clients; nothing of the call pipeline. */
const mcpLayer = (values: CommonValues) => {
  const options = runtimeOptions(values)
  const base = Layer.merge(Settings.layer(options), ToolRegistry.layerBuiltins(builtinTools))
  const registry = ToolRegistry.layer.pipe(Layer.provideMerge(base))
  const mcpOptions = options.mcp === false || options.mcp === undefined ? { cwd: options.cwd } : options.mcp
  return McpClients.layer({ ...mcpOptions, resourceTools: makeResourceTools }).pipe(Layer.provide(registry))
}

export const mcp = Command.make("mcp").pipe(
  Command.withDescription(mcpSpec.summary),
  Command.withSubcommands([mcpList])
)
