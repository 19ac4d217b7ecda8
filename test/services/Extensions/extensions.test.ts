import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { Extensions, layer as extensionsLayer, loadExtensions } from "../../../src/services/Extensions.js"
import { listValue, parseFrontMatter } from "../../../src/internal/frontMatter.js"
import { makeRule } from "../../../src/PermissionRules.js"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import * as Settings from "../../../src/services/Settings.js"
import { ToolRegistry } from "../../../src/services/ToolRegistry.js"
import { newSession } from "../../../src/Session.js"
import { ReadTool } from "../../../src/tools/Read.js"
import { makeSkillTool } from "../../../src/tools/Skill.js"
import { testRuntime, toolUse } from "../../support/runtime.js"
import { makeExtensionSandbox } from "./support.js"
import * as Permission from "../../../src/Permission.js"

const box = makeExtensionSandbox({ userSkills: true })
afterAll(() => box.cleanup())

const BUILTINS = new Set(["Read", "Bash", "Edit"])

describe("loading skills and custom tools from a project folder", () => {
  it.effect("finds skills (user wins a name clash) and loads the custom tools of a trusted project", () =>
    Effect.gen(function*() {
      const loaded = yield* loadExtensions(
        {
          projectDir: box.project,
          userConfigDir: box.userConfigDir,
          toolgateDir: box.toolgateDir,
          trustProject: true,
          skillTool: makeSkillTool
        },
        BUILTINS
      )
      expect(loaded.skills.map((s) => `${s.name}:${s.source}`)).toEqual([
        "manual-only:project",
        "personal:user",
        "release-notes:user",
        "word-tools:project"
      ])
      expect(loaded.tools.map((t) => t.name)).toEqual(["Greet", "EmptyStruct", "WordCount", "Shout"])
      expect(loaded.origins.get("Shout")).toBe(path.join(box.project, ".claude", "skills", "word-tools", "index.js"))
      expect(loaded.skillTool?.name).toBe("Skill")
      const warnings = loaded.warnings.join("\n")
      const tools = path.join(box.project, ".toolgate", "tools")
      expect(warnings).toContain(
        `custom tool module ${path.join(tools, "broken.mjs")} was skipped: it failed to load: boom at load time`
      )
      expect(warnings).toContain(
        `custom tool Read from ${
          path.join(tools, "impostors.mjs")
        } was skipped: a built-in tool has this name (built-ins cannot be replaced)`
      )
      expect(warnings).toContain(
        `custom tool bad name! from ${
          path.join(tools, "impostors.mjs")
        } was skipped: its name "bad name!" must be 1-64 letters, digits, '_' or '-'`
      )
      expect(warnings).toContain("custom tool NotAnObject from")
      expect(warnings).toContain("its input schema must describe an object (type \"object\"), not \"string\"")
      expect(warnings).toContain("custom tool NoDescription from")
      expect(warnings).toContain("it has no description")
      expect(warnings).not.toContain("custom tool EmptyStruct from")
      expect(warnings).toContain(
        `skill ${
          path.join(box.project, ".claude", "skills", "release-notes", "SKILL.md")
        } was skipped: the skill release-notes is already defined by ${
          path.join(box.userConfigDir, "skills", "release-notes", "SKILL.md")
        }`
      )
      expect(warnings).toContain("its name \"Bad_Name\" must be lower-case letters, digits and hyphens")
      expect(warnings).not.toContain("helpers must not be loaded")
    }))

  it.effect("an untrusted project's modules are not run; its skills still load", () =>
    Effect.gen(function*() {
      const loaded = yield* loadExtensions(
        {
          projectDir: box.project,
          userConfigDir: path.join(box.root, "nobody"),
          toolgateDir: box.toolgateDir,
          trustProject: false,
          skillTool: makeSkillTool
        },
        BUILTINS
      )
      expect(loaded.tools).toEqual([])
      expect(loaded.skills.map((s) => s.name)).toEqual(["manual-only", "release-notes", "word-tools"])
      expect(loaded.warnings.join("\n")).toContain(
        "custom tool module(s) of the project were not loaded because the project is not trusted (use --trust-project)"
      )
    }))

  it.effect("the user's own tools folder loads without trust", () =>
    Effect.gen(function*() {
      const home = path.join(box.root, "user-tools-home")
      fs.mkdirSync(path.join(home, "tools"), { recursive: true })
      fs.copyFileSync(path.join(box.project, ".toolgate", "tools", "greet.mjs"), path.join(home, "tools", "greet.mjs"))
      const loaded = yield* loadExtensions({
        projectDir: path.join(box.root, "empty"),
        userConfigDir: path.join(box.root, "nobody"),
        toolgateDir: home,
        trustProject: false,
        skillTool: makeSkillTool
      }, BUILTINS)
      expect(loaded.tools.map((t) => t.name)).toEqual(["Greet"])
      expect(loaded.skillTool).toBeUndefined()
      expect(loaded.warnings).toEqual([])
    }))
})

