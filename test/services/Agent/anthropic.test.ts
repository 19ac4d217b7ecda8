/**
 * The agent with the real Anthropic SDK against a fake Anthropic server on 127.0.0.1 serving
 * recorded SSE streams.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as net from "node:net"
import { ReadTool } from "../../../src/tools/Read.js"
import { fixture, jsonError, sse, startFakeAnthropic, type FakeAnthropic } from "../../support/fakeAnthropic.js"
import { tempDir } from "../../support/runtime.js"
import { agentLayer, anthropicLayer, NowTool, runPrompt, touchTool, writeFiles } from "./support.js"

let fake: FakeAnthropic
/** A port nothing listens on: taken from the OS, then released. */
let closedPort = 0
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-test" })
  const probe = net.createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  closedPort = (probe.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})
afterAll(async () => {
  await fake.close()
})

const setup = () => {
  const cwd = tempDir("toolgate-agent-")
  writeFiles(cwd, { "a.txt": "hello from a\n", "b.txt": "hello from b\n" })
  return cwd
}

const requestsFrom = (start: number) => fake.requests.slice(start)

describe("Agent over the Anthropic SDK (fake server)", () => {
  it.live("a two-turn session with parallel reads", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("two-turn-reads-1", { cwd })), sse(fixture("two-turn-reads-2", { cwd })))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "Read a.txt and b.txt")
      expect(outcome.stop).toBe("end_turn")
      expect(outcome.turns).toBe(2)
      expect(outcome.text).toBe("Both files say hello.")
      const requests = requestsFrom(first)
      expect(requests).toHaveLength(2)
      // prompt caching: the system prompt and the last tool carry a cache breakpoint
      const body = requests[0]!.body
      expect(body.stream).toBe(true)
      expect(body.model).toBe("claude-test")
      expect(body.system[0].cache_control).toEqual({ type: "ephemeral" })
      expect(body.system[0].text).toContain("## Read")
      expect(body.tools.map((t: any) => t.name)).toEqual(["Now", "Read", "Touch"])
      expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" })
      expect(body.tools.slice(0, -1).every((t: any) => t.cache_control === undefined)).toBe(true)
      // the second request carries the assistant message and one result per tool_use, in order
      const messages = requests[1]!.body.messages
      expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
      expect(messages[1].content.map((b: any) => b.type)).toEqual(["text", "tool_use", "tool_use"])
      expect(messages[1].content[1].input).toEqual({ file_path: `${cwd}/a.txt` })
      const results = messages[2].content
      expect(results.map((b: any) => b.tool_use_id)).toEqual(["toolu_read_a", "toolu_read_b"])
      expect(JSON.stringify(results[0].content)).toContain("hello from a")
      expect(JSON.stringify(results[1].content)).toContain("hello from b")
      // The reads run side by side: the second joins the first's batch, unless the first had
      // already finished when the second's block arrived (calls start while the model streams).
      const calls = events.flatMap((e) => (e._tag === "Call" ? [e.event] : []))
      const started = calls.flatMap((e) => (e._tag === "CallStarted" ? [e.batch] : []))
      const firstDoneBeforeSecond = calls.findIndex((e) =>
        e._tag === "CallFinished" && e.index === 0
      ) < calls.findIndex((e) => e._tag === "CallStarted" && e.index === 1)
      expect(started).toEqual(firstDoneBeforeSecond ? [1, 2] : [1, 1])
      // text streamed as deltas
      const text = events.flatMap((e) => (e._tag === "Model" && e.event._tag === "TextDelta" ? [e.event.text] : []))
      expect(text.join("")).toBe("I'll read both files.Both files say hello.")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool, NowTool, touchTool([])] })))
  })

  it.live("a tool_use whose input arrives in many fragments (the first empty) is parsed once, at its block stop", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("fragmented-input", { cwd })), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "read a")
      expect(outcome.stop).toBe("end_turn")
      const deltas = events.filter((e) => e._tag === "Model" && e.event._tag === "ToolInputDelta")
      expect(deltas.length).toBe(9)
      const arrived = events.flatMap((
        e
      ) => (e._tag === "Call" && e.event._tag === "CallArrived" ? [e.event.input] : []))
      expect(arrived).toEqual([{ file_path: `${cwd}/a.txt`, limit: 1 }])
      const results = requestsFrom(first)[1]!.body.messages[2].content
      expect(results[0].is_error).toBeUndefined()
      expect(JSON.stringify(results[0].content)).toContain("hello from a")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("a tool with no arguments: an empty input is {}", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("no-args")), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "what time is it")
      expect(outcome.stop).toBe("end_turn")
      const messages = requestsFrom(first)[1]!.body.messages
      expect(messages[1].content[0]).toEqual({ type: "tool_use", id: "toolu_now", name: "Now", input: {} })
      expect(messages[2].content[0]).toEqual({ type: "tool_result", tool_use_id: "toolu_now", content: "12:00" })
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [NowTool] })))
  })

  it.live("max_tokens cutting a tool block: the cut call never runs and is not in the conversation", () => {
    const cwd = setup()
    const touched: Array<string> = []
    fake.enqueue(sse(fixture("max-tokens-cut")))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "touch something")
      expect(outcome.stop).toBe("max_tokens")
      expect(outcome.stopReason).toBe("max_tokens")
      expect(touched).toEqual([])
      const messages = outcome.conversation.messages
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
      expect(messages[1]!.content).toEqual([{ type: "text", text: "Writing the file now." }])
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [touchTool(touched)] })))
  })

  it.live("max_tokens after a complete unsafe call: it never runs, its result goes back to the model, and the loop goes on", () => {
    const cwd = setup()
    const touched: Array<string> = []
    const first = fake.requests.length
    fake.enqueue(sse(fixture("max-tokens-unsafe")), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "touch something")
      expect(outcome.stop).toBe("end_turn")
      expect(touched).toEqual([])
      const [, assistant, results] = outcome.conversation.messages
      expect((assistant!.content as any)[0].id).toBe("toolu_touch")
      const result = (results!.content as any)[0]
      expect(result.tool_use_id).toBe("toolu_touch")
      expect(result.is_error).toBe(true)
      expect(result.content).toContain("stop_reason \"max_tokens\"")
      expect(requestsFrom(first)[1]!.body.messages[2].content[0]).toMatchObject({
        tool_use_id: "toolu_touch",
        is_error: true
      })
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [touchTool(touched)] })))
  })

  it.live("a refusal ends the prompt cleanly; a read that had started is answered", () => {
    const cwd = setup()
    fake.enqueue(sse(fixture("refusal", { cwd })))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "do something bad")
      expect(outcome.stop).toBe("refusal")
      expect(outcome.turns).toBe(1)
      const [, assistant, results] = outcome.conversation.messages
      expect((assistant!.content as any).map((b: any) => b.type)).toEqual(["tool_use", "text"])
      expect((results!.content as any)[0].tool_use_id).toBe("toolu_r1")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("an error event after HTTP 200 ends the turn with a stream error and is not retried", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("error-mid-stream")))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "hi")
      expect(outcome.stop).toBe("error")
      expect(outcome.error?._tag).toBe("ModelStreamError")
      expect(outcome.error?.message).toContain("overloaded_error: Overloaded")
      expect(requestsFrom(first)).toHaveLength(1)
      expect(events.some((e) => e._tag === "TurnFailed")).toBe(true)
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("a 529 then success: the request is retried", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(jsonError(529, "overloaded_error", "Overloaded"), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "hi")
      expect(outcome.stop).toBe("end_turn")
      expect(outcome.text).toBe("Done.")
      expect(requestsFrom(first)).toHaveLength(2)
      const retries = events.flatMap((e) => (e._tag === "Retrying" ? [e.info] : []))
      expect(retries).toHaveLength(1)
      expect(retries[0]!.attempt).toBe(1)
      expect(retries[0]!.reason).toContain("529")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("unknown event, block and delta types are ignored", () => {
    const cwd = setup()
    fake.enqueue(sse(fixture("unknown-event")))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "hi")
      expect(outcome.stop).toBe("end_turn")
      expect(outcome.text).toBe("Still fine.")
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("pause_turn is resumed by sending the assistant message back", () => {
    const cwd = setup()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("pause-turn")), sse(fixture("text-only")))
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "long task")
      expect(outcome.stop).toBe("end_turn")
      expect(outcome.turns).toBe(2)
      const messages = requestsFrom(first)[1]!.body.messages
      expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant"])
      expect(messages[1].content).toEqual([{ type: "text", text: "Working on it" }])
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd, tools: [ReadTool] })))
  })

  it.live("an invalid key: the API's 401 is the error, not retried", () => {
    const cwd = setup()
    const first = fake.requests.length
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "hi")
      expect(outcome.stop).toBe("error")
      expect(outcome.error?.message).toBe("the Anthropic API answered 401 authentication_error: invalid x-api-key")
      expect(requestsFrom(first)).toHaveLength(1)
    }).pipe(Effect.provide(agentLayer(anthropicLayer(fake.url, "sk-wrong"), { cwd, tools: [ReadTool] })))
  })

  it.live("an unreachable base URL: retried, then a clear connection error", () => {
    const cwd = setup()
    const port = closedPort
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "hi")
      expect(outcome.stop).toBe("error")
      expect(outcome.error?._tag).toBe("ModelConnectionError")
      expect(outcome.error?.message).toMatch(
        new RegExp(
          `^cannot reach the Anthropic API at http://127\\.0\\.0\\.1:${port} \\(tried 3 times\\): fetch failed: .*ECONNREFUSED`
        )
      )
      expect(events.filter((e) => e._tag === "Retrying")).toHaveLength(2)
    }).pipe(Effect.provide(agentLayer(anthropicLayer(`http://127.0.0.1:${port}`), { cwd, tools: [ReadTool] })))
  })
})
