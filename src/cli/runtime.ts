/**
 * Running a command's program inside a freshly composed runtime.
 */
import { Console, Effect, Layer, Option } from "effect"
import type { BadRequest, BrokenSettings } from "../Errors.js"
import * as Runtime from "../layers/Runtime.js"
import * as Approver from "../services/Approver.js"
import { newSession, type SessionContext } from "../Session.js"
import { Settings } from "../services/Settings.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { McpClients, type McpClientsOptions } from "../services/McpClients.js"
import { unknownToolWarnings } from "../services/Permissions/ruleValidation.js"
import { AGENT_TOOL_NAME } from "../services/Agent/subagents/pool.js"
import { type CommonValues, runtimeOptions } from "./options.js"

/** Provides the runtime to `program`, with a session built from the loaded settings. */
export const withRuntime = <A, E>(
  values: CommonValues,
  program: (session: SessionContext) => Effect.Effect<A, E, Runtime.RuntimeServices>,
  overrides: Partial<Runtime.RuntimeOptions> = {},
  /** Asks about the project's unapproved MCP servers (a person at a terminal); without it they do not start. */
  approveMcp?: McpClientsOptions["approve"]
): Effect.Effect<A, E | BadRequest | BrokenSettings> => {
  // A person at a terminal is asked; without one, every "ask" is denied (fail closed).
  const options = { approver: Approver.layerTerminal, ...runtimeOptions(values, approveMcp), ...overrides }
  return Effect.gen(function* () {
    const settings = yield* Settings
    const loaded = yield* settings.current
    for (const warning of loaded.warnings) yield* Console.error(`toolgate: warning: ${warning}`)
    for (const notice of yield* (yield* McpClients).notices) yield* Console.error(`toolgate: ${notice}`)
    const pool = yield* (yield* ToolRegistry).pool
    // the Agent tool joins the pool once a model is configured (`run`), after this check
    for (const warning of unknownToolWarnings(loaded.rules, [...pool.tools.map((t) => t.name), AGENT_TOOL_NAME])) {
      yield* Console.error(`toolgate: warning: ${warning}`)
    }
    const sessionDir = Option.getOrUndefined(values.sessionDir)
    const session = newSession({
      cwd: options.cwd,
      permissionMode: loaded.mode,
      additionalDirectories: loaded.additionalDirectories,
      ...(sessionDir === undefined ? {} : { sessionDir })
    })
    return yield* program(session)
  }).pipe(Effect.provide(Runtime.layer(options) as Layer.Layer<Runtime.RuntimeServices, BadRequest | BrokenSettings>))
}
