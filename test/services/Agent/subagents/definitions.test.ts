/**
 * Loading subagent types from `.claude/agents/*.md` and `~/.claude/agents/*.md`, narrowing a pool
 * for a type, the subagent system prompt, and the subagent cap's configuration.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { BUILTIN_AGENTS } from "../../../../src/services/Agent/subagents/builtins.js"
import {
  agentDirs,
  loadAgents,
  parseAgentFile,
  type AgentDefinition
} from "../../../../src/services/Agent/subagents/definitions.js"
import { narrowPool, toolEntryWarnings } from "../../../../src/services/Agent/subagents/pool.js"
import { subagentSystemPrompt } from "../../../../src/services/Agent/subagents/runSubagent.js"
import { InputValidator, layer as validatorLayer } from "../../../../src/services/InputValidator.js"
import { buildPool } from "../../../../src/services/ToolRegistry.js"
import { maxConcurrentSubagentsConfig, AgentInput } from "../../../../src/tools/AgentTool.js"
import { buildTool, inputJsonSchema, type AnyTool } from "../../../../src/Tool.js"
import * as FileState from "../../../../src/services/FileState.js"
import { tempDir, testSession } from "../../../support/runtime.js"

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

const fake = (name: string, readOnly = true): AnyTool =>
  buildTool({
    name,
    inputSchema: Schema.Struct({ write: Schema.optionalWith(Schema.Boolean, { exact: true }) }),
    description: name,
    isReadOnly: (input) => readOnly && input.write !== true,
    call: () => Effect.succeed({ data: "ok" })
  })

const def = (over: Partial<AgentDefinition>): AgentDefinition => ({
  name: "t",
  description: "d",
  tools: undefined,
  disallowedTools: [],
  model: "inherit",
  maxTurns: undefined,
  systemPrompt: "",
  readOnly: false,
  source: "library",
  ...over
})

describe("agent type files", () => {
  it("reads name, description, tools (comma or YAML list), disallowedTools, model, maxTurns and the body", () => {
    const a = parseAgentFile(
      "a.md",
      "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\nmodel: haiku\nmaxTurns: 4\n---\nYou review.\n",
      "project"
    )
    expect(a).toMatchObject({
      name: "reviewer",
      description: "Reviews code",
      tools: ["Read", "Grep", "Glob"],
      model: "haiku",
      maxTurns: 4,
      systemPrompt: "You review.",
      source: "project"
    })
    const b = parseAgentFile(
      "b.md",
      "---\nname: writer\ndescription: \"Writes: things\"\ntools:\n  - Read\n  - Write\ndisallowedTools: [Bash]\n---\nbody",
      "user"
    )
    expect(b).toMatchObject({
      tools: ["Read", "Write"],
      disallowedTools: ["Bash"],
      model: "inherit",
      description: "Writes: things"
    })
    // omitted or `*` tools: every tool of the pool
    expect(parseAgentFile("c.md", "---\nname: all\ndescription: x\ntools: \"*\"\n---\n", "user")).toMatchObject({
      tools: undefined
    })
    expect(parseAgentFile("d.md", "---\nname: all\ndescription: x\n---\n", "user")).toMatchObject({ tools: undefined })
  })

  it("files that cannot be used are skipped with a reason", () => {
    expect(parseAgentFile("x.md", "no front matter", "project")).toMatch(/no `name`/)
    expect(parseAgentFile("x.md", "---\nname: x\n---\n", "project")).toMatch(/no `description`/)
    expect(parseAgentFile("x.md", "---\nname: two words\ndescription: d\n---\n", "project")).toMatch(
      /not a usable agent type/
    )
    expect(parseAgentFile("x.md", "---\nname: x\ndescription: d\nmaxTurns: many\n---\n", "project")).toMatch(/maxTurns/)
  })

  it("project types win over user types, which win over built-ins; bad files are warnings", () => {
    const root = tempDir("toolgate-agents-")
    const userConfigDir = path.join(root, "user")
    write(path.join(userConfigDir, "agents", "Explore.md"), "---\nname: Explore\ndescription: my explore\n---\nmine\n")
    write(path.join(userConfigDir, "agents", "shared.md"), "---\nname: shared\ndescription: user version\n---\n")
    write(path.join(root, ".claude", "agents", "shared.md"), "---\nname: shared\ndescription: project version\n---\n")
    write(path.join(root, ".claude", "agents", "bad.md"), "---\ndescription: nameless\n---\n")
    write(path.join(root, ".claude", "agents", "notes.txt"), "not an agent")
    const loaded = loadAgents(agentDirs(root, userConfigDir))
    const byName = new Map(loaded.definitions.map((d) => [d.name, d]))
    expect([...byName.keys()]).toEqual(["Explore", "Plan", "general-purpose", "shared"])
    expect(byName.get("Explore")).toMatchObject({ description: "my explore", source: "user", readOnly: false })
    expect(byName.get("shared")).toMatchObject({ description: "project version", source: "project" })
    expect(loaded.warnings).toHaveLength(1)
    expect(loaded.warnings[0]).toContain("bad.md")
    // missing folders are not errors
    expect(loadAgents(agentDirs(path.join(root, "none"), path.join(root, "none"))).warnings).toEqual([])
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("built-ins: general-purpose has every tool; Explore and Plan lose the editing tools and are read-only", () => {
    const names = BUILTIN_AGENTS.map((d) => d.name)
    expect(names).toEqual(["general-purpose", "Explore", "Plan"])
    const explore = BUILTIN_AGENTS.find((d) => d.name === "Explore")!
    expect(explore.readOnly).toBe(true)
    expect(explore.disallowedTools).toEqual(expect.arrayContaining(["Edit", "Write", "NotebookEdit"]))
  })
})

describe("a subagent's pool", () => {
  const parent = buildPool([fake("Read"), fake("Bash", false), fake("Edit", false), fake("Agent", false)], [
    fake("mcp__gh__issues"),
    fake("mcp__gh__prs"),
    fake("mcp__db__query")
  ], [])

  it("keeps the type's tools (names and globs), drops disallowedTools, and never Agent", () => {
    expect(narrowPool(parent, def({})).tools.map((t) => t.name)).toEqual([
      "Bash",
      "Edit",
      "Read",
      "mcp__db__query",
      "mcp__gh__issues",
      "mcp__gh__prs"
    ])
    expect(narrowPool(parent, def({ tools: ["Read", "mcp__gh__*", "Agent"] })).tools.map((t) => t.name)).toEqual([
      "Read",
      "mcp__gh__issues",
      "mcp__gh__prs"
    ])
    expect(narrowPool(parent, def({ disallowedTools: ["Edit", "mcp__gh"] })).tools.map((t) => t.name)).toEqual([
      "Bash",
      "Read",
      "mcp__db__query"
    ])
    const narrowed = narrowPool(parent, def({ tools: ["Read"] }))
    expect(narrowed.lookup("Bash")).toBeUndefined()
    expect(narrowed.apiSchemas.map((s) => s.name)).toEqual(["Read"])
    // one narrowed pool per parent snapshot and type
    const d = def({ tools: ["Read"] })
    expect(narrowPool(parent, d)).toBe(narrowPool(parent, d))
  })

  it("a tools entry with a specifier gives nothing, with a warning (a list cannot enforce it)", () => {
    const d = def({ name: "git", tools: ["Read", "Bash(git *)", "Agent(worker)"] })
    expect(narrowPool(parent, d).tools.map((t) => t.name)).toEqual(["Read"])
    expect(toolEntryWarnings(d)).toEqual([
      "agent type git: tools entry 'Bash(git *)' has a specifier, which a tool list cannot enforce; Bash is not given to git"
    ])
  })

  it.effect("a read-only type refuses, at validation, any call the tool itself does not call read-only", () =>
    Effect.gen(function*() {
      const pool = narrowPool(parent, def({ name: "Looker", readOnly: true }))
      const read = pool.lookup("Read")!
      const ctx = {
        session: testSession("/nonexistent-toolgate-cwd"),
        fileState: yield* FileState.make,
        mode: "default" as const
      }
      yield* read.validateInput({}, ctx)
      const refused = yield* Effect.flip(read.validateInput({ write: true }, ctx))
      expect(refused.reason).toBe(
        "Looker is a read-only agent: this Read call would change files or state, so it was not run. Use only read-only calls."
      )
      yield* Effect.flip(pool.lookup("Bash")!.validateInput({}, ctx))
    }))
})

describe("the Agent tool's input and settings", () => {
  it.effect("the schema drops unknown keys, coerces run_in_background, and shows the model the fields of Claude Code 2.1.332's schema", () =>
    Effect.gen(function*() {
      const validator = yield* InputValidator
      const tool = buildTool({
        name: "Agent",
        inputSchema: AgentInput,
        description: "",
        call: () => Effect.succeed({ data: "" })
      })
      expect(validator.decode(tool, { description: "d", prompt: "p", surprise: true, run_in_background: "false" }))
        .toMatchObject({
          _tag: "Right",
          right: { description: "d", prompt: "p", run_in_background: false }
        })
      const missing = validator.decode(tool, { description: "d" })
      expect(missing._tag).toBe("Left")
      expect(JSON.stringify(missing)).toContain("The required parameter `prompt` is missing")
      const schema = inputJsonSchema(tool) as { properties: Record<string, unknown>; required: Array<string> }
      expect(Object.keys(schema.properties)).toEqual([
        "description",
        "prompt",
        "subagent_type",
        "model",
        "effort",
        "run_in_background",
        "isolation"
      ])
      expect(schema.required).toEqual(["description", "prompt"])
    }).pipe(Effect.provide(validatorLayer)))

  it.effect("the subagent cap reads TOOLGATE_MAX_CONCURRENT_SUBAGENTS, then CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS, default 20", () =>
    Effect.gen(function*() {
      const read = (entries: ReadonlyArray<readonly [string, string]>) =>
        maxConcurrentSubagentsConfig.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries))),
          Effect.either
        )
      expect(yield* read([])).toMatchObject({ right: 20 })
      expect(yield* read([["CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", "3"]])).toMatchObject({ right: 3 })
      expect(yield* read([["CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", "3"], ["TOOLGATE_MAX_CONCURRENT_SUBAGENTS", "5"]]))
        .toMatchObject({ right: 5 })
      expect((yield* read([["TOOLGATE_MAX_CONCURRENT_SUBAGENTS", "0"]]))._tag).toBe("Left")
    }))

  it("the subagent's system prompt is its type's prompt, then the environment", () => {
    const cwd = "/nonexistent-toolgate-cwd"
    const text = subagentSystemPrompt(def({ systemPrompt: "You review code.\n" }), testSession(cwd))
    expect(text.startsWith("You review code.\n\n# Environment\n")).toBe(true)
    expect(text).toContain(`Working directory: ${path.resolve(cwd)}`)
  })
})
