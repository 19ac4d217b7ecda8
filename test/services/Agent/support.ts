/**
 * The agent over a test runtime: real scheduler and pipeline, a chosen tool list, and either the
 * real Anthropic SDK (pointed at a fake server) or the scripted model.
 */
import { Effect, Layer, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { newConversation } from "../../../src/services/Agent/conversation.js"
import type { AgentEvent } from "../../../src/services/Agent/events.js"
import * as ModelClient from "../../../src/services/ModelClient.js"
import { parseScript } from "../../../src/services/ModelClient/script.js"
import * as Agent from "../../../src/services/Agent.js"
import { buildTool, type AnyTool } from "../../../src/Tool.js"
import { testRuntime, testSession, type TestRuntimeOptions } from "../../support/runtime.js"
import * as Permission from "../../../src/Permission.js"

export const FAST_RETRY = { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 50 } as const

export const anthropicLayer = (url: string, apiKey = "sk-test") =>
  ModelClient.layerAnthropic({ apiKey: Redacted.make(apiKey), baseUrl: url, model: "claude-test", retry: FAST_RETRY })

export const agentLayer = (
  model: Layer.Layer<ModelClient.ModelClient, unknown>,
  runtime: TestRuntimeOptions
) => Agent.layer.pipe(Layer.provideMerge(Layer.merge(model, testRuntime(runtime))))

/** A tool with no arguments. */
export const NowTool: AnyTool = buildTool({
  name: "Now",
  inputSchema: Schema.Struct({}),
  description: "The current time (fixed in tests).",
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  checkPermissions: () => Effect.succeed(Permission.allow()),
  call: () => Effect.succeed({ data: "12:00" })
})

/** An unsafe tool that records what it touched. */
export const touchTool = (touched: Array<string>): AnyTool =>
  buildTool({
    name: "Touch",
    inputSchema: Schema.Struct({ name: Schema.String }),
    description: "Marks a name as touched (a side effect).",
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: (input) =>
      Effect.sync(() => {
        touched.push(input.name)
        return { data: `touched ${input.name}` }
      })
  })

export const writeFiles = (dir: string, files: Readonly<Record<string, string>>) => {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
}

/** Runs one prompt in a fresh conversation and collects the agent's events. */
export const runPrompt = (cwd: string, prompt: string, options: Agent.PromptOptions = {}) =>
  Effect.gen(function*() {
    const agent = yield* Agent.Agent
    const events: Array<AgentEvent> = []
    const outcome = yield* agent.prompt(newConversation(testSession(cwd)), prompt, {
      ...options,
      onEvent: (event) =>
        Effect.zipRight(Effect.sync(() => void events.push(event)), options.onEvent?.(event) ?? Effect.void)
    })
    return { outcome, events }
  })

/** Wall-clock start of each call, by tool_use id. */
export const callStarts = (events: ReadonlyArray<AgentEvent>): Map<string, number> =>
  new Map(
    events.flatMap((
      e
    ) => (e._tag === "Call" && e.event._tag === "CallStarted" ? [[e.event.toolUseId, e.atMs] as const] : []))
  )

/** A scripted model from script lines (objects), replayed without delays unless `timeScale` is given. */
export const scriptedLayer = (cwd: string, lines: ReadonlyArray<Record<string, unknown>>, timeScale = 0) => {
  const script = parseScript("inline-script.jsonl", lines.map((l) => JSON.stringify(l)).join("\n"))
  if (script._tag === "Left") throw new Error(script.left.message)
  return ModelClient.layerScripted({ script: script.right, cwd, timeScale })
}
