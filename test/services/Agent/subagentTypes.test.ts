/**
 * Subagent types and what the subagents' calls go through: `.claude/agents/*.md` (project over
 * user over built-in) narrowing the pool, Explore's read-only guard, command hooks seeing
 * `agent_id` / `agent_type`, and the cap on subagents running at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hooks from "../../../src/services/Hooks.js"
import * as Settings from "../../../src/services/Settings.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import { analyzedBashTool as BashTool } from "../../support/shellAnalyzer.js"
import { GrepTool } from "../../../src/tools/Grep.js"
import { ReadTool } from "../../../src/tools/Read.js"
import { WriteTool } from "../../../src/tools/Write.js"
import { ROOT } from "./cliSupport.js"
import { tempDir } from "../../support/runtime.js"
import {
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

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

const agentFile = (name: string, description: string, extra = "", body = `You are ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`

describe("Agent tool: subagent types", () => {
  it.live(".claude/agents types narrow the pool (tools: Read, Grep → no Bash); project wins over user", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const userConfigDir = path.join(cwd, ".claude-user")
    write(
      path.join(cwd, ".claude", "agents", "reader.md"),
      agentFile("reader", "Reads files and reports", "tools: Read, Grep\n")
    )
    write(path.join(userConfigDir, "agents", "reader.md"), agentFile("reader", "The user's reader (shadowed)"))
    write(path.join(userConfigDir, "agents", "helper.md"), agentFile("helper", "A user-level helper"))
    write(path.join(cwd, ".claude", "agents", "broken.md"), "---\ndescription: no name\n---\nbody\n")
    write(path.join(cwd, "notes.txt"), "hello\n")
    const lines = [
      turn(use("Agent", { description: "read the notes", prompt: "read notes.txt", subagent_type: "reader" }, "ag1")),
      subTurn(
        "read the notes",
        use("Bash", { command: "echo hi" }, "b1"),
        use("Read", { file_path: "{{cwd}}/notes.txt" }, "r1")
      ),
      subTurn("read the notes", say("the notes say hello")),
      turn(say("done"))
    ]
    const settings = Settings.layerStatic({ cwd, userConfigDir })
    return Effect.gen(function*() {
      const pool = yield* (yield* ToolRegistry).pool
      const agentTool = pool.lookup("Agent")!
      expect(agentTool.description).toContain("- reader: Reads files and reports (Tools: Read, Grep)")
      expect(agentTool.description).toContain("- helper: A user-level helper")
      expect(agentTool.description).not.toContain("shadowed")
      expect(agentTool.description).not.toContain("broken")
      expect(pool.lookup("Task")).toBe(agentTool)

      const { outcome, transcriptFile } = yield* runParent(cwd, "go")
      expect(resultsAt(outcome.conversation.messages, 2).get("ag1")).toMatchObject({ content: "the notes say hello" })
      const lines = transcriptLines(transcriptFile)
      expect(lines.find((l) => l.type === "subagent_start")).toMatchObject({
        agent_type: "reader",
        tools: ["Grep", "Read"]
      })
      const calls = lines.filter((l) => l.type === "subagent_tool_call")
      expect(calls.find((c) => c.tool_use_id === "b1")).toMatchObject({
        is_error: true,
        result: "<tool_use_error>Error: No such tool available: Bash</tool_use_error>"
      })
      expect(calls.find((c) => c.tool_use_id === "r1")).toMatchObject({ is_error: false })
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [BashTool, GrepTool, ReadTool], lines, settings })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("Explore is read-only: a writing Bash command is refused before it runs, a reading one runs", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const lines = [
      turn(use("Agent", { description: "look around", prompt: "explore", subagent_type: "Explore" }, "ag1")),
      subTurn(
        "look around",
        use("Bash", { command: "touch made.txt" }, "b1"),
        use("Bash", { command: "ls" }, "b2"),
        use("Write", { file_path: "{{cwd}}/w.txt", content: "x" }, "w1")
      ),
      subTurn("look around", say("explored")),
      turn(say("done"))
    ]
    const settings = Settings.layerStatic({ cwd, rules: [] })
    return Effect.gen(function*() {
      const { outcome, transcriptFile } = yield* runParent(cwd, "go")
      expect(resultsAt(outcome.conversation.messages, 2).get("ag1")).toMatchObject({ content: "explored" })
      const calls = transcriptLines(transcriptFile).filter((l) => l.type === "subagent_tool_call")
      expect(calls.find((c) => c.tool_use_id === "b1")).toMatchObject({
        is_error: true,
        result:
          "<tool_use_error>Explore is a read-only agent: this Bash call would change files or state, so it was not run. Use only read-only calls.</tool_use_error>"
      })
      expect(calls.find((c) => c.tool_use_id === "b2")).toMatchObject({ is_error: false })
      expect(calls.find((c) => c.tool_use_id === "w1")).toMatchObject({
        is_error: true,
        result: "<tool_use_error>Error: No such tool available: Write</tool_use_error>"
      })
      expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(false)
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [BashTool, ReadTool, WriteTool], lines, settings })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("command hooks see agent_id and agent_type for the subagent's calls, not for the parent's", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const seen = path.join(cwd, "hook-inputs")
    fs.mkdirSync(seen)
    write(path.join(cwd, ".claude", "agents", "reader.md"), agentFile("reader", "Reads files", "tools: Read\n"))
    write(path.join(cwd, "notes.txt"), "hello\n")
    const script = path.join(ROOT, "test", "fixtures", "agents", "record-hook.sh")
    const lines = [
      turn(use("Agent", { description: "read it", prompt: "read notes.txt", subagent_type: "reader" }, "ag1")),
      subTurn("read it", use("Read", { file_path: "{{cwd}}/notes.txt" }, "r1")),
      subTurn("read it", say("read")),
      turn(say("done"))
    ]
    const settings = Settings.layerStatic({
      cwd,
      sources: [
        {
          source: "projectSettings",
          file: path.join(cwd, ".claude", "settings.json"),
          root: cwd,
          settings: {
            hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `${script} ${seen}` }] }] }
          }
        }
      ]
    })
    const hooks = Hooks.layer.pipe(Layer.provide(settings))
    return Effect.gen(function*() {
      const { transcriptFile } = yield* runParent(cwd, "go")
      const inputs = fs.readdirSync(seen).map((f) =>
        JSON.parse(fs.readFileSync(path.join(seen, f), "utf8")) as Record<string, any>
      )
      const parent = inputs.find((i) => i.tool_name === "Agent")!
      const child = inputs.find((i) => i.tool_name === "Read")!
      expect(parent.tool_input).toMatchObject({ subagent_type: "reader", description: "read it" })
      expect(parent.agent_id).toBeUndefined()
      expect(parent.agent_type).toBeUndefined()
      const start = transcriptLines(transcriptFile).find((l) => l.type === "subagent_start")!
      expect(child).toMatchObject({
        hook_event_name: "PreToolUse",
        tool_use_id: "r1",
        agent_id: start.agent_id,
        agent_type: "reader"
      })
      expect(child.tool_input.file_path).toBe(path.join(cwd, "notes.txt"))
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool], lines, settings, hooks })),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })

  it.live("TOOLGATE_MAX_CONCURRENT_SUBAGENTS=1: the second subagent waits until the first is done", () => {
    const cwd = fs.realpathSync(tempDir("toolgate-subagent-"))
    const lines = [
      turn(
        use("Agent", { description: "first one", prompt: "x" }, "ag1"),
        use("Agent", { description: "second one", prompt: "y" }, "ag2")
      ),
      subTurn("first one", say("first")),
      subTurn("second one", say("second")),
      turn(say("done"))
    ]
    const config = ConfigProvider.fromMap(new Map([["TOOLGATE_MAX_CONCURRENT_SUBAGENTS", "1"]]))
    return Effect.gen(function*() {
      const { outcome, transcriptFile } = yield* runParent(cwd, "go")
      const results = resultsAt(outcome.conversation.messages, 2)
      expect([results.get("ag1").content, results.get("ag2").content]).toEqual(["first", "second"])
      // in the transcript, one subagent's lines all come before the other's: they never overlapped
      const order = transcriptLines(transcriptFile)
        .filter((l) => typeof l.type === "string" && l.type.startsWith("subagent_"))
        .map((l) => l.agent as string)
      const switches = order.filter((a, i) => i > 0 && a !== order[i - 1]).length
      expect(switches).toBe(1)
    }).pipe(
      Effect.provide(subagentLayer({ cwd, tools: [ReadTool], lines, timeScale: 1 })),
      Effect.withConfigProvider(config),
      Effect.timeout("30 seconds"),
      Effect.ensuring(removeDir(cwd))
    )
  })
})
