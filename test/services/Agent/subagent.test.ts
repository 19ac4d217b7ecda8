/**
 * The Agent tool under the scripted model: two subagents of one message running at the same
 * time (proved by a latch both must reach, and by the parent's call times), one of them denied a
 * tool by a rule, both reporting back; an interrupt stopping both and their processes; unknown
 * and denied agent types.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { REJECT_MESSAGE } from "../../../src/Errors.js"
import { makeRule } from "../../../src/PermissionRules.js"
import * as Settings from "../../../src/services/Settings.js"
import { analyzedBashTool as BashTool } from "../../support/shellAnalyzer.js"
import { ReadTool } from "../../../src/tools/Read.js"
import { isGone, waitGone } from "../Hooks/support.js"
import { tempDir } from "../../support/runtime.js"
import {
  callTimes,
  latchTool,
  removeDir,
  resultsAt,
  runParent,
  say,
  subagentLayer,
  subTurn,
  transcriptLines,
  turn,
  use
} from "./subagents/support.js"

const pidsOf = (pattern: string): Array<number> => {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(Number)
  } catch {
    return []
  }
}

describe("Agent tool: subagents (scripted model)", () => {
  it.live("two subagents in one message run concurrently; one is denied a tool by a rule; both report back", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    fs.writeFileSync(path.join(cwd, "secret.txt"), "the secret\n")
    fs.writeFileSync(path.join(cwd, "notes.txt"), "hello from the notes\n")
    const lines = [
      turn(
        say("Two subagents."),
        use("Agent", {
          description: "alpha task",
          prompt: "Read secret.txt and report",
          subagent_type: "general-purpose"
        }, "ag1"),
        use("Agent", { description: "beta task", prompt: "Read notes.txt and report" }, "ag2")
      ),
      subTurn(
        "alpha task",
        use("Latch", { name: "alpha" }, "la1"),
        use("Read", { file_path: "{{cwd}}/secret.txt" }, "ra1")
      ),
      subTurn("alpha task", say("alpha: reading the secret was denied")),
      subTurn(
        "beta task",
        use("Latch", { name: "beta" }, "lb1"),
        use("Read", { file_path: "{{cwd}}/notes.txt" }, "rb1")
      ),
      subTurn("beta task", say("beta: the notes say hello")),
      turn(say("Both subagents are done."))
    ]
    const settings = Settings.layerStatic({
      cwd,
      rules: [makeRule("Read(./secret.txt)", "deny", "projectSettings", cwd)]
    })
    return Effect.gen(function*() {
      const { outcome, events, transcriptFile } = yield* runParent(cwd, "delegate")
      expect(outcome.stop).toBe("end_turn")
      expect(outcome.text).toBe("Both subagents are done.")

      // both subagents' final texts come back to the parent as the Agent results
      const results = resultsAt(outcome.conversation.messages, 2)
      expect(results.get("ag1")).toMatchObject({ content: "alpha: reading the secret was denied" })
      expect(results.get("ag1").is_error).not.toBe(true)
      expect(results.get("ag2")).toMatchObject({ content: "beta: the notes say hello" })
      expect(results.get("ag2").is_error).not.toBe(true)

      // they overlapped: each started before the other finished
      const times = callTimes(events)
      const a = times.get("ag1")!
      const b = times.get("ag2")!
      expect(a.start! < b.end! && b.start! < a.end!).toBe(true)

      // inside: both met at the latch (neither waited alone); alpha's Read was denied, beta's ran
      const calls = transcriptLines(transcriptFile).filter((l) => l.type === "subagent_tool_call")
      const call = (agent: string, id: string) => calls.find((c) => c.agent === agent && c.tool_use_id === id)!
      expect(call("alpha task", "la1").result).toBe("alpha met the others at the latch")
      expect(call("beta task", "lb1").result).toBe("beta met the others at the latch")
      expect(call("alpha task", "ra1").is_error).toBe(true)
      // a path deny rule is the file tool's own refusal (before hooks, as Claude Code): no allow was recorded
      expect(call("alpha task", "ra1").decision?.behavior).not.toBe("allow")
      expect(String(call("alpha task", "ra1").result)).toContain("denied")
      expect(call("beta task", "rb1").is_error).toBe(false)
      expect(String(call("beta task", "rb1").result)).toContain("hello from the notes")
      // the subagents ran with their own ids and types
      const starts = transcriptLines(transcriptFile).filter((l) => l.type === "subagent_start")
      expect(starts.map((s) => s.agent_type).sort()).toEqual(["general-purpose", "general-purpose"])
      expect(new Set(starts.map((s) => s.agent_id)).size).toBe(2)
      expect(starts.every((s) => !s.tools.includes("Agent"))).toBe(true)
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool, latchTool(2)], lines, settings })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("an interrupt stops both subagents and the processes their Bash calls started", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const marker = `${process.pid}${Date.now() % 100000}`
    const sleepA = `sleep 317.${marker}1`
    const sleepB = `sleep 317.${marker}2`
    const lines = [
      turn(
        use("Agent", { description: "sleeper one", prompt: "sleep" }, "ag1"),
        use("Agent", { description: "sleeper two", prompt: "sleep" }, "ag2")
      ),
      subTurn("sleeper one", use("Bash", { command: sleepA }, "b1")),
      subTurn("sleeper one", say("never")),
      subTurn("sleeper two", use("Bash", { command: sleepB }, "b2")),
      subTurn("sleeper two", say("never")),
      turn(say("never"))
    ]
    const settings = Settings.layerStatic({ cwd, rules: [makeRule("Bash(sleep *)", "allow", "projectSettings", cwd)] })
    return Effect.gen(function*() {
      const interrupts = yield* Queue.unbounded<void>()
      const bothStarted = yield* Deferred.make<void>()
      let bashStarts = 0
      const fiber = yield* runParent(cwd, "sleep in two subagents", {
        interrupts: Stream.fromQueue(interrupts),
        onEvent: (e) => {
          if (e._tag === "Call" && e.event._tag === "CallProgress") {
            const data = e.event.progress.data as { event?: string; toolName?: string } | undefined
            if (data?.event === "call_started" && data.toolName === "Bash" && ++bashStarts === 2) {
              return Deferred.succeed(bothStarted, undefined)
            }
          }
          return Effect.void
        }
      }).pipe(Effect.fork)
      yield* Deferred.await(bothStarted)
      // both commands really run before the interrupt
      // (the pattern matches the shell running the command and the sleep itself)
      let running: Array<Array<number>> = [[], []]
      for (let i = 0; i < 200 && running.some((p) => p.length === 0); i++) {
        running = [pidsOf(sleepA.replace(".", "\\.")), pidsOf(sleepB.replace(".", "\\."))]
        if (running.some((p) => p.length === 0)) yield* Effect.sleep("25 millis")
      }
      expect(running.map((p) => p.length > 0)).toEqual([true, true])
      const pids = running.flat()
      yield* Queue.offer(interrupts, undefined)
      const { outcome } = yield* Fiber.join(fiber)
      expect(outcome.stop).toBe("interrupted")
      const results = resultsAt(outcome.conversation.messages, 2)
      expect(results.get("ag1")).toMatchObject({ content: REJECT_MESSAGE, is_error: true })
      expect(results.get("ag2")).toMatchObject({ content: REJECT_MESSAGE, is_error: true })
      for (const pid of pids) yield* waitGone(pid)
      expect(pids.every(isGone)).toBe(true)
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [BashTool], lines, settings })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("an unknown subagent type is refused with the available types; a denied type gets Claude Code's text", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const lines = [
      turn(
        use("Agent", { description: "bad type", prompt: "x", subagent_type: "Nope" }, "ag1"),
        use("Agent", { description: "explore it", prompt: "x", subagent_type: "Explore" }, "ag2"),
        use("Agent", { description: "extra key", prompt: "x", subagent_type: "Plan", unknown_key: 1 }, "ag3")
      ),
      subTurn("extra key", say("planned")),
      turn(say("done"))
    ]
    const settings = Settings.layerStatic({ cwd, rules: [makeRule("Agent(Explore)", "deny", "userSettings", cwd)] })
    return Effect.gen(function*() {
      const { outcome } = yield* runParent(cwd, "go")
      const results = resultsAt(outcome.conversation.messages, 2)
      expect(results.get("ag1")).toMatchObject({
        is_error: true,
        content: "<tool_use_error>Agent type 'Nope' not found. Available agents: Plan, general-purpose</tool_use_error>"
      })
      expect(results.get("ag2")).toMatchObject({
        is_error: true,
        content: "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from userSettings."
      })
      // the schema is not strict: an unknown key is dropped, the call runs
      expect(results.get("ag3")).toMatchObject({ content: "planned" })
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool], lines, settings })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })
})
