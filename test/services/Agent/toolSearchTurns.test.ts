/**
 * Tool search through the agent loop, with the real SDK against the fake Anthropic server: a
 * deferred tool is named in the system prompt but not sent; the model loads it with ToolSearch;
 * the next request carries its definition and the model's call to it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ReadTool } from "../../../src/tools/Read.js"
import { TodoWriteTool } from "../../../src/tools/TodoWrite.js"
import { ToolSearchTool } from "../../../src/tools/ToolSearch.js"
import * as DeferredTools from "../../../src/services/DeferredTools.js"
import { framesOf, sse, startFakeAnthropic, type FakeAnthropic } from "../../support/fakeAnthropic.js"
import { tempDir, testRuntime } from "../../support/runtime.js"
import { anthropicLayer, runPrompt } from "./support.js"
import * as Agent from "../../../src/services/Agent.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic()
})
afterAll(async () => {
  await fake.close()
})

const start = {
  type: "message_start",
  message: {
    id: "msg_t",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [],
    usage: { input_tokens: 1, output_tokens: 1 }
  }
}
const toolUse = (id: string, name: string, input: unknown) => [
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id, name, input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } },
  { type: "content_block_stop", index: 0 }
]
const end = (reason: string) => [
  { type: "message_delta", delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: "message_stop" }
]
const textTurn = (t: string) => [
  start,
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } },
  { type: "content_block_stop", index: 0 },
  ...end("end_turn")
]

describe("ToolSearch across turns", () => {
  it.live("a deferred tool is loaded by ToolSearch and called in the next turn", () => {
    const cwd = tempDir("toolgate-toolsearch-")
    const first = fake.requests.length
    const todos = [{ content: "Fix multiply", status: "in_progress", activeForm: "Fixing multiply" }]
    fake.enqueue(
      sse(
        framesOf([start, ...toolUse("toolu_search", "ToolSearch", { query: "select:TodoWrite" }), ...end("tool_use")])
      ),
      sse(framesOf([start, ...toolUse("toolu_todo", "TodoWrite", { todos }), ...end("tool_use")])),
      sse(framesOf(textTurn("Planned.")))
    )
    const runtime = DeferredTools.layer.pipe(
      Layer.provideMerge(testRuntime({ tools: [ReadTool, TodoWriteTool, ToolSearchTool], cwd }))
    )
    const layer = Agent.layer.pipe(
      Layer.provideMerge(Layer.merge(anthropicLayer(fake.url), runtime)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["ENABLE_TOOL_SEARCH", "true"]]))))
    )
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "plan the fix")
      expect(outcome.stop).toBe("end_turn")
      const requests = fake.requests.slice(first).map((r) => r.body)
      expect(requests).toHaveLength(3)
      const names = requests.map((body) => body.tools.map((t: { name: string }) => t.name))
      expect(names[0]).toEqual(["Read", "ToolSearch"])
      expect(requests[0].system[0].text).toContain("<available-deferred-tools>\nTodoWrite\n</available-deferred-tools>")
      expect(names[1]).toEqual(["Read", "TodoWrite", "ToolSearch"])
      expect(names[2]).toEqual(names[1])
      const results = requests[2].messages.at(-1).content
      expect(results[0]).toMatchObject({ tool_use_id: "toolu_todo" })
      expect(results[0].is_error).toBeUndefined()
      const stored = JSON.parse(fs.readFileSync(path.join(cwd, ".session", "todos.json"), "utf8"))
      expect(JSON.stringify(stored)).toContain("Fix multiply")
    }).pipe(Effect.provide(layer))
  })
})
