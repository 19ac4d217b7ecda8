/**
 * The agent loop with the scripted model: turn limits, interrupts (during a tool and during the
 * model's text), hooks' halts and context, tools' newMessages, unparsable input, and that every
 * tool_use is answered in order.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Queue, Schema, Stream } from "effect"
import { INTERRUPT_MARKER, REJECT_MESSAGE } from "../../../src/Errors.js"
import * as Hooks from "../../../src/services/Hooks.js"
import { SleepTool as GatedSleep } from "../../../src/tools/Sleep.js"
import { buildTool } from "../../../src/Tool.js"
import { tempDir } from "../../support/runtime.js"
import { agentLayer, NowTool, runPrompt, scriptedLayer, touchTool } from "./support.js"
import * as Permission from "../../../src/Permission.js"

/** Sleep without its feature gate. */
const SleepTool = { ...GatedSleep, isEnabled: Effect.succeed(true) }

const turnWith = (...content: Array<Record<string, unknown>>) => ({ type: "turn", content })
const use = (name: string, input: unknown, id?: string) => ({
  type: "tool_use",
  name,
  input,
  ...(id === undefined ? {} : { id })
})
const say = (text: string) => ({ type: "text", text })

const userContent = (messages: ReadonlyArray<{ role: string; content: unknown }>, i: number) =>
  messages[i]!.content as Array<any>

