/**
 * The runtime the benchmarks drive: every real stage, composed once (as src/layers/Runtime.ts
 * does), with static settings (no files read, so the user's ~/.claude cannot change a figure),
 * hooks present but empty, and allow rules given as text.
 */
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Approver from "../src/services/Approver.js"
import * as CallPipeline from "../src/services/CallPipeline.js"
import * as FileState from "../src/services/FileState.js"
import * as Hooks from "../src/services/Hooks.js"
import * as InputValidator from "../src/services/InputValidator.js"
import * as Permissions from "../src/services/Permissions.js"
import * as ResultStore from "../src/services/ResultStore.js"
import * as Scheduler from "../src/services/Scheduler.js"
import * as Settings from "../src/services/Settings.js"
import * as ToolRegistry from "../src/services/ToolRegistry.js"
import { makeRule } from "../src/PermissionRules.js"
import { newSession, type SessionContext } from "../src/Session.js"
import type { AnyTool } from "../src/Tool.js"
import type { ToolUseBlock } from "../src/Messages.js"
import * as ShellAnalyzer from "../src/services/ShellAnalyzer.js"

export interface BenchRuntimeOptions {
  readonly tools: ReadonlyArray<AnyTool>
  readonly cwd: string
  /** Allow rules as written in settings, e.g. `Noop` or `Bash(git status)`. */
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  /** The Bash analyzer; a fresh one (tree-sitter loads on first use) unless given. */
  readonly shellAnalyzer?: Layer.Layer<ShellAnalyzer.ShellAnalyzer>
}

export const benchLayer = (options: BenchRuntimeOptions) => {
  const rules = (["allow", "deny", "ask"] as const).flatMap((behavior) =>
    (options[behavior] ?? []).map((raw) =>
      makeRule(raw, behavior, "projectSettings", options.cwd, path.join(options.cwd, ".claude", "settings.json"))
    )
  )
  const base = Layer.mergeAll(
    Settings.layerStatic({ cwd: options.cwd, rules }),
    FileState.layer,
    InputValidator.layer,
    ResultStore.layer,
    ToolRegistry.layerBuiltins(options.tools),
    Approver.layerDeny
  ).pipe(Layer.provideMerge(options.shellAnalyzer ?? ShellAnalyzer.layer))
  const stages = Layer.mergeAll(ToolRegistry.layer, Hooks.layerInProcess([]), Permissions.layer).pipe(
    Layer.provideMerge(base)
  )
  const runtime = Scheduler.layer.pipe(Layer.provideMerge(CallPipeline.layer), Layer.provideMerge(stages))
  const config = Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options.env ?? {}))))
  return runtime.pipe(Layer.provide(config))
}

/** Built once; every message of a benchmark runs through this one runtime. */
export const makeBenchRuntime = (options: BenchRuntimeOptions) => ManagedRuntime.make(benchLayer(options))

export type BenchRuntime = ReturnType<typeof makeBenchRuntime>

const made: Array<string> = []

/** A fresh temporary directory, removed by `removeTempDirs` when the run ends. */
export const tempDir = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

export const removeTempDirs = (): void => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export const benchSession = (cwd: string): SessionContext =>
  newSession({ cwd, permissionMode: "default", sessionId: "bench", sessionDir: path.join(cwd, ".session") })

export const toolUse = (id: string, name: string, input: unknown): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input
})

/** Fails loudly when the pool misses a tool the benchmark relies on (e.g. a disabled Sleep). */
export const assertPool = (runtime: BenchRuntime, names: ReadonlyArray<string>) =>
  runtime.runPromise(
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const pool = yield* registry.pool
      for (const name of names) {
        if (pool.lookup(name) === undefined) throw new Error(`bench: tool ${name} is not in the pool`)
      }
    })
  )
