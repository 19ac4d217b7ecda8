/**
 * The default runtime: every stage wired to its real implementation. Every service it composes
 * can be replaced by a Layer of your own (`layers: { InputValidator: …, Scheduler: … }`), and
 * what you give is what the other stages use.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Scope } from "effect"
import type { BadRequest, BrokenSettings } from "../Errors.js"
import { CallServices, type AnyTool, type Tool } from "../Tool.js"
import * as Approver from "../services/Approver.js"
import * as Extensions from "../services/Extensions.js"
import type { ModelClient } from "../services/ModelClient.js"
import * as Agent from "../services/Agent.js"
import * as AgentTool from "../tools/AgentTool.js"
import * as CallPipeline from "../services/CallPipeline.js"
import * as FileState from "../services/FileState.js"
import * as McpClients from "../services/McpClients.js"
import * as Hooks from "../services/Hooks.js"
import * as InputValidator from "../services/InputValidator.js"
import * as Permissions from "../services/Permissions.js"
import * as ResultStore from "../services/ResultStore.js"
import * as Scheduler from "../services/Scheduler.js"
import * as Settings from "../services/Settings.js"
import * as ShellAnalyzer from "../services/ShellAnalyzer.js"
import * as Sandbox from "../services/Sandbox.js"
import * as ToolRegistry from "../services/ToolRegistry.js"
import * as BackgroundTools from "../tools/background/BackgroundTools.js"
import * as BackgroundTasks from "../tools/background/BackgroundTasks.js"
import { builtinTools } from "../tools/index.js"
import { ASK_USER_QUESTION_DISABLED, ASK_USER_QUESTION_TOOL_NAME } from "../tools/AskUserQuestion.js"
import { makeResourceTools } from "../tools/mcp/resourceTools.js"
import { makeSkillTool } from "../tools/Skill.js"
import * as DeferredTools from "../services/DeferredTools.js"

/**
 * What building the runtime can fail with: settings that cannot be read, a bad option.
 *
 * @since 0.1.0
 * @category models
 */
export type RuntimeError = BadRequest | BrokenSettings

/** The services a replacement may need, in the order the runtime builds them. */
type Core = Settings.Settings | ShellAnalyzer.ShellAnalyzer | Sandbox.Sandbox
type Base =
  | Core
  | FileState.FileState
  | InputValidator.InputValidator
  | ResultStore.ResultStore
  | Approver.Approver
  | BackgroundTasks.BackgroundTasks
  | ToolRegistry.BuiltinTools
type Stages = Base | ToolRegistry.ToolRegistry | Hooks.Hooks | Permissions.Permissions
type Extended = Stages | Extensions.Extensions | McpClients.McpClients
type BeforeScheduler = Extended | DeferredTools.DeferredTools | CallPipeline.CallPipeline

/**
 * A Layer for each service the runtime composes. Each one given replaces the runtime's own, and
 * every other stage is built on it. A replacement may use the services built before it (its
 * third type parameter says which).
 *
 * @since 0.1.0
 * @category models
 */
