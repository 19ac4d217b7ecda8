/**
 * The command tree.
 */
import { Command } from "@effect/cli"
import { call, exec } from "./commands/exec.js"
import { permissions } from "./commands/permissions.js"
import { tools } from "./commands/tools.js"

export const VERSION = "0.1.0"

const root = Command.make("toolgate").pipe(
  Command.withDescription("A runtime for the tool calls of LLM agents, compatible with Claude Code's tool system"),
  Command.withSubcommands([exec, call, tools, permissions])
)

export const cli = Command.run(root, { name: "toolgate", version: VERSION })

/** Every command and subcommand name, for the argv normaliser. */
export const SUBCOMMANDS: ReadonlySet<string> = new Set(["exec", "call", "tools", "schema", "permissions", "check"])
