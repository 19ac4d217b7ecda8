/**
 * The command tree, and what each command takes (for the argv front end and the help).
 */
import { Command } from "@effect/cli"
import { VERSION } from "../version.js"
import { doctor, doctorSpec } from "./commands/doctor.js"
import { call, callSpec, exec, execSpec } from "./commands/exec.js"
import { mcp, mcpListSpec, mcpSpec } from "./commands/mcp.js"
import { checkSpec, permissions, permissionsSpec } from "./commands/permissions.js"
import { replay, replaySpec, run, runSpec } from "./commands/run.js"
import { serve, serveSpec } from "./commands/serve.js"
import { tools, toolsSchemaSpec, toolsSpec } from "./commands/tools.js"
import { commandHelp, rootHelp } from "./help.js"
import type { CommandSpec } from "./spec.js"
import { frontEnd } from "./usage.js"
import { usageExitCodeFor } from "./usageError.js"

const root = Command.make("toolgate").pipe(
  Command.withDescription("A runtime for the tool calls of LLM agents, compatible with Claude Code's tool system"),
  Command.withSubcommands([run, exec, call, tools, permissions, mcp, replay, serve, doctor])
)

export const cli = Command.run(root, { name: "toolgate", version: VERSION })

/** Every command, in the order the help lists them. */
export const SPECS: ReadonlyArray<CommandSpec> = [
  runSpec,
  execSpec,
  callSpec,
  toolsSpec,
  toolsSchemaSpec,
  permissionsSpec,
  checkSpec,
  mcpSpec,
  mcpListSpec,
  replaySpec,
  serveSpec,
  doctorSpec
]

/**
 * The argv @effect/cli runs (canonical, checked against the command's spec), or undefined when
 * the front end has answered: help and version printed, or a usage error printed (exit code 2, 1 for `run`).
 */
export const prepareArgv = (args: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
  const front = frontEnd(args, SPECS)
  switch (front._tag) {
    case "Run":
      return front.argv
    case "Help":
      process.stdout.write(
        front.spec === undefined
          ? rootHelp(SPECS, VERSION, process.stdout.columns)
          : commandHelp(front.spec, SPECS, process.stdout.columns)
      )
      return undefined
    case "Version":
      process.stdout.write(`${VERSION} (toolgate)\n`)
      return undefined
    case "Usage":
      process.stderr.write(`toolgate: ${front.message}\n`)
      process.exitCode = usageExitCodeFor(args)
      return undefined
  }
}
