/**
 * Agent: runs a subagent — a nested agent loop on the same kind of
 * model with a narrower tool pool (the type's `tools`, minus its `disallowedTools`, minus Agent)
 * and the parent's permissions and hooks — and returns its final text.
 *
 * The tool needs a model at call time, so it is made inside a layer (`layer`, `register`) that
 * captures the runtime's stages and a SubagentModels stage; without a model there is no Agent
 * tool in the pool (`toolgate call` has none; `toolgate run` adds it).
 *
 * Flags: not read-only; destructive unless the type is read-only; interrupt behaviour `cancel`
 * (a user interrupt stops the subagent and everything it runs). Concurrency-safe for scheduling,
 * unlike Claude Code 2.1.112 and like its newer builds: several Agent calls in one
 * message run together under the scheduler's cap, and at most
 * `TOOLGATE_MAX_CONCURRENT_SUBAGENTS` (else `CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS`, default 20)
 * subagents run at once in a runtime — the others wait for a slot.
 *
 * An unknown `subagent_type` is refused at validation with the types the model may use (types
 * denied by an `Agent(<type>)` rule are not listed); a denied type passes validation and is
 * denied by the permission stage with Claude Code's text. Launching needs no permission.
 *
 * @since 0.1.0
 */
import { Config, Console, Context, Effect, Layer } from "effect"
import { ToolError } from "../Errors.js"
import {
  agentDirs,
  loadAgents,
  BUILTIN_AGENTS,
  DEFAULT_AGENT_TYPE,
  AGENT_TOOL_NAME,
  toolEntryWarnings,
  runSubagent,
  SubagentModels,
  agentHookResponse,
  agentResultText,
  type AgentDefinition,
  type LoadedAgents,
  type SubagentDeps,
  type AgentOutput
} from "../services/Agent.js"
import type { ModelClient } from "../services/ModelClient.js"
import { agentRuleMatches } from "../services/Permissions.js"
import { canonicalToolName } from "../PermissionRules.js"
import type { PermissionRule } from "../Permission.js"
import { Settings } from "../services/Settings.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { buildTool, reject, type AnyTool } from "../Tool.js"
import { AGENT_TOOL_PROMPT, agentToolDescription } from "./agent/description.js"
import { AgentInput, ForegroundAgentInput } from "./agent/input.js"
import { backgroundTasksDisabled } from "./background/settings.js"

export {
  /**
   * @since 0.1.0
   * @category models
   */
  AgentInput
} from "./agent/input.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  AgentOutput
} from "../services/Agent.js"

/**
 * `TOOLGATE_MAX_CONCURRENT_SUBAGENTS`, then `CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS`, default 20.
 *
 * @since 0.1.0
 * @category utils
 */
