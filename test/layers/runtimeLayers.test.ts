/**
 * Every service the runtime composes can be replaced through the public API, and the replacement
 * is what the other stages use: for each one, an agent prompt runs with a spy around that service
 * (a working implementation whose every use is recorded) and the spy must see use while the
 * prompt runs. A tool that requires services gets them from the runtime, and from what the user
 * provides to the runtime layer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  Agent,
  Approver,
  BackgroundTasks,
  CallPipeline,
  DeferredTools,
  Extensions,
  FileState,
  Hooks,
  InputValidator,
  McpClients,
  Permissions,
  ResultStore,
  Runtime,
  Sandbox,
  Scheduler,
  Settings,
  ShellAnalyzer,
  Testing,
  Tool,
  ToolRegistry,
  Tools
} from "../../src/index.js"
import * as Permission from "../../src/Permission.js"

/** A service of the user's own, which a tool requires. */
class Greeting extends Context.Tag("test/Greeting")<Greeting, { readonly text: string }>() {}

/** A tool that reaches services through its requirements, not by closure. */
const Probe = Tool.buildTool({
  name: "Probe",
  description: "Reports what it can reach.",
  inputSchema: Schema.Struct({}),
  isReadOnly: () => true,
  checkPermissions: () => Effect.succeed(Permission.allow()),
  call: () =>
    Effect.gen(function*() {
      const greeting = yield* Greeting
      const servers = yield* (yield* McpClients.McpClients).servers
      // a foreground Bash command runs as a task that ends with it: count the ones still running
      const tasks = (yield* (yield* BackgroundTasks.BackgroundTasks).list).filter((task) => task.status === "running")
      const skills = (yield* Extensions.Extensions).loaded.skills
      return { data: `${greeting.text}; ${servers.length} servers; ${tasks.length} tasks; ${skills.length} skills` }
    })
})

type Slot = keyof Runtime.RuntimeLayers

/** Records the names of the services used while `recording` is on. */
const usage = { recording: false, used: new Set<string>() }

/** The service behind `tag` as built by `inner`, with every use recorded under `name`. */
const spy = <I, S extends object, E, R>(
  name: string,
  tag: Context.Tag<I, S>,
  inner: Layer.Layer<I, E, R>
): Layer.Layer<I, E, R> =>
  Layer.effect(
    tag,
    Effect.map(tag, (service) =>
      new Proxy(service, {
        get: (target, key, receiver) => {
          if (usage.recording && typeof key === "string") usage.used.add(name)
          return Reflect.get(target, key, receiver)
        }
      }))
  ).pipe(Layer.provide(inner))

const builtinsWithProbe = [Tools.ReadTool, Tools.BashTool, Probe]

/** A working implementation of each service, from the public API. */
const spies = (cwd: string): { readonly [K in Slot]: Runtime.RuntimeLayers[K] } => ({
  Settings: spy("Settings", Settings.Settings, Testing.settings({ cwd })),
  ShellAnalyzer: spy("ShellAnalyzer", ShellAnalyzer.ShellAnalyzer, ShellAnalyzer.layer),
  Sandbox: spy("Sandbox", Sandbox.Sandbox, Sandbox.layerNone),
  FileState: spy("FileState", FileState.FileState, FileState.layer),
  InputValidator: spy("InputValidator", InputValidator.InputValidator, InputValidator.layer),
  ResultStore: spy("ResultStore", ResultStore.ResultStore, ResultStore.layer),
  Approver: spy("Approver", Approver.Approver, Testing.recordedApprover().layer),
  BackgroundTasks: spy("BackgroundTasks", BackgroundTasks.BackgroundTasks, BackgroundTasks.layer()),
  BuiltinTools: spy(
    "BuiltinTools",
    ToolRegistry.BuiltinTools,
    ToolRegistry.layerBuiltins([...builtinsWithProbe, Marker])
  ),
  ToolRegistry: spy("ToolRegistry", ToolRegistry.ToolRegistry, ToolRegistry.layer),
  Hooks: spy("Hooks", Hooks.Hooks, Hooks.layerNone),
  Permissions: spy("Permissions", Permissions.Permissions, Permissions.layer),
  Extensions: spy("Extensions", Extensions.Extensions, Extensions.layer({ disabled: true })),
  McpClients: spy("McpClients", McpClients.McpClients, McpClients.layerNone),
  DeferredTools: spy("DeferredTools", DeferredTools.DeferredTools, DeferredTools.layer),
  CallPipeline: spy("CallPipeline", CallPipeline.CallPipeline, CallPipeline.layer),
  Scheduler: spy("Scheduler", Scheduler.Scheduler, Scheduler.layer),
  BackgroundWork: spy(
    "BackgroundWork",
    Hooks.BackgroundWork,
    Layer.succeed(Hooks.BackgroundWork, { running: Effect.succeed([]) })
  )
})

