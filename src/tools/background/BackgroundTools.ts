/**
 * The tools that need the BackgroundTasks service: Bash (with `run_in_background`, and the
 * ShellAnalyzer for its read-only flag), TaskOutput and TaskStop. A tool value has no
 * requirements, so they are built inside a layer that has the services, and the runtime adds them
 * to its built-ins.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { AnyTool } from "../../Tool.js"
import { ShellAnalyzer } from "../../services/ShellAnalyzer.js"
import { Sandbox } from "../../services/Sandbox.js"
import { BuiltinTools } from "../../services/ToolRegistry.js"
import { makeBashTool, type BashToolOptions } from "../Bash.js"
import { makeTaskOutputTool } from "../TaskOutput.js"
import { makeTaskStopTool } from "../TaskStop.js"
import { BackgroundTasks, layer as backgroundTasksLayer, type BackgroundTasksService } from "./BackgroundTasks.js"
import { backgroundTasksDisabled } from "./settings.js"

/** Bash (able to run in the background), TaskOutput, TaskStop: all bound to one BackgroundTasks. */
export class BackgroundTools
  extends Context.Tag("toolgate/BackgroundTools")<BackgroundTools, ReadonlyArray<AnyTool>>()
{}

export type BackgroundToolsOptions = Omit<
  BashToolOptions,
  "background" | "analyzer" | "sandbox" | "sandboxSchema" | "backgroundSchema"
>

export const makeBackgroundTools = (
  tasks: BackgroundTasksService,
  options: Omit<BashToolOptions, "background"> = {}
): ReadonlyArray<AnyTool> => [
  makeBashTool({ ...options, background: tasks }),
  makeTaskOutputTool(tasks),
  makeTaskStopTool(tasks)
]

/** Bash gets the runtime's Sandbox stage when there is one (without it, commands run unsandboxed). */
export const layer = (
  options: BackgroundToolsOptions = {}
): Layer.Layer<BackgroundTools, never, BackgroundTasks | ShellAnalyzer> =>
  Layer.effect(
    BackgroundTools,
    Effect.gen(function*() {
      const tasks = yield* BackgroundTasks
      const analyzer = yield* ShellAnalyzer
      const sandbox = Option.getOrUndefined(yield* Effect.serviceOption(Sandbox))
      const sandboxSchema = sandbox === undefined ? false : yield* sandbox.settingsProfileActive
      const backgroundSchema = !(yield* backgroundTasksDisabled)
      return makeBackgroundTools(tasks, {
        ...options,
        analyzer,
        backgroundSchema,
        ...(sandbox === undefined ? {} : { sandbox, sandboxSchema })
      })
    })
  )

/**
 * The built-ins with background shells: when `tools` has a tool named Bash, it is replaced by the
 * background-capable Bash and TaskOutput and TaskStop are added (a pool without Bash is left as
 * it is). Also provides BackgroundTasks, scoped to the layer: every background process is stopped
 * when the runtime's scope closes.
 */
export const layerBuiltins = (
  tools: ReadonlyArray<AnyTool>,
  options: BackgroundToolsOptions = {}
): Layer.Layer<BuiltinTools | BackgroundTasks, never, ShellAnalyzer> =>
  Layer.effect(
    BuiltinTools,
    Effect.map(BackgroundTools, (background) => withBackgroundTools(tools, background))
  ).pipe(
    Layer.provide(layer(options)),
    Layer.provideMerge(backgroundTasksLayer({ killGraceMs: options.killGraceMs ?? 1000 }))
  )

export const withBackgroundTools = (
  tools: ReadonlyArray<AnyTool>,
  background: ReadonlyArray<AnyTool>
): ReadonlyArray<AnyTool> => {
  if (!tools.some((tool) => tool.name === "Bash")) return tools
  const replaced = new Set(background.map((tool) => tool.name))
  return [...tools.filter((tool) => !replaced.has(tool.name)), ...background]
}
