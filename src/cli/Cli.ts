/**
 * The command tree.
 */
import { Command } from "@effect/cli"
import { VERSION } from "../version.js"
import { call, exec } from "./commands/exec.js"
import { replay, run } from "./commands/run.js"
import { mcp } from "./commands/mcp.js"
import { permissions } from "./commands/permissions.js"
import { serve } from "./commands/serve.js"
import { tools } from "./commands/tools.js"


const root = Command.make("toolgate").pipe(
  Command.withDescription("A runtime for the tool calls of LLM agents, compatible with Claude Code's tool system"),
  Command.withSubcommands([run, exec, call, tools, permissions, mcp, replay, serve])
)

export const cli = Command.run(root, { name: "toolgate", version: VERSION })

/** Every command and subcommand name, for the argv normaliser. */
export const SUBCOMMANDS: ReadonlySet<string> = new Set(["run", "replay", "exec", "call", "tools", "schema", "permissions", "check", "mcp", "list", "serve"])
