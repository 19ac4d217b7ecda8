/**
 * Subagents over the Anthropic SDK (fake server on 127.0.0.1): which model a subagent's requests
 * name (`model: "haiku"` with `ANTHROPIC_DEFAULT_HAIKU_MODEL`, `inherit`, the
 * `CLAUDE_CODE_SUBAGENT_MODEL` override), and what a subagent's request carries (its own system
 * prompt, a pool without Agent).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as SubagentModels from "../../../../src/services/Agent/subagents/SubagentModels.js"
import * as Agent from "../../../../src/services/Agent.js"
import * as AgentTool from "../../../../src/tools/AgentTool.js"
import { ReadTool } from "../../../../src/tools/Read.js"
import { anthropicLayer } from "../support.js"
import { framesOf, sse, startFakeAnthropic, type FakeAnthropic } from "../../../support/fakeAnthropic.js"
import { tempDir, testRuntime } from "../../../support/runtime.js"
import { removeDir, resultsAt, runParent } from "./support.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-test" })
})
afterAll(async () => {
  await fake.close()
})

/** One streamed message with text and tool_use blocks. */
const message = (blocks: ReadonlyArray<Record<string, unknown>>) => {
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "m",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 5, output_tokens: 1 }
      }
    }
  ]
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
      events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } })
    } else {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
      })
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
      })
    }
    events.push({ type: "content_block_stop", index })
  })
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"
  events.push({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 3 } })
  events.push({ type: "message_stop" })
  return sse(framesOf(events))
}

const layerFor = (cwd: string) =>
  Layer.mergeAll(
    Agent.layer,
    AgentTool.layer({ reportWarnings: false }).pipe(Layer.provide(SubagentModels.layerAnthropicConfig))
  ).pipe(
    Layer.provideMerge(Layer.merge(anthropicLayer(fake.url), testRuntime({ cwd, tools: [ReadTool] })))
  )

const configWith = (extra: ReadonlyArray<readonly [string, string]>) =>
  ConfigProvider.fromMap(
    new Map([
      ["ANTHROPIC_API_KEY", "sk-test"],
      ["ANTHROPIC_BASE_URL", fake.url],
      ["TOOLGATE_MODEL_MAX_RETRIES", "0"],
      ...extra
    ])
  )

describe("subagents on Claude (fake server)", () => {
  it.live("a subagent asked for haiku runs on ANTHROPIC_DEFAULT_HAIKU_MODEL, with its own prompt and a pool without Agent", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const first = fake.requests.length
    fake.enqueue(
      message([{
        type: "tool_use",
        id: "toolu_ag",
        name: "Agent",
        input: { description: "quick look", prompt: "Say hi", model: "haiku" }
      }]),
      message([{ type: "text", text: "hi from the subagent" }]),
      message([{
        type: "tool_use",
        id: "toolu_ex",
        name: "Agent",
        input: { description: "explore", prompt: "Look", subagent_type: "Explore" }
      }]),
      message([{ type: "text", text: "explored" }]),
      message([{ type: "text", text: "all done" }])
    )
    return Effect.gen(function*() {
      const { outcome } = yield* runParent(cwd, "delegate")
      expect(outcome.text).toBe("all done")
      expect(resultsAt(outcome.conversation.messages, 2).get("toolu_ag")).toMatchObject({
        content: "hi from the subagent"
      })
      const requests = fake.requests.slice(first)
      // parent, subagent (haiku), parent, Explore (its type's haiku), parent
      expect(requests.map((r) => r.body.model)).toEqual([
        "claude-test",
        "claude-haiku-test",
        "claude-test",
        "claude-haiku-test",
        "claude-test"
      ])
      const sub = requests[1]!.body
      expect(sub.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Say hi" }] }])
      expect(JSON.stringify(sub.system)).toContain("You are a subagent working for another agent")
      expect(sub.tools.map((t: any) => t.name)).toEqual(["Read"])
      expect(requests[0]!.body.tools.map((t: any) => t.name)).toEqual(["Read", "Agent"])
    }).pipe(
      Effect.provide(layerFor(cwd)),
      Effect.withConfigProvider(configWith([["ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-test"]])),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("without an alias setting, haiku means the parent's model; CLAUDE_CODE_SUBAGENT_MODEL overrides every subagent", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const first = fake.requests.length
    fake.enqueue(
      message([{
        type: "tool_use",
        id: "toolu_1",
        name: "Agent",
        input: { description: "one", prompt: "x", model: "haiku" }
      }]),
      message([{ type: "text", text: "one" }]),
      message([{ type: "text", text: "done" }])
    )
    const second = Effect.gen(function*() {
      const start = fake.requests.length
      fake.enqueue(
        message([{
          type: "tool_use",
          id: "toolu_2",
          name: "Agent",
          input: { description: "two", prompt: "y", model: "opus" }
        }]),
        message([{ type: "text", text: "two" }]),
        message([{ type: "text", text: "done" }])
      )
      yield* runParent(cwd, "again")
      return fake.requests.slice(start).map((r) => r.body.model)
    }).pipe(
      Effect.provide(layerFor(cwd)),
      Effect.withConfigProvider(configWith([["CLAUDE_CODE_SUBAGENT_MODEL", "claude-sub-test"]]))
    )
    return Effect.gen(function*() {
      yield* runParent(cwd, "delegate")
      expect(fake.requests.slice(first, first + 3).map((r) => r.body.model)).toEqual([
        "claude-test",
        "claude-test",
        "claude-test"
      ])
      expect(yield* second).toEqual(["claude-test", "claude-sub-test", "claude-test"])
    }).pipe(
      Effect.provide(layerFor(cwd)),
      Effect.withConfigProvider(configWith([])),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })
})