/** Only in the pool of the BuiltinTools replacement: its call running shows the pool came from it. */
const Marker = Tool.buildTool({
  name: "Marker",
  description: "Only the replacement's pool has it.",
  inputSchema: Schema.Struct({}),
  checkPermissions: () => Effect.succeed(Permission.allow()),
  call: () => Effect.sync(() => (usage.recording && usage.used.add("BuiltinTools"), { data: "marked" }))
})

const script = [
  Testing.turn(
    Testing.toolUse("Read", { file_path: "{{cwd}}/notes.txt" }),
    Testing.toolUse("Bash", { command: "touch made-by-bash.txt" }),
    Testing.toolUse("Probe", {}),
    Testing.toolUse("Marker", {})
  ),
  Testing.turn(Testing.text("done"))
]

/** One prompt through an agent runtime with `slot` replaced by its spy; the results the model got. */
const promptWith = (slot: Slot | undefined) =>
  Effect.gen(function*() {
    const cwd = yield* Testing.workspace({ "notes.txt": "hello\n" })
    const layers = slot === undefined ? {} : { [slot]: spies(cwd)[slot] }
    const runtime = Testing.layerWithAgent({
      cwd,
      tools: [...Tools.builtinTools, Probe],
      approver: Testing.recordedApprover().layer,
      model: Testing.scriptedModel(cwd, script),
      layers
    }).pipe(Layer.provide(Layer.succeed(Greeting, { text: "hello from the user's layer" })))
    return yield* Effect.gen(function*() {
      const agent = yield* Agent.Agent
      usage.used.clear()
      usage.recording = true
      const outcome = yield* agent.prompt(Agent.newConversation(Testing.session(cwd)), "go").pipe(
        Effect.ensuring(Effect.sync(() => (usage.recording = false)))
      )
      const results = outcome.conversation.messages[2]!.content as ReadonlyArray<
        { readonly content: string; readonly is_error?: boolean }
      >
      const made = fs.existsSync(path.join(cwd, "made-by-bash.txt"))
      return {
        made,
        outcome,
        results: results.map((r) => ({ content: String(r.content), isError: r.is_error === true }))
      }
    }).pipe(Effect.provide(runtime))
  }).pipe(Effect.scoped)

describe("Runtime.layer: every service replaceable", () => {
  // live clock: the prompts run real processes, whose waits (a group to empty, a timeout) need time to pass
  it.live("with no replacement, the default stages run the prompt, and a tool reaches its requirements", () =>
    Effect.gen(function*() {
      const { made, outcome, results } = yield* promptWith(undefined)
      expect(outcome.stop).toBe("end_turn")
      expect(results[0]!.content).toContain("hello")
      expect(results[1]!.isError).toBe(false)
      expect(made).toBe(true)
      expect(results[2]).toEqual({
        content: "hello from the user's layer; 0 servers; 0 tasks; 0 skills",
        isError: false
      })
      expect(results[3]!.isError).toBe(true) // Marker is only in the BuiltinTools replacement's pool
      expect([...usage.used]).toEqual([])
    }))

  it.live.each(Runtime.SERVICE_NAMES)("a replacement %s is the one the stages use", (slot) =>
    Effect.gen(function*() {
      const { outcome, results } = yield* promptWith(slot)
      expect(outcome.stop).toBe("end_turn")
      expect(results[2]!.content).toBe("hello from the user's layer; 0 servers; 0 tasks; 0 skills")
      expect([...usage.used]).toEqual([slot])
    }))

  it("the list of replaceable services is every service of the runtime", () => {
    expect([...Runtime.SERVICE_NAMES].sort()).toEqual(Object.keys(spies("/")).sort())
    expect(Runtime.SERVICE_NAMES).toHaveLength(18)
  })
})
