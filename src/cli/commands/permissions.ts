/**
 * `toolgate permissions check <Tool> <input-json>`: the decision for one call — allow, ask or
 * deny, the deciding rule and its source, the mode's part, and for Bash each subcommand —
 * without running anything.
 */
import { Args, Command } from "@effect/cli"
import { Console, Effect, Either } from "effect"
import { BadRequest } from "../../Errors.js"
import { decodeInput } from "../../services/InputValidator.js"
import { Settings } from "../../services/Settings.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { closest } from "../../internal/closest.js"
import { decodeToolInput, parseJson } from "../input.js"
import { metasOf } from "../flags.js"
import { commonFlags, commonOptions } from "../options.js"
import type { CommandSpec } from "../spec.js"
import { permissionsCheck } from "../permissionsCheck.js"
import { withRuntime } from "../runtime.js"

/** `permissions check` exits with its decision: scripts can branch on it. */
export const DECISION_EXIT_CODES = { allow: 0, ask: 3, deny: 4 } as const

export const checkSpec: CommandSpec = {
  path: ["permissions", "check"],
  summary: "Explain the permission decision for one call, without running it",
  args: [
    { name: "tool", description: "The tool's name" },
    { name: "input", optional: true, description: "The call's input as JSON (default {})" }
  ],
  flags: metasOf(commonFlags),
  details: ["Exit code by decision: 0 allow, 3 ask, 4 deny (1 when the check itself fails, 2 for a usage error)."]
}

export const permissionsSpec: CommandSpec = {
  path: ["permissions"],
  summary: "Inspect permission decisions",
  args: [],
  flags: [],
  group: true
}

export const check = Command.make(
  "check",
  {
    ...commonOptions,
    tool: Args.text({ name: "tool" }).pipe(Args.withDescription("The tool's name")),
    input: Args.text({ name: "input" }).pipe(Args.withDescription("The call's input as JSON"), Args.withDefault("{}"))
  },
  (values) =>
    withRuntime(
      values,
      (session) =>
        Effect.gen(function*() {
          const input = yield* decodeToolInput(yield* parseJson(values.input, "the input"))
          const pool = yield* (yield* ToolRegistry).pool
          const tool = pool.lookup(values.tool)
          if (tool === undefined) {
            const removed = pool.removed.find((r) => r.name === values.tool)
            const suggestion = closest(values.tool, pool.tools.map((t) => t.name))
            const text = removed !== undefined
              ? `${values.tool} is not in the pool: ${removed.reason}`
              : `no such tool: ${values.tool}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}`
            if (values.json) {
              yield* Console.log(JSON.stringify({ tool: values.tool, decision: "deny", reason: text }, null, 2))
            } else yield* Console.log(`deny\n  ${text}`)
            process.exitCode = DECISION_EXIT_CODES.deny
            return
          }
          const decoded = decodeInput(tool, input)
          if (Either.isLeft(decoded)) return yield* new BadRequest({ reason: decoded.left.message })
          const loaded = yield* (yield* Settings).current
          const explanation = yield* permissionsCheck(
            { tool, input: tool.expandInput(decoded.right, session), session },
            { bypassDisabled: loaded.bypassDisabled === true }
          )
          yield* Console.log(values.json ? JSON.stringify(explanation.json, null, 2) : explanation.text)
          process.exitCode = DECISION_EXIT_CODES[explanation.json.decision]
        }),
      {},
      { mcpNotices: false }
    )
).pipe(Command.withDescription(checkSpec.summary))

export const permissions = Command.make("permissions").pipe(
  Command.withDescription(permissionsSpec.summary),
  Command.withSubcommands([check])
)
