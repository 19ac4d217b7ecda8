/**
 * Subagents through the built CLI as a process: a scripted `toolgate run -p` whose model starts
 * two subagents (a `.claude/agents` type and Explore) in one message, then `toolgate replay` of
 * the transcript it wrote, subagents included, over a copy of the project.
 */
import { afterAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cleanEnv, ROOT, runCli } from "./cliSupport.js"

const SESSION = path.join(ROOT, "test", "fixtures", "sessions", "subagents.jsonl")

const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

/** A clean environment whose temporary HOME is removed after the tests. */
const env = () => {
  const e = cleanEnv()
  made.push(e.HOME!)
  return e
}

const project = () => {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-subagent-cli-")))
  made.push(work)
  const dir = path.join(work, "project")
  fs.mkdirSync(path.join(dir, ".claude", "agents"), { recursive: true })
  fs.writeFileSync(path.join(dir, "a.txt"), "hello from a\n")
  fs.writeFileSync(path.join(dir, "b.txt"), "hello from b\n")
  fs.writeFileSync(
    path.join(dir, ".claude", "agents", "reader.md"),
    "---\nname: reader\ndescription: Reads files and reports\ntools: Read, Grep\n---\nYou read files and report in one line.\n"
  )
  return { work, dir }
}

const lines = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, any>)

describe("toolgate run -p with subagents (process, scripted model)", () => {
  it("two subagents run in one batch and report back; the transcript replays with its subagents", async () => {
    const { work, dir } = project()
    const ran = await runCli(
      [
        "run",
        "-p",
        "--replay",
        SESSION,
        "--replay-speed",
        "4",
        "--output-format",
        "json",
        "--toolgate-events",
        "--cwd",
        dir,
        "--session-dir",
        path.join(work, "s1")
      ],
      { env: env() }
    )
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const result = JSON.parse(ran.stdout)
    expect(result).toMatchObject({
      subtype: "success",
      result: "a.txt and b.txt both say hello.",
      num_turns: 3,
      toolgate: { model_turns: 2 }
    })
    expect(result.toolgate.tool_calls.map((c: any) => [c.tool_use_id, c.name, c.batch, c.outcome])).toEqual([
      ["toolu_agent_a", "Agent", 1, "ok"],
      ["toolu_agent_b", "Agent", 1, "ok"]
    ])
    const recorded = lines(result.toolgate.transcript)
    expect(recorded[0]!.tools).toContain("Agent")
    const results = recorded.find((l) => l.type === "tool_results")!.message.content
    expect(results.map((b: any) => b.content)).toEqual([
      "a.txt says hello from a (I have no Bash).",
      "b.txt says hello from b."
    ])
    const inner = recorded.filter((l) => l.type === "subagent_tool_call")
    expect(inner.find((c) => c.tool_use_id === "toolu_a_bash")).toMatchObject({
      agent_type: "reader",
      result: "<tool_use_error>Error: No such tool available: Bash</tool_use_error>"
    })
    expect(inner.find((c) => c.tool_use_id === "toolu_b_read")).toMatchObject({
      agent_type: "Explore",
      is_error: false
    })
    expect(recorded.filter((l) => l.type === "subagent_turn").map((l) => l.agent).sort()).toEqual([
      "Summarise a.txt",
      "Summarise a.txt",
      "Summarise b.txt",
      "Summarise b.txt"
    ])

    // the recording replays over a copy of the project, the subagents from their recorded turns
    const copy = path.join(work, "copy")
    fs.cpSync(dir, copy, { recursive: true })
    const replayed = await runCli([
      "replay",
      result.toolgate.transcript,
      "--replay-speed",
      "4",
      "--output-format",
      "json",
      "--cwd",
      copy,
      "--session-dir",
      path.join(work, "s2")
    ], {
      env: env()
    })
    expect(replayed.stderr).toBe("")
    expect(replayed.code).toBe(0)
    const again = JSON.parse(replayed.stdout)
    expect(again.replay).toMatchObject({ calls: 2, identical: 2, differences: [] })
    const innerAgain = lines(again.toolgate.transcript).filter((l) => l.type === "subagent_tool_call")
    expect(innerAgain.find((c) => c.tool_use_id === "toolu_a_read")!.input.file_path).toBe(path.join(copy, "a.txt"))
  })
})
