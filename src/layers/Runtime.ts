/**
 * The default runtime: every stage wired to its real implementation. Each stage can be replaced
 * by passing a Layer of your own (e.g. an Approver that asks in your UI, hooks of your own).
 */
import { Effect, Layer } from "effect"
import type { AnyTool } from "../Tool.js"
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
import { BackgroundTasks } from "../tools/background/BackgroundTasks.js"
import { builtinTools } from "../tools/index.js"
import { ASK_USER_QUESTION_DISABLED, ASK_USER_QUESTION_TOOL_NAME } from "../tools/AskUserQuestion.js"
import { makeResourceTools } from "../tools/mcp/resourceTools.js"
import { makeSkillTool } from "../tools/Skill.js"
import * as DeferredTools from "../services/DeferredTools.js"

export interface RuntimeOptions extends Settings.SettingsOptions {
  /** Tools of the pool; defaults to the built-ins. */
  readonly tools?: ReadonlyArray<AnyTool>
  readonly approver?: Layer.Layer<Approver.Approver>
  readonly hooks?: Layer.Layer<Hooks.Hooks, never, Settings.Settings | ShellAnalyzer.ShellAnalyzer>
  readonly permissions?: Layer.Layer<Permissions.Permissions, never, Settings.Settings | FileState.FileState | ShellAnalyzer.ShellAnalyzer>
  /** The Bash command analyzer shared by Permissions, Hooks and the Bash tool; defaults to tree-sitter, loaded on first use. */
  readonly shellAnalyzer?: Layer.Layer<ShellAnalyzer.ShellAnalyzer>
  /** Where Bash commands run; defaults to the kernel sandbox of this machine (`Sandbox.layerNone`: none). */
  readonly sandbox?: Layer.Layer<Sandbox.Sandbox, never, Settings.Settings | ShellAnalyzer.ShellAnalyzer>
  /** MCP servers (`.mcp.json`, `~/.claude.json`, `mcpConfig`); `false` connects none. */
  readonly mcp?: McpClients.McpClientsOptions | false
  /** Skills and custom tool modules; `{ disabled: true }` loads nothing. */
  readonly extensions?: Extensions.ExtensionsOptions
  /** The environment of Bash commands and background shells (default: this process's, minus the variables that change how bash starts). */
  readonly processEnv?: Readonly<Record<string, string>>
  /** Decorates the call pipeline (e.g. to record each call as a durable step). */
  readonly wrapCallPipeline?: (pipeline: CallPipeline.CallPipelineService) => Effect.Effect<CallPipeline.CallPipelineService>
}

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
  | BackgroundTasks
  | Hooks.BackgroundWork
  | DeferredTools.DeferredTools

/** With nobody to answer (the approver cannot ask), AskUserQuestion is withheld from the session, as Claude Code does. */
const withholdUnanswerable = Layer.effectDiscard(
  Effect.gen(function* () {
    if ((yield* Approver.Approver).canAsk) return
    yield* (yield* ToolRegistry.ToolRegistry).withhold(ASK_USER_QUESTION_TOOL_NAME, ASK_USER_QUESTION_DISABLED)
  })
)

/** Composes the stages once; the result is one layer to provide to a program. */
export const layer = (options: RuntimeOptions) => {
  const shellAnalyzer = options.shellAnalyzer ?? ShellAnalyzer.layer
  const settings = Settings.layer(options)
  const core = Layer.provideMerge(options.sandbox ?? Sandbox.layer(), Layer.merge(settings, shellAnalyzer))
  const base = Layer.mergeAll(
    FileState.layer,
    InputValidator.layer,
    ResultStore.layer,
    BackgroundTools.layerBuiltins(options.tools ?? builtinTools, options.processEnv === undefined ? {} : { env: options.processEnv }),
    options.approver ?? Approver.layerDeny
  ).pipe(Layer.provideMerge(core))
  const registry = Layer.provideMerge(withholdUnanswerable, ToolRegistry.layer)
  const stages = Layer.mergeAll(registry, options.hooks ?? Hooks.layer, options.permissions ?? Permissions.layer, ResultStore.layerSweep).pipe(
    Layer.provideMerge(base)
  )
  const mcp = options.mcp === false ? McpClients.layerNone : McpClients.layer({ cwd: options.cwd, resourceTools: makeResourceTools, ...options.mcp })
  const extended = Layer.merge(Extensions.layer({ skillTool: makeSkillTool, ...options.extensions }), mcp).pipe(Layer.provideMerge(stages))
  const wrap = options.wrapCallPipeline
  const pipeline = wrap === undefined ? CallPipeline.layer : Layer.effect(CallPipeline.CallPipeline, Effect.flatMap(CallPipeline.make, wrap))
  return Layer.merge(Scheduler.layer, backgroundWork).pipe(
    Layer.provideMerge(pipeline),
    Layer.provideMerge(DeferredTools.layer),
    Layer.provideMerge(extended)
  )
}

/** The background shells still running, as Stop hooks see them (`background_tasks`). */
const backgroundWork = Layer.effect(
  Hooks.BackgroundWork,
  Effect.map(BackgroundTasks, (tasks) => ({
    running: Effect.map(tasks.list, (list) =>
      list
        .filter((task) => task.status === "running")
        .map((task) => ({ id: task.id, type: "shell", status: task.status, description: task.description ?? task.command, command: task.command }))
    )
  }))
)

/**
 * The runtime plus the agent: the `Agent` loop on the given model, and the `Agent` tool
 * (subagents on the same model) in the pool.
 */
export const layerWithAgent = (
  options: RuntimeOptions & { readonly model: Layer.Layer<ModelClient>; readonly agents?: AgentTool.AgentToolOptions }
) =>
  Layer.merge(Agent.layer, AgentTool.layerInheritModel(options.agents)).pipe(
    Layer.provideMerge(options.model),
    Layer.provideMerge(layer(options))
  )