describe("Agent loop (scripted model)", () => {
  it.live("stops at --max-turns", () => {
    const cwd = tempDir("toolgate-agent-")
    const script = [turnWith(use("Now", {})), turnWith(use("Now", {})), turnWith(use("Now", {})), turnWith(say("done"))]
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "loop", { maxTurns: 2 })
      expect(outcome.stop).toBe("max_turns")
      expect(outcome.turns).toBe(2)
      // the conversation is still valid: every tool_use answered
      expect(outcome.conversation.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user"
      ])
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [NowTool] })))
  })

  it.live("results come back in tool_use order, one per call, before any other block", () => {
    const cwd = tempDir("toolgate-agent-")
    const touched: Array<string> = []
    const script = [
      turnWith(
        say("several"),
        use("Touch", { name: "1" }, "t1"),
        use("Now", {}, "t2"),
        use("Nope", {}, "t3"),
        use("Touch", { name: "4" }, "t4")
      ),
      turnWith(say("done"))
    ]
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "go")
      const results = userContent(outcome.conversation.messages, 2)
      expect(results.map((b) => b.tool_use_id)).toEqual(["t1", "t2", "t3", "t4"])
      expect(results[2].is_error).toBe(true)
      expect(results[2].content).toContain("No such tool available: Nope")
      expect(touched).toEqual(["1", "4"])
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [NowTool, touchTool(touched)] })))
  })

  it.live("unparsable tool input is an InputValidationError result, never executed, and sent back as {}", () => {
    const cwd = tempDir("toolgate-agent-")
    const touched: Array<string> = []
    const script = [
      {
        type: "turn",
        events: [
          { type: "message_start", message: { id: "m", model: "s", usage: {} } },
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "t_bad", name: "Touch", input: {} }
          },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: "{\"name\": \"ha" }
          },
          { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "lf" } },
          { type: "content_block_stop", index: 0 },
          { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: {} },
          { type: "message_stop" }
        ]
      },
      turnWith(say("ok"))
    ]
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "go")
      expect(touched).toEqual([])
      const assistant = userContent(outcome.conversation.messages, 1)
      expect(assistant[0]).toEqual({ type: "tool_use", id: "t_bad", name: "Touch", input: {} })
      const result = userContent(outcome.conversation.messages, 2)[0]
      expect(result.is_error).toBe(true)
      expect(result.content).toContain("InputValidationError")
      expect(result.content).toContain("not valid JSON")
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [touchTool(touched)] })))
  })

  it.live("Ctrl-C during a tool: the call is interrupted, the turn ends, the marker follows the results", () => {
    const cwd = tempDir("toolgate-agent-")
    const script = [turnWith(use("Sleep", { duration_ms: 60_000 }, "s1"), use("Now", {}, "n1")), turnWith(say("never"))]
    return Effect.gen(function*() {
      const interrupts = yield* Queue.unbounded<void>()
      const { outcome } = yield* runPrompt(cwd, "sleep", {
        interrupts: Stream.fromQueue(interrupts),
        onEvent: (
          e
        ) => (e._tag === "Call" && e.event._tag === "CallStarted" && e.event.toolUseId === "s1"
          ? Queue.offer(interrupts, undefined)
          : Effect.void)
      })
      expect(outcome.stop).toBe("interrupted")
      expect(outcome.turns).toBe(1)
      const content = userContent(outcome.conversation.messages, 2)
      expect(content.map((b) => b.tool_use_id ?? b.text)).toEqual(["s1", "n1", INTERRUPT_MARKER])
      expect(content[0].content).toBe(REJECT_MESSAGE)
    }).pipe(
      Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [SleepTool, NowTool] })),
      Effect.timeout("20 seconds")
    )
  })

  it.live("Ctrl-C while the model streams text stops the model; the partial text is kept", () => {
    const cwd = tempDir("toolgate-agent-")
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ")
    const script = [turnWith(say(long)), turnWith(say("never"))]
    return Effect.gen(function*() {
      const interrupts = yield* Queue.unbounded<void>()
      let deltas = 0
      const { outcome } = yield* runPrompt(cwd, "talk", {
        interrupts: Stream.fromQueue(interrupts),
        onEvent: (
          e
        ) => (e._tag === "Model" && e.event._tag === "TextDelta" && ++deltas === 3
          ? Queue.offer(interrupts, undefined)
          : Effect.void)
      })
      expect(outcome.stop).toBe("interrupted")
      const [, assistant, marker] = outcome.conversation.messages
      const partial = (assistant!.content as Array<any>)[0].text as string
      expect(partial.startsWith("word0 word1")).toBe(true)
      expect(partial.length).toBeLessThan(long.length)
      expect(marker!.content).toEqual([{ type: "text", text: "[Request interrupted by user]" }])
    }).pipe(
      Effect.provide(agentLayer(scriptedLayer(cwd, script, 1), { cwd, tools: [NowTool] })),
      Effect.timeout("20 seconds")
    )
  })

  it.live("a PostToolBatch hook's halt stops the loop", () => {
    const cwd = tempDir("toolgate-agent-")
    const script = [turnWith(use("Now", {})), turnWith(say("never"))]
    const hooks = Hooks.layerInProcess([{
      event: "PostToolBatch",
      run: () => Effect.succeed({ continue: false, stopReason: "enough for today" })
    }])
    return Effect.gen(function*() {
      const { outcome } = yield* runPrompt(cwd, "go")
      expect(outcome.stop).toBe("hook_stop")
      expect(outcome.halt?.reason).toBe("enough for today")
      expect(outcome.turns).toBe(1)
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [NowTool], hooks })))
  })

  it.live("a hook's additionalContext is folded into the result it follows; tools' newMessages follow the results", () => {
    const cwd = tempDir("toolgate-agent-")
    const SkillTool = buildTool({
      name: "Skill",
      inputSchema: Schema.Struct({}),
      description: "loads a skill",
      checkPermissions: () => Effect.succeed(Permission.allow()),
      call: () =>
        Effect.succeed({
          data: "loaded",
          newMessages: ["Skill text: always be brief.", { role: "user", content: [{ type: "text", text: "second" }] }, {
            role: "assistant",
            content: "x"
          }]
        })
    })
    const hooks = Hooks.layerInProcess([
      {
        event: "PostToolUse",
        run: () =>
          Effect.succeed({
            hookSpecificOutput: { hookEventName: "PostToolUse" as const, additionalContext: "note from a hook" }
          })
      }
    ])
    const script = [turnWith(use("Skill", {}, "k1")), turnWith(say("done"))]
    return Effect.gen(function*() {
      const { outcome, events } = yield* runPrompt(cwd, "go")
      const content = userContent(outcome.conversation.messages, 2)
      expect(content[0]).toMatchObject({
        type: "tool_result",
        tool_use_id: "k1",
        content:
          "loaded\n\n<system-reminder>\nPostToolUse:Skill hook additional context: note from a hook\n</system-reminder>"
      })
      expect(content.slice(1).map((b) => b.text)).toEqual(["Skill text: always be brief.", "second"])
      expect(events.some((e) => e._tag === "Notice" && e.text.includes("1 message(s)"))).toBe(true)
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [SkillTool], hooks })))
  })

  it.live("a second prompt continues the conversation; user content is never two messages in a row", () => {
    const cwd = tempDir("toolgate-agent-")
    const script = [turnWith(say("first")), turnWith(say("second"))]
    return Effect.gen(function*() {
      const agent = yield* (yield* Effect.promise(() => import("../../../src/services/Agent.js"))).Agent
      const { newConversation } = yield* Effect.promise(() => import("../../../src/services/Agent/conversation.js"))
      const { testSession } = yield* Effect.promise(() => import("../../support/runtime.js"))
      const one = yield* agent.prompt(newConversation(testSession(cwd)), "hello")
      const two = yield* agent.prompt(one.conversation, "again")
      expect(two.text).toBe("second")
      expect(two.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
      expect(two.conversation.turns).toBe(2)
    }).pipe(Effect.provide(agentLayer(scriptedLayer(cwd, script), { cwd, tools: [NowTool] })))
  })
})