describe("skills and custom tools through the real pipeline", () => {
  const cwd = box.project
  const rules = [
    makeRule("WordCount", "allow", "session", cwd),
    makeRule("Skill(release-notes *)", "allow", "session", cwd),
    makeRule("Skill(personal)", "allow", "session", cwd)
  ]
  const base = testRuntime({
    tools: [ReadTool],
    cwd,
    settings: Settings.layerStatic({ cwd, rules, userConfigDir: box.userConfigDir })
  })
  const runtime = extensionsLayer({
    toolgateDir: box.toolgateDir,
    trustProject: true,
    reportWarnings: false,
    skillTool: makeSkillTool
  }).pipe(Layer.provideMerge(base))
  const session = newSession({ cwd, permissionMode: "default", sessionDir: path.join(box.root, "session") })
  const call = (name: string, input: unknown) =>
    Effect.gen(function*() {
      const pipeline = yield* CallPipeline
      return yield* pipeline.run(yield* pipeline.prepare(toolUse("toolu_x", name, input), 0), { session })
    })

  it.layer(runtime)((it) => {
    it.effect("the pool has the built-ins first, then the custom tools and Skill; a built-in keeps its name", () =>
      Effect.gen(function*() {
        const pool = yield* (yield* ToolRegistry).pool
        expect(pool.tools.map((t) => t.name)).toEqual(["Read", "EmptyStruct", "Greet", "Shout", "Skill", "WordCount"])
        expect(pool.lookup("Read")).toBe(ReadTool)
        expect(pool.apiSchemas.find((s) => s.name === "Greet")?.input_schema).toMatchObject({
          type: "object",
          required: ["name"],
          properties: { name: { type: "string", description: "Who to greet" } }
        })
        const ext = yield* Extensions
        expect(ext.loaded.warnings.length).toBeGreaterThan(0)
      }))

    it.effect("a factory-made custom tool runs (its own checkPermissions allows it)", () =>
      Effect.gen(function*() {
        const outcome = yield* call("Greet", { name: "Ada" })
        expect(outcome.result).toEqual({ type: "tool_result", tool_use_id: "toolu_x", content: "Hello, Ada!" })
        const strict = yield* call("Greet", { name: "Ada", extra: true })
        expect(strict.result.content).toContain("An unexpected parameter `extra` was provided")
        expect((yield* call("Shout", { text: "quiet" })).result.content).toBe("QUIET")
      }))

    it.effect("a plain custom tool runs under an allow rule, validates with its JSON Schema, and reports its errors", () =>
      Effect.gen(function*() {
        expect((yield* call("WordCount", { text: "one two  three" })).result.content).toBe(`3 words (cwd ${cwd})`)
        const missing = yield* call("WordCount", {})
        expect(missing.result.content).toBe(
          "<tool_use_error>InputValidationError: WordCount failed due to the following issue:\nThe required parameter `text` is missing</tool_use_error>"
        )
        const wrongType = yield* call("WordCount", { text: 3 })
        expect(wrongType.result.content).toContain(
          "The parameter `text` type is expected as `string` but provided as `number`"
        )
        const failed = yield* call("WordCount", { text: "fail" })
        expect(failed.result).toMatchObject({ content: "cannot count the word fail", is_error: true })
      }))

    it.effect("the Skill tool launches a skill: the result names it, the instructions follow as a user message", () =>
      Effect.gen(function*() {
        const outcome = yield* call("Skill", { skill: "personal" })
        expect(outcome.result).toEqual({
          type: "tool_result",
          tool_use_id: "toolu_x",
          content: "Launching skill: personal"
        })
        expect(outcome.newMessages).toEqual([
          {
            role: "user",
            content: [{
              type: "text",
              text: `Base directory for this skill: ${
                path.join(box.userConfigDir, "skills", "personal")
              }\n\nPersonal instructions.`
            }]
          }
        ])
        const withArgs = yield* call("Skill", { skill: "/release-notes", args: "2.0.0 final" })
        expect(withArgs.result.content).toBe("Launching skill: release-notes")
        const text = (withArgs.newMessages[0] as { content: Array<{ text: string }> }).content[0]!.text
        expect(text).toContain("User version: 2.0.0 final")
      }))

    it.effect("skills need permission (Skill(name) rules), unknown and user-only skills are refused", () =>
      Effect.gen(function*() {
        const denied = yield* call("Skill", { skill: "word-tools" })
        expect(denied.error?._tag).toBe("PermissionDenied")
        expect(Permission.behaviorOf(denied.decision!)).toBe("ask")
        const unknown = yield* call("Skill", { skill: "nope" })
        expect(unknown.result.content).toBe("<tool_use_error>Unknown skill: nope</tool_use_error>")
        const manual = yield* call("Skill", { skill: "manual-only" })
        expect(manual.result.content).toBe(
          "<tool_use_error>Skill manual-only cannot be used with Skill tool due to disable-model-invocation</tool_use_error>"
        )
      }))
  })
})

