/**
 * A parent agent with the Agent tool over a test runtime: the scripted model for the parent's
 * turns (`turn` lines) and for each subagent (`subagent_turn` lines keyed by description), real
 * scheduler, pipeline, permissions and hooks.
 */
import { Deferred, Effect, Either, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { newConversation } from "../../../../src/services/Agent/conversation.js"
import type { AgentEvent } from "../../../../src/services/Agent/events.js"
import { openTranscript } from "../../../../src/services/Agent/transcript.js"
import { parseSubagentScripts } from "../../../../src/services/Agent/subagents/scriptedSubagents.js"
import * as SubagentModels from "../../../../src/services/Agent/subagents/SubagentModels.js"
import { ToolError } from "../../../../src/Errors.js"
import * as Agent from "../../../../src/services/Agent.js"
import type * as Hooks from "../../../../src/services/Hooks.js"
import type * as Settings from "../../../../src/services/Settings.js"
import * as AgentTool from "../../../../src/tools/AgentTool.js"
import { buildTool, type AnyTool } from "../../../../src/Tool.js"
import { scriptedLayer } from "../support.js"
import { testRuntime, testSession } from "../../../support/runtime.js"
import type { ShellAnalyzer } from "../../../../src/services/ShellAnalyzer.js"
import * as Permission from "../../../../src/Permission.js"

export const turn = (...content: Array<Record<string, unknown>>) => ({ type: "turn", content })
export const subTurn = (agent: string, ...content: Array<Record<string, unknown>>) => ({
  type: "subagent_turn",
  agent,
  content
})
export const use = (name: string, input: unknown, id?: string) => ({
  type: "tool_use",
  name,
  input,
  ...(id === undefined ? {} : { id })
})
export const say = (text: string) => ({ type: "text", text })

export interface SubagentRuntimeOptions {
  readonly cwd: string
  readonly tools: ReadonlyArray<AnyTool>
  readonly lines: ReadonlyArray<Record<string, unknown>>
  readonly settings?: Layer.Layer<Settings.Settings>
  readonly hooks?: Layer.Layer<Hooks.Hooks, never, ShellAnalyzer>
  readonly agentTool?: AgentTool.AgentToolOptions
  readonly timeScale?: number
}

/** The parent's Agent service, with the Agent tool registered. */
export const subagentLayer = (options: SubagentRuntimeOptions) => {
  const { cwd, lines } = options
  const text = lines.map((l) => JSON.stringify(l)).join("\n")
  const scripts = parseSubagentScripts("inline-script.jsonl", text)
  if (Either.isLeft(scripts)) throw new Error(scripts.left.message)
  const timeScale = options.timeScale ?? 0
  const runtime = testRuntime({
    cwd,
    tools: options.tools,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.hooks === undefined ? {} : { hooks: options.hooks })
  })
  const model = scriptedLayer(cwd, lines, timeScale)
  const agentTool = AgentTool.layer({ reportWarnings: false, ...options.agentTool }).pipe(
    Layer.provide(SubagentModels.layerScriptedFrom(scripts.right, { cwd, timeScale }))
  )
  return Layer.mergeAll(Agent.layer, agentTool).pipe(Layer.provideMerge(Layer.merge(model, runtime)))
}

/** Runs one parent prompt with a transcript (subagents record into it) and collects the events. */
export const runParent = (cwd: string, prompt: string, options: Agent.PromptOptions = {}) =>
  Effect.scoped(
    Effect.gen(function*() {
      const agent = yield* Agent.Agent
      const file = path.join(cwd, ".session", "transcript.jsonl")
      const transcript = yield* openTranscript(file)
      const events: Array<AgentEvent> = []
      const session = { ...testSession(cwd), transcriptPath: file }
      const outcome = yield* agent.prompt(newConversation(session), prompt, {
        ...options,
        transcript,
        onEvent: (event) =>
          Effect.zipRight(Effect.sync(() => void events.push(event)), options.onEvent?.(event) ?? Effect.void)
      })
      return { outcome, events, transcriptFile: file }
    })
  )

/** Removes a test's temporary folder (also when the test fails). */
export const removeDir = (dir: string) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The transcript's lines as objects. */
export const transcriptLines = (file: string): Array<Record<string, any>> =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, any>)

/** The tool results of the user message at `index`, by tool_use id. */
export const resultsAt = (
  messages: ReadonlyArray<{ role: string; content: unknown }>,
  index: number
): Map<string, any> =>
  new Map(
    (messages[index]!.content as Array<any>).filter((b) => b.type === "tool_result").map((b) =>
      [b.tool_use_id, b] as const
    )
  )

/** Wall-clock start and end of each parent call, by tool_use id. */
export const callTimes = (events: ReadonlyArray<AgentEvent>) => {
  const times = new Map<string, { start?: number; end?: number }>()
  for (const e of events) {
    if (e._tag !== "Call") continue
    if (e.event._tag === "CallStarted") times.set(e.event.toolUseId, { ...times.get(e.event.toolUseId), start: e.atMs })
    if (e.event._tag === "CallFinished") {
      times.set(e.event.outcome.toolUseId, { ...times.get(e.event.outcome.toolUseId), end: e.atMs })
    }
  }
  return times
}

/**
 * A latch: each call arrives and waits until `expected` calls have arrived. If the calls do not
 * run at the same time, the first one waits alone and fails after `timeout` (no test hangs).
 */
export const latchTool = (expected: number, timeout = "10 seconds" as const): AnyTool => {
  let arrived = 0
  const open = Effect.runSync(Deferred.make<void>())
  return buildTool({
    name: "Latch",
    inputSchema: Schema.Struct({ name: Schema.String }),
    description: "Waits until every expected caller has arrived.",
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: (input) =>
      Effect.gen(function*() {
        arrived++
        if (arrived >= expected) yield* Deferred.succeed(open, undefined)
        yield* Deferred.await(open).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new ToolError({ reason: `${input.name} waited alone at the latch` })
          })
        )
        return { data: `${input.name} met the others at the latch` }
      })
  })
}
