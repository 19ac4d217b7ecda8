/**
 * Running a command's program inside a freshly composed runtime.
 */
import type { Layer } from "effect"
import { Config, Console, Context, Effect, Option } from "effect"
import type { BadRequest, BrokenSettings } from "../Errors.js"
import * as Runtime from "../layers/Runtime.js"
import { layerCliTerminal } from "./terminalApprover.js"
import { newSession, type SessionContext } from "../Session.js"
import { Settings } from "../services/Settings.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { McpClients, type McpClientsOptions } from "../services/McpClients.js"
import { unknownToolWarnings, checkRule, makeRule } from "../PermissionRules.js"
import { AGENT_TOOL_NAME, type SubagentModels } from "../services/Agent.js"
import { ModelClient } from "../services/ModelClient.js"
import { type CommonValues, runtimeOptions } from "./options.js"
import { splitToolList } from "../services/Settings.js"
import { UsageError } from "./usageError.js"

/**
 * A deny rule typed on the command line that cannot be used is an error, not a warning: running
 * without it would allow what the person meant to forbid.
 */
export const checkDenyRules = (
  values: Pick<CommonValues, "disallowedTools">,
  cwd: string
): Effect.Effect<void, UsageError> =>
  Effect.forEach(
    splitToolList(values.disallowedTools),
    (raw) => {
      const check = checkRule(makeRule(raw, "deny", "cliArg", cwd))
      if (check.usable) return Effect.void
      if (check.applied === true) return Effect.void
      const why =
        /^Permission rule '[\s\S]*' from \S+ ([\s\S]*?); (?:it is ignored|as a \w+ rule it fails closed)/.exec(
          check.warning ?? ""
        )?.[1] ?? "cannot be used"
      return Effect.fail(new UsageError({ reason: `--disallowed-tools: the deny rule '${raw}' ${why}` }))
    },
    { discard: true }
  )

const isPositiveInteger = (raw: string): boolean => /^\s*\d+\s*$/.test(raw) && Number(raw) > 0

/**
 * The concurrency cap from the environment, read here so that a value that cannot be used is not
 * ignored in silence: toolgate's own variable stops the command (the person meant a cap), Claude
 * Code's is warned about and, as Claude Code does, falls back to the default.
 */