export interface RuntimeLayers {
  readonly Settings: Layer.Layer<Settings.Settings, RuntimeError>
  readonly ShellAnalyzer: Layer.Layer<ShellAnalyzer.ShellAnalyzer, RuntimeError>
  readonly Sandbox: Layer.Layer<Sandbox.Sandbox, RuntimeError, Settings.Settings | ShellAnalyzer.ShellAnalyzer>
  readonly FileState: Layer.Layer<FileState.FileState, RuntimeError, Core>
  readonly InputValidator: Layer.Layer<InputValidator.InputValidator, RuntimeError, Core>
  readonly ResultStore: Layer.Layer<ResultStore.ResultStore, RuntimeError, Core>
  readonly Approver: Layer.Layer<Approver.Approver, RuntimeError, Core>
  readonly BackgroundTasks: Layer.Layer<BackgroundTasks.BackgroundTasks, RuntimeError, Core>
  /** The built-in tools (default: `tools`, with Bash, TaskOutput and TaskStop bound to the background shells). */
  readonly BuiltinTools: Layer.Layer<ToolRegistry.BuiltinTools, RuntimeError, Core | BackgroundTasks.BackgroundTasks>
  readonly ToolRegistry: Layer.Layer<ToolRegistry.ToolRegistry, RuntimeError, Base>
  readonly Hooks: Layer.Layer<Hooks.Hooks, RuntimeError, Base>
  readonly Permissions: Layer.Layer<Permissions.Permissions, RuntimeError, Base>
  readonly Extensions: Layer.Layer<Extensions.Extensions, RuntimeError, Stages>
  readonly McpClients: Layer.Layer<McpClients.McpClients, RuntimeError, Stages>
  readonly DeferredTools: Layer.Layer<DeferredTools.DeferredTools, RuntimeError, Extended>
  readonly CallPipeline: Layer.Layer<CallPipeline.CallPipeline, RuntimeError, Extended | DeferredTools.DeferredTools>
  readonly Scheduler: Layer.Layer<Scheduler.Scheduler, RuntimeError, BeforeScheduler>
  /** What Stop hooks see as `background_tasks` (default: the background shells still running). */
  readonly BackgroundWork: Layer.Layer<Hooks.BackgroundWork, RuntimeError, BeforeScheduler>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RuntimeOptions<R = never> extends Settings.SettingsOptions {
  /** Tools of the pool; defaults to the built-ins. A tool may require services: the runtime's, or ones you provide to the runtime layer. */
  readonly tools?: ReadonlyArray<Tool<any, any, R>>
  /** Replacements for any of the services the runtime composes (they win over the options below). */
  readonly layers?: Partial<RuntimeLayers>
  /** Shorthand for `layers.Approver`. */
  readonly approver?: RuntimeLayers["Approver"]
  /** Shorthand for `layers.Hooks`. */
  readonly hooks?: RuntimeLayers["Hooks"]
  /** Shorthand for `layers.Permissions`. */
  readonly permissions?: RuntimeLayers["Permissions"]
  /** The Bash command analyzer shared by Permissions, Hooks and the Bash tool; defaults to tree-sitter, loaded on first use (shorthand for `layers.ShellAnalyzer`). */
  readonly shellAnalyzer?: RuntimeLayers["ShellAnalyzer"]
  /** Where Bash commands run; defaults to the kernel sandbox of this machine (`Sandbox.layerNone`: none). Shorthand for `layers.Sandbox`. */
  readonly sandbox?: RuntimeLayers["Sandbox"]
  /** MCP servers (`.mcp.json`, `~/.claude.json`, `mcpConfig`); `false` connects none. */
  readonly mcp?: McpClients.McpClientsOptions | false
  /** Skills and custom tool modules; `{ disabled: true }` loads nothing. */
  readonly extensions?: Extensions.ExtensionsOptions
  /** The environment of Bash commands and background shells (default: this process's, minus the variables that change how bash starts). */
  readonly processEnv?: Readonly<Record<string, string>>
  /** Decorates the call pipeline (e.g. to record each call as a durable step). */
  readonly wrapCallPipeline?: (
    pipeline: CallPipeline.CallPipelineService
  ) => Effect.Effect<CallPipeline.CallPipelineService>
}

/**
 * @since 0.1.0
 * @category models
 */
export type RuntimeServices =
  | Settings.Settings
  | Sandbox.Sandbox
  | ShellAnalyzer.ShellAnalyzer
  | FileState.FileState
  | ToolRegistry.ToolRegistry
  | ToolRegistry.BuiltinTools
  | InputValidator.InputValidator
  | ResultStore.ResultStore
  | Hooks.Hooks
  | Permissions.Permissions
  | Approver.Approver
  | CallPipeline.CallPipeline
  | Scheduler.Scheduler
  | Extensions.Extensions
  | McpClients.McpClients
  | BackgroundTasks.BackgroundTasks
  | Hooks.BackgroundWork
  | DeferredTools.DeferredTools

/**
 * The names of the services the runtime composes, one per key of `RuntimeLayers`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SERVICE_NAMES: ReadonlyArray<keyof RuntimeLayers> = [
  "Settings",
  "ShellAnalyzer",
  "Sandbox",
  "FileState",
  "InputValidator",
  "ResultStore",
  "Approver",
  "BackgroundTasks",
  "BuiltinTools",
  "ToolRegistry",
  "Hooks",
  "Permissions",
  "Extensions",
  "McpClients",
  "DeferredTools",
  "CallPipeline",
  "Scheduler",
  "BackgroundWork"
]

/**
 * The services a tool's `call` can always count on: the runtime provides them. Scheduler,
 * CallPipeline and BackgroundWork are built after the pipeline, so a tool cannot require them.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolServices = Exclude<
  RuntimeServices,
  Scheduler.Scheduler | CallPipeline.CallPipeline | Hooks.BackgroundWork
>

/** With nobody to answer (the approver cannot ask), AskUserQuestion is withheld from the session, as Claude Code does. */
const withholdUnanswerable = Layer.effectDiscard(
  Effect.gen(function*() {
    if ((yield* Approver.Approver).canAsk) return
    yield* (yield* ToolRegistry.ToolRegistry).withhold(ASK_USER_QUESTION_TOOL_NAME, ASK_USER_QUESTION_DISABLED)
  })
)

/** The background shells still running, as Stop hooks see them (`background_tasks`). */
const backgroundWork = Layer.effect(
  Hooks.BackgroundWork,
  Effect.map(BackgroundTasks.BackgroundTasks, (tasks) => ({
    running: Effect.map(tasks.list, (list) =>
      list
        .filter((task) => task.status === "running")
        .map((task) => ({
          id: task.id,
          type: "shell",
          status: task.status,
          description: task.description ?? task.command,
          command: task.command
        })))
  }))
)

const builtinsLayer = (tools: ReadonlyArray<AnyTool>, processEnv: RuntimeOptions["processEnv"]) =>
  Layer.effect(
    ToolRegistry.BuiltinTools,
    Effect.map(BackgroundTools.BackgroundTools, (background) => BackgroundTools.withBackgroundTools(tools, background))
  ).pipe(Layer.provide(BackgroundTools.layer(processEnv === undefined ? {} : { env: processEnv })))

/**
 * Composes the stages once; the result is one layer to provide to a program. Tools that require
 * services beyond the runtime's leave them as the layer's requirements.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approver, Runtime, Scheduler, Session } from "toolgate"
 *
 * const cwd = process.cwd()
 * const program = Effect.gen(function* () {
 *   const scheduler = yield* Scheduler.Scheduler
 *   const run = yield* scheduler.runMessage(
 *     [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: `${cwd}/package.json` } }],
 *     { session: Session.newSession({ cwd, permissionMode: "default" }) }
 *   )
 *   return run.message
 * })
 *
 * // Reads inside the working directory are allowed; every question is answered "no".
 * const runtime = Runtime.layer({
 *   cwd,
 *   approver: Approver.layerCallback(() => Effect.succeed({ behavior: "deny", message: "not in this example" }))
 * })
 *
 * export const main = program.pipe(Effect.provide(runtime), Effect.scoped)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = never>(
  options: RuntimeOptions<R>
): Layer.Layer<RuntimeServices, RuntimeError, Exclude<R, ToolServices>> => {
  const given = options.layers ?? {}
  const shellAnalyzer = given.ShellAnalyzer ?? options.shellAnalyzer ?? ShellAnalyzer.layer
  const settings = given.Settings ?? Settings.layer(options)
  const core = Layer.provideMerge(
    given.Sandbox ?? options.sandbox ?? Sandbox.layer(),
    Layer.merge(settings, shellAnalyzer)
  )
  const tasks = given.BackgroundTasks ?? BackgroundTasks.layer({ killGraceMs: 1000 })
  // A tool may require services: the pipeline gives every call the context this build ends with.
  const builtins = given.BuiltinTools ??
    builtinsLayer((options.tools ?? builtinTools) as ReadonlyArray<AnyTool>, options.processEnv)
  const base = Layer.mergeAll(
    given.FileState ?? FileState.layer,
    given.InputValidator ?? InputValidator.layer,
    given.ResultStore ?? ResultStore.layer,
    Layer.provideMerge(builtins, tasks),
    given.Approver ?? options.approver ?? Approver.layerDeny
  ).pipe(Layer.provideMerge(core))
  const registry = Layer.provideMerge(withholdUnanswerable, given.ToolRegistry ?? ToolRegistry.layer)
  const stages = Layer.mergeAll(
    registry,
    given.Hooks ?? options.hooks ?? Hooks.layer,
    given.Permissions ?? options.permissions ?? Permissions.layer,
    ResultStore.layerSweep
  ).pipe(Layer.provideMerge(base))
  const mcp = given.McpClients ??
    (options.mcp === false
      ? McpClients.layerNone
      : McpClients.layer({ cwd: options.cwd, resourceTools: makeResourceTools, ...options.mcp }))
  const extensions = given.Extensions ?? Extensions.layer({ skillTool: makeSkillTool, ...options.extensions })
  const extended = Layer.merge(extensions, mcp).pipe(Layer.provideMerge(stages))
  const pipeline = wrapped(given.CallPipeline ?? CallPipeline.layer, options.wrapCallPipeline)
  const composed = Layer.merge(given.Scheduler ?? Scheduler.layer, given.BackgroundWork ?? backgroundWork).pipe(
    Layer.provideMerge(pipeline),
    Layer.provideMerge(given.DeferredTools ?? DeferredTools.layer),
    Layer.provideMerge(extended)
  )
  return Layer.provideMerge(fillCallServices, composed).pipe(Layer.provide(callServices)) as Layer.Layer<
    RuntimeServices,
    RuntimeError,
    any
  >
}

/** One holder per build of the runtime (a layer value may be built more than once). */
const callServices = Layer.sync(CallServices, () => ({ context: undefined }))

/** Once everything is built: the whole context (without the build's scope) for the tools' calls. */
const fillCallServices = Layer.effectDiscard(
  Effect.gen(function*() {
    const holder = yield* CallServices
    holder.context = Context.omit(Scope.Scope)(yield* Effect.context<never>()) as Context.Context<never>
  })
)

const wrapped = <RIn>(
  pipeline: Layer.Layer<CallPipeline.CallPipeline, RuntimeError, RIn>,
  wrap: RuntimeOptions["wrapCallPipeline"]
): Layer.Layer<CallPipeline.CallPipeline, RuntimeError, RIn> =>
  wrap === undefined
    ? pipeline
    : Layer.effect(CallPipeline.CallPipeline, Effect.flatMap(CallPipeline.CallPipeline, wrap)).pipe(
      Layer.provide(pipeline)
    )

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentRuntimeOptions<R = never, E = never> extends RuntimeOptions<R> {
  /** The model the agent (and its subagents) run on, e.g. `ModelClient.layerScripted(…)` or `ModelClient.layerAnthropicConfig()`. */
  readonly model: Layer.Layer<ModelClient, E>
  readonly agents?: AgentTool.AgentToolOptions
  /** What each subagent runs on (default: the agent's model), e.g. `SubagentModels.layerScripted(…)`. */
  readonly subagentModels?: Layer.Layer<Agent.SubagentModels.SubagentModels, E, ModelClient>
  /** Replaces the agent loop. */
  readonly agent?: Layer.Layer<
    Agent.Agent,
    never,
    ModelClient | Scheduler.Scheduler | ToolRegistry.ToolRegistry | Hooks.Hooks
  >
}

/**
 * What a runtime with the agent offers: the runtime's services, the model, the agent loop, the
 * Agent tool's types.
 *
 * @since 0.1.0
 * @category models
 */
export type AgentRuntimeServices = RuntimeServices | ModelClient | Agent.Agent | AgentTool.AgentTypes

/**
 * The runtime plus the agent: the `Agent` loop on the given model, and the `Agent` tool
 * (subagents on the same model unless `subagentModels` says otherwise) in the pool.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithAgent = <R = never, E = never>(
  options: AgentRuntimeOptions<R, E>
): Layer.Layer<AgentRuntimeServices, RuntimeError | E, Exclude<R, ToolServices>> =>
  Layer.merge(
    options.agent ?? Agent.layer,
    AgentTool.layer(options.agents).pipe(Layer.provide(options.subagentModels ?? Agent.SubagentModels.layerInherit))
  ).pipe(
    Layer.provideMerge(options.model),
    Layer.provideMerge(layer(options))
  )
