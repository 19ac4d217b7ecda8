/**
 * A runtime for tests: real stages where they matter, static settings, and any stage replaceable.
 */
import { Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Approver from "../../src/services/Approver.js"
import * as CallPipeline from "../../src/services/CallPipeline.js"
import * as FileState from "../../src/services/FileState.js"
import * as Hooks from "../../src/services/Hooks.js"
import * as InputValidator from "../../src/services/InputValidator.js"
import * as Permissions from "../../src/services/Permissions.js"
import * as ResultStore from "../../src/services/ResultStore.js"
import * as Scheduler from "../../src/services/Scheduler.js"
import * as Settings from "../../src/services/Settings.js"
import type { ShellAnalyzer } from "../../src/services/ShellAnalyzer.js"
import * as ToolRegistry from "../../src/services/ToolRegistry.js"
import { newSession, type SessionContext } from "../../src/Session.js"
import type { AnyTool } from "../../src/Tool.js"
import type { PermissionMode } from "../../src/Permission.js"
import { layerSharedShellAnalyzer } from "./shellAnalyzer.js"

export interface TestRuntimeOptions {
  readonly tools: ReadonlyArray<AnyTool>
  readonly cwd?: string
  readonly settings?: Layer.Layer<Settings.Settings>
  readonly permissions?: Layer.Layer<Permissions.Permissions, never, ShellAnalyzer>
  readonly hooks?: Layer.Layer<Hooks.Hooks, never, ShellAnalyzer>
  /** The file's shared analyzer unless given. */
  readonly shellAnalyzer?: Layer.Layer<ShellAnalyzer>
  readonly approver?: Layer.Layer<Approver.Approver>
  readonly resultStore?: Layer.Layer<ResultStore.ResultStore>
  readonly validator?: Layer.Layer<InputValidator.InputValidator>
  readonly registry?: Layer.Layer<ToolRegistry.ToolRegistry>
}

export const tempDir = (prefix = "toolgate-test-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const testSession = (cwd: string, mode: PermissionMode = "default"): SessionContext =>
  newSession({ cwd, permissionMode: mode, sessionDir: path.join(cwd, ".session") })

export const testRuntime = (options: TestRuntimeOptions) => {
  const cwd = options.cwd ?? tempDir()
  const base = Layer.mergeAll(
    options.settings ?? Settings.layerStatic({ cwd }),
    FileState.layer,
    options.validator ?? InputValidator.layer,
    options.resultStore ?? ResultStore.layer,
    ToolRegistry.layerBuiltins(options.tools),
    options.approver ?? Approver.layerDeny,
    options.hooks ?? Hooks.layerNone
  ).pipe(Layer.provideMerge(options.shellAnalyzer ?? layerSharedShellAnalyzer))
  const stages = Layer.mergeAll(options.registry ?? ToolRegistry.layer, options.permissions ?? Permissions.layer).pipe(
    Layer.provideMerge(base)
  )
  return Scheduler.layer.pipe(Layer.provideMerge(CallPipeline.layer), Layer.provideMerge(stages))
}

export const toolUse = (id: string, name: string, input: unknown = {}) => ({
  type: "tool_use" as const,
  id,
  name,
  input
})