export const checkConcurrencyEnv: Effect.Effect<void, UsageError> = Effect.gen(function*() {
  const own = yield* Config.option(Config.string("TOOLGATE_MAX_TOOL_USE_CONCURRENCY")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  if (Option.isSome(own) && !isPositiveInteger(own.value)) {
    return yield* new UsageError({
      reason: `TOOLGATE_MAX_TOOL_USE_CONCURRENCY=${own.value}: not a positive integer (the most tool calls run at once)`
    })
  }
  const claude = yield* Config.option(Config.string("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  if (Option.isNone(own) && Option.isSome(claude) && !isPositiveInteger(claude.value)) {
    yield* Console.error(
      `toolgate: warning: CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=${claude.value} is not a positive integer; the default cap of 10 applies`
    )
  }
})

export interface RuntimeExtras {
  /** A continued session keeps its id and folder. */
  readonly session?: { readonly sessionId: string; readonly sessionDir: string }
  /** Print MCP servers' problems at start (default true; `tools` and `permissions check` say nothing unless --debug). */
  readonly mcpNotices?: boolean
  /** Asks about the project's unapproved MCP servers (a person at a terminal); without it they do not start. */
  readonly approveMcp?: McpClientsOptions["approve"]
}

/** The options of the runtime a command runs in: a person at a terminal is asked; without one, every "ask" is denied (fail closed). */
const optionsOf = (
  values: CommonValues,
  overrides: Partial<Runtime.RuntimeOptions>,
  extras: RuntimeExtras
): Runtime.RuntimeOptions => ({
  approver: layerCliTerminal,
  ...runtimeOptions(values, extras.approveMcp),
  ...overrides
})

/** Provides the runtime to `program`, with a session built from the loaded settings. */
export const withRuntime = <A, E>(
  values: CommonValues,
  program: (session: SessionContext) => Effect.Effect<A, E, Runtime.RuntimeServices>,
  overrides: Partial<Runtime.RuntimeOptions> = {},
  extras: RuntimeExtras = {}
): Effect.Effect<A, E | BadRequest | BrokenSettings | UsageError> => {
  const options = optionsOf(values, overrides, extras)
  return checkDenyRules(values, options.cwd).pipe(
    Effect.zipRight(checkConcurrencyEnv),
    Effect.zipRight(
      inSession(values, options, extras, program).pipe(
        Effect.provide(Runtime.layer(options) as Layer.Layer<Runtime.RuntimeServices, BadRequest | BrokenSettings>)
      )
    )
  )
}

/** The model an agent session runs on, and what its subagents run on. */
export interface AgentModels<E> {
  readonly model: Layer.Layer<ModelClient, E>
  readonly subagentModels: Layer.Layer<SubagentModels.SubagentModels, E, ModelClient>
}

/**
 * Provides the runtime with the agent (`Runtime.layerWithAgent`) to `program`, with a session
 * built from the loaded settings. The agent and its subagents hold their model; the session's
 * tool calls do not see it (WebFetch answers with the page itself, as `run` always has).
 */
export const withAgentRuntime = <A, E, E2>(
  values: CommonValues,
  models: AgentModels<E2>,
  program: (session: SessionContext) => Effect.Effect<A, E, Exclude<Runtime.AgentRuntimeServices, ModelClient>>,
  overrides: Partial<Runtime.RuntimeOptions> = {},
  extras: RuntimeExtras = {}
): Effect.Effect<A, E | E2 | BadRequest | BrokenSettings | UsageError> => {
  const options = optionsOf(values, overrides, extras)
  const layer = Runtime.layerWithAgent<never, E2>({ ...options, ...models }) as Layer.Layer<
    Runtime.AgentRuntimeServices,
    E2 | BadRequest | BrokenSettings
  >
  const withoutModel = (session: SessionContext) =>
    Effect.mapInputContext(
      program(session),
      (context: Context.Context<Runtime.AgentRuntimeServices>) => Context.omit(ModelClient)(context)
    )
  return checkDenyRules(values, options.cwd).pipe(
    Effect.zipRight(checkConcurrencyEnv),
    Effect.zipRight(inSession(values, options, extras, withoutModel).pipe(Effect.provide(layer)))
  )
}

/** Reports what the loaded settings and MCP servers say, then runs `program` in a session made from them. */
const inSession = <A, E, R>(
  values: CommonValues,
  options: Runtime.RuntimeOptions,
  extras: RuntimeExtras,
  program: (session: SessionContext) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Settings | McpClients | ToolRegistry> =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const loaded = yield* settings.current
    for (const warning of loaded.warnings) yield* Console.error(`toolgate: warning: ${warning}`)
    if (extras.mcpNotices !== false || values.debug) {
      for (const notice of yield* (yield* McpClients).notices) yield* Console.error(`toolgate: ${notice}`)
    }
    if (values.debug) {
      for (const source of loaded.sources) {
        yield* Console.error(`[DEBUG] settings: ${source.source}${source.file === undefined ? "" : ` ${source.file}`}`)
      }
      yield* Console.error(
        `[DEBUG] permission mode ${loaded.mode}; ${loaded.rules.length} rule(s); trusted project: ${
          loaded.trusted === true
        }`
      )
      for (const server of yield* (yield* McpClients).servers) {
        yield* Console.error(
          `[DEBUG] mcp ${server.name}: ${server.state}${
            server.reason === undefined ? "" : ` (${server.reason.split("\n")[0]})`
          }`
        )
      }
    }
    const pool = yield* (yield* ToolRegistry).pool
    // the Agent tool is in the pool only with a model (`run`)
    for (
      const warning of unknownToolWarnings(loaded.rules, [
        ...pool.tools.map((t) => t.name),
        ...pool.removed.map((r) => r.name),
        AGENT_TOOL_NAME
      ])
    ) {
      yield* Console.error(`toolgate: warning: ${warning}`)
    }
    const sessionDir = extras.session?.sessionDir ?? Option.getOrUndefined(values.sessionDir)
    const session = newSession({
      cwd: options.cwd,
      permissionMode: loaded.mode,
      additionalDirectories: loaded.additionalDirectories,
      ...(sessionDir === undefined ? {} : { sessionDir }),
      ...(extras.session === undefined ? {} : { sessionId: extras.session.sessionId })
    })
    return yield* program(session)
  })