export const maxConcurrentSubagentsConfig: Config.Config<number> = Config.integer("TOOLGATE_MAX_CONCURRENT_SUBAGENTS")
  .pipe(
    Config.orElse(() => Config.integer("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS")),
    Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
    Config.withDefault(20)
  )

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentToolOptions {
  /** Whose `.claude/agents` to read; the settings' cwd by default. */
  readonly projectDir?: string
  /** `~/.claude` (user agents in `<dir>/agents`); the settings' user config dir by default. */
  readonly userConfigDir?: string
  /** Agent types of your own; they win over files and built-ins of the same name. */
  readonly definitions?: ReadonlyArray<AgentDefinition>
  /** Replaces the built-in types (general-purpose, Explore, Plan). */
  readonly builtins?: ReadonlyArray<AgentDefinition>
  /** Overrides the configured cap on subagents running at once. */
  readonly maxConcurrentSubagents?: number
  /** Print load warnings to stderr (default true); `register` returns them either way. */
  readonly reportWarnings?: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentToolBuild {
  readonly tool: AnyTool
  readonly agents: LoadedAgents
}

const isDenied = (rules: ReadonlyArray<PermissionRule>, agentType: string) =>
  rules.some((r) =>
    r.behavior === "deny" && r.content !== undefined && canonicalToolName(r.toolName) === AGENT_TOOL_NAME &&
    agentRuleMatches(r, agentType)
  )

/**
 * The type a call asks for (blank means the default).
 *
 * @since 0.1.0
 * @category utils
 */
export const agentTypeOf = (input: AgentInput): string => {
  const given = input.subagent_type?.trim()
  return given === undefined || given === "" ? DEFAULT_AGENT_TYPE : given
}

/**
 * Builds the Agent tool over the runtime's stages; the tool is not registered.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: AgentToolOptions = {}) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const models = yield* SubagentModels.SubagentModels
    const context = yield* Effect.context<SubagentDeps>()
    const current = yield* settings.current
    const loaded = loadAgents(
      agentDirs(options.projectDir ?? current.cwd, options.userConfigDir ?? current.userConfigDir),
      options.definitions ?? [],
      options.builtins ?? BUILTIN_AGENTS
    )
    const agents: LoadedAgents = {
      definitions: loaded.definitions,
      warnings: [...loaded.warnings, ...loaded.definitions.flatMap(toolEntryWarnings)]
    }
    const byName = new Map(agents.definitions.map((d) => [d.name, d] as const))
    const cap = options.maxConcurrentSubagents ??
      (yield* maxConcurrentSubagentsConfig.pipe(Effect.orElseSucceed(() => 20)))
    const slots = yield* Effect.makeSemaphore(Math.max(1, cap))
    const listed = agents.definitions.filter((d) => !isDenied(current.rules, d.name))

    const tool = buildTool<AgentInput, AgentOutput>({
      name: AGENT_TOOL_NAME,
      aliases: ["Task"],
      inputSchema: (yield* backgroundTasksDisabled) ? ForegroundAgentInput : AgentInput,
      description: agentToolDescription(listed),
      prompt: AGENT_TOOL_PROMPT,
      isReadOnly: () => false,
      isConcurrencySafe: () => true,
      isDestructive: (input) => byName.get(agentTypeOf(input))?.readOnly !== true,
      interruptBehavior: () => "cancel",
      permissionSubject: (input) => ({ kind: "agent", agentType: agentTypeOf(input) }),
      validateInput: (input) =>
        Effect.gen(function*() {
          if (input.run_in_background === true) {
            return yield* reject(
              AGENT_TOOL_NAME,
              "toolgate does not run subagents in the background: call Agent without run_in_background (several Agent calls in one message run in parallel)"
            )
          }
          if (input.isolation !== undefined) {
            return yield* reject(
              AGENT_TOOL_NAME,
              `toolgate has no ${input.isolation} isolation for subagents: call Agent without isolation`
            )
          }
          const agentType = agentTypeOf(input)
          if (byName.has(agentType)) return
          const { rules } = yield* settings.current
          const available = agents.definitions.filter((d) => !isDenied(rules, d.name)).map((d) => d.name)
          return yield* reject(
            AGENT_TOOL_NAME,
            `Agent type '${agentType}' not found. Available agents: ${available.join(", ")}`
          )
        }),
      call: (input, ctx) =>
        Effect.suspend(() => {
          const definition = byName.get(agentTypeOf(input))
          if (definition === undefined) {
            return Effect.fail(new ToolError({ reason: `Agent type '${agentTypeOf(input)}' not found` }))
          }
          return slots.withPermits(1)(
            runSubagent(context, models, {
              definition,
              description: input.description,
              prompt: input.prompt,
              model: input.model,
              ctx
            })
          )
        }).pipe(Effect.map((data) => ({ data }))),
      mapResult: agentResultText,
      hookResponse: agentHookResponse,
      userFacingName: () => AGENT_TOOL_NAME,
      renderUse: (input) => `${agentTypeOf(input)}: ${input.description}`,
      renderResult: (output) => {
        const first = (output.text.trim().split("\n")[0] ?? "").slice(0, 160)
        return `${output.agentType} · ${output.turns} turn(s), ${output.toolUseCount} call(s)${
          first === "" ? "" : ` · ${first}`
        }`
      }
    })
    return { tool, agents } satisfies AgentToolBuild
  })

/**
 * Builds the Agent tool and adds it to the pool (source `agents`).
 *
 * @since 0.1.0
 * @category utils
 */
export const register = (options: AgentToolOptions = {}) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const built = yield* make(options)
    yield* registry.setSource("agents", [built.tool])
    if (options.reportWarnings !== false) {
      for (const warning of built.agents.warnings) yield* Console.error(`toolgate: warning: ${warning}`)
    }
    return built
  })

/**
 * The agent types the Agent tool offers, as loaded when it joined the pool.
 *
 * @since 0.1.0
 * @category services
 */
export class AgentTypes extends Context.Tag("toolgate/AgentTypes")<AgentTypes, LoadedAgents>() {}

/**
 * Adds the Agent tool to the pool when built (and says which agent types it offers); subagents
 * run on the SubagentModels stage.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: AgentToolOptions = {}
): Layer.Layer<AgentTypes, never, SubagentDeps | SubagentModels.SubagentModels> =>
  Layer.effect(AgentTypes, Effect.map(register(options), (built) => built.agents))

/**
 * Adds the Agent tool; every subagent runs on the runtime's ModelClient.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInheritModel = (
  options: AgentToolOptions = {}
): Layer.Layer<AgentTypes, never, SubagentDeps | ModelClient> =>
  layer(options).pipe(Layer.provide(SubagentModels.layerInherit))
