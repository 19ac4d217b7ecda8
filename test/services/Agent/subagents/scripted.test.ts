/**
 * How a scripted session addresses subagents (`subagent_turn` lines keyed by the Agent call's
 * description, else its prompt), and what the parent sees when a subagent cannot finish.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import { parseSubagentScripts } from "../../../../src/services/Agent/subagents/scriptedSubagents.js"
import { ReadTool } from "../../../../src/tools/Read.js"
import { tempDir } from "../../../support/runtime.js"
import { removeDir, resultsAt, runParent, say, subagentLayer, subTurn, turn, use } from "./support.js"

const jsonl = (lines: ReadonlyArray<unknown>) => lines.map((l) => JSON.stringify(l)).join("\n")

describe("scripted subagents", () => {
  it("groups subagent_turn lines by agent, keeps line numbers, and ignores the main turns", () => {
    const text = jsonl([turn(say("main")), subTurn("a", say("a1")), subTurn("b", say("b1")), subTurn("a", say("a2"))])
    const scripts = parseSubagentScripts("s.jsonl", text)
    expect(Either.isRight(scripts)).toBe(true)
    const map = Either.getOrThrow(scripts)
    expect([...map.keys()]).toEqual(["a", "b"])
    expect(map.get("a")!.turns.map((t) => t.line)).toEqual([2, 4])
    expect(map.get("b")!.turns.map((t) => t.line)).toEqual([3])
  })

  it("a subagent_turn line without `agent` or with a bad turn is an error naming the line", () => {
    const noKey = parseSubagentScripts("s.jsonl", jsonl([turn(say("main")), { type: "subagent_turn", content: [] }]))
    expect(Either.isLeft(noKey) && noKey.left.message).toBe(
      "s.jsonl:2: a subagent_turn line needs `agent`: the Agent call's description (or prompt) it answers"
    )
    const bad = parseSubagentScripts(
      "s.jsonl",
      jsonl([turn(say("main")), { type: "subagent_turn", agent: "a", content: "nope" }])
    )
    expect(Either.isLeft(bad) && bad.left.message).toContain("s.jsonl:2:")
  })

  it.live("a subagent is found by its prompt too; one with no turns, or whose model fails, is an error result", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const lines = [
      turn(
        use("Agent", { description: "by prompt", prompt: "the exact prompt" }, "ag1"),
        use("Agent", { description: "not scripted", prompt: "nothing" }, "ag2"),
        use("Agent", { description: "failing", prompt: "x" }, "ag3")
      ),
      subTurn("the exact prompt", say("found by prompt")),
      {
        type: "subagent_turn",
        agent: "failing",
        error: { status: 400, type: "invalid_request_error", message: "bad request" }
      },
      turn(say("done"))
    ]
    return Effect.gen(function*() {
      const { outcome } = yield* runParent(cwd, "go")
      const results = resultsAt(outcome.conversation.messages, 2)
      expect(results.get("ag1")).toMatchObject({ content: "found by prompt" })
      expect(results.get("ag2").is_error).toBe(true)
      expect(results.get("ag2").content).toContain(
        "The general-purpose subagent has no model to run on: inline-script.jsonl: no subagent_turn lines for the subagent \"not scripted\""
      )
      expect(results.get("ag3").is_error).toBe(true)
      expect(results.get("ag3").content).toContain(
        "The general-purpose subagent failed: the Anthropic API answered 400 invalid_request_error: bad request"
      )
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool], lines })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("a type's maxTurns ends the subagent with an error result that keeps its last words", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    fs.mkdirSync(`${cwd}/.claude/agents`, { recursive: true })
    fs.writeFileSync(
      `${cwd}/.claude/agents/short.md`,
      "---\nname: short\ndescription: one turn only\nmaxTurns: 1\n---\nBe brief.\n"
    )
    fs.writeFileSync(`${cwd}/a.txt`, "a\n")
    const lines = [
      turn(use("Agent", { description: "short one", prompt: "go", subagent_type: "short" }, "ag1")),
      subTurn("short one", say("Reading first."), use("Read", { file_path: "{{cwd}}/a.txt" })),
      subTurn("short one", say("never reached")),
      turn(say("done"))
    ]
    return Effect.gen(function*() {
      const { outcome } = yield* runParent(cwd, "go")
      const result = resultsAt(outcome.conversation.messages, 2).get("ag1")
      expect(result.is_error).toBe(true)
      expect(result.content).toBe(
        "The short subagent stopped at its turn limit (1 turns) before finishing.\nIts last message:\nReading first."
      )
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool], lines })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })
})