describe("skill instructions and front matter", () => {
  it.effect("substitutes $ARGUMENTS, $ARGUMENTS[N] and ${CLAUDE_SKILL_DIR}; arguments with no placeholder are appended", () =>
    Effect.gen(function*() {
      const loaded = yield* loadExtensions({
        projectDir: box.project,
        userConfigDir: path.join(box.root, "nobody"),
        toolgateDir: box.toolgateDir,
        trustProject: false,
        skillTool: makeSkillTool
      }, BUILTINS)
      const { skillInstructions } = yield* Effect.promise(() => import("../../../src/tools/Skill.js"))
      const notes = loaded.skills.find((s) => s.name === "release-notes")!
      expect(notes.allowedTools).toEqual(["Bash(git log *)", "Read"])
      expect(notes.argumentHint).toBe("<version>")
      const text = skillInstructions(notes, "3.1 \"with notes\"", "sess-1")
      expect(text).toContain("Write the release notes for version 3.1 \"with notes\" (major: 3.1).")
      expect(text).toContain(`Use the template in ${notes.dir}/template.md.`)
      const words = loaded.skills.find((s) => s.name === "word-tools")!
      expect(words.description).toBe("Tools for words: a Shout tool that upper-cases text.")
      expect(words.allowedTools).toEqual(["Shout"])
      expect(skillInstructions(words, "loud", "s")).toMatch(
        /Use the Shout tool to upper-case text\.\n\nARGUMENTS: loud$/
      )
    }))

  it("parses the front matter subset skills use", () => {
    const parsed = parseFrontMatter(`---
name: demo # a comment
description: "Quoted: with colon"
list: [a, "b c"]
flag: true
block: |
  line one
  line two
---
Body here`)
    expect(parsed.data).toEqual({
      name: "demo",
      description: "Quoted: with colon",
      list: ["a", "b c"],
      flag: true,
      block: "line one\nline two"
    })
    expect(parsed.body).toBe("Body here")
    expect(parseFrontMatter("no front matter").body).toBe("no front matter")
    expect(listValue("Bash(git add *), Read Grep")).toEqual(["Bash(git add *)", "Read", "Grep"])
  })
})
