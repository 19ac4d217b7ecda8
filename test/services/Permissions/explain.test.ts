/**
 * `permissions check` explanations (issue 4 item 8): the final decision after the mode's part,
 * the deciding rule with source and file, and what the mode did — through the real layers.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { permissionsCheck, type Explanation } from "../../../src/cli/permissionsCheck.js"
import type { AnyTool } from "../../../src/Tool.js"
import type { PermissionMode } from "../../../src/Permission.js"
import * as FileState from "../../../src/services/FileState.js"
import * as Permissions from "../../../src/services/Permissions.js"
import * as Settings from "../../../src/services/Settings.js"
import * as F from "./fixture.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"

describe("permissionsCheck / explainDecision", () => {
  let fx: F.Fixture
  beforeAll(() => {
    fx = F.makeFixture()
  })
  afterAll(() => fx.cleanup())

  const check = (
    tool: AnyTool,
    input: unknown,
    mode: PermissionMode,
    files: F.SettingsFiles = {}
  ): Promise<Explanation> => {
    F.writeSettings(fx, F.fillDeep(fx, files))
    const options = F.settingsOptions(fx, { trustProject: true })
    return Effect.runPromise(
      Effect.gen(function*() {
        const loaded = yield* (yield* Settings.Settings).current
        return yield* permissionsCheck({ tool, input, session: F.session(fx, mode) }, {
          bypassDisabled: loaded.bypassDisabled === true
        })
      }).pipe(
        Effect.provide(
          Permissions.layer.pipe(
            Layer.provideMerge(Layer.mergeAll(Settings.layer(options), FileState.layer, layerSharedShellAnalyzer))
          )
        )
      )
    )
  }

  it("a deny names the rule, its source and its file", async () => {
    const e = await check(F.ReadTool, { file_path: fx.p(".env") }, "default", {
      project: { permissions: { deny: ["Read(.env)"] } }
    })
    expect(e.json.decision).toBe("deny")
    expect(e.json.message).toBe(`Permission to read ${fx.p(".env")} has been denied.`)
    expect(e.json.rule).toEqual({
      rule: "Read(.env)",
      behavior: "deny",
      source: "projectSettings",
      file: fx.p(".claude", "settings.json")
    })
    expect(e.text.split("\n")[0]).toBe("deny")
    expect(e.text).toContain(`rule:    'Read(.env)' (deny) from projectSettings (${fx.p(".claude", "settings.json")})`)
    expect(e.text).toMatch(/^mode: {4}default: no part/m)
  })

  it("an ask shows whether it is forced and what always-allow would save", async () => {
    const e = await check(F.ReadTool, { file_path: `${fx.outside}/file.txt` }, "default")
    expect(e.json).toMatchObject({
      decision: "ask",
      stageDecision: "ask",
      forced: false,
      suggestions: [`Read(/${fx.outside}/**)`]
    })
    expect(e.text).toContain(`always allow would save: Read(/${fx.outside}/**)`)
    const forced = await check(
      F.EditTool,
      { file_path: fx.p(".git", "config"), old_string: "a", new_string: "b" },
      "acceptEdits"
    )
    expect(forced.json).toMatchObject({ decision: "ask", forced: true })
    expect(forced.json.modePart).toMatch(/forced/)
  })

  it("dontAsk: the final decision is a deny with Claude Code's text", async () => {
    const e = await check(F.WebSearchTool, { query: "q" }, "dontAsk")
    expect(e.json.stageDecision).toBe("ask")
    expect(e.json.decision).toBe("deny")
    expect(e.json.message).toMatch(
      /^Permission to use WebSearch has been denied because Claude Code is running in don't ask mode\. IMPORTANT: You \*may\* attempt/
    )
    expect(e.json.modePart).toBe("dontAsk turns this ask into a denial.")
    expect(e.text.split("\n")[0]).toBe("deny (the permission stage says ask)")
  })

  it("a decision made by the mode says so", async () => {
    const e = await check(F.WriteTool, { file_path: fx.p("src", "n.ts"), content: "x" }, "acceptEdits")
    expect(e.json.decision).toBe("allow")
    expect(e.json.modePart).toMatch(/^decided by the mode\. acceptEdits:/)
    const b = await check(F.WebSearchTool, { query: "q" }, "bypassPermissions")
    expect(b.json.modePart).toMatch(/^decided by the mode\. bypassPermissions:/)
  })

  it("a disabled bypassPermissions is explained", async () => {
    const e = await check(F.WebSearchTool, { query: "q" }, "bypassPermissions", {
      managed: { permissions: { disableBypassPermissionsMode: "disable" } }
    })
    expect(e.json.decision).toBe("ask")
    expect(e.json.modePart).toMatch(
      /bypassPermissions is disabled by permissions\.disableBypassPermissionsMode, so default applies/
    )
  })

  it("invisible characters are shown escaped in the text", async () => {
    const e = await check(F.ReadTool, { file_path: `${fx.outside}/a\u200bb.txt` }, "default")
    expect(e.text).toContain("a\\u200bb.txt")
    expect(e.text).not.toContain("\u200b")
  })

  it("the JSON form is plain data", async () => {
    const e = await check(F.AgentTool, { description: "d", prompt: "p", subagent_type: "Explore" }, "default", {
      user: { permissions: { deny: ["Task(Explore)"] } }
    })
    expect(JSON.parse(JSON.stringify(e.json))).toEqual(e.json)
    expect(e.json).toMatchObject({
      tool: "Agent",
      decision: "deny",
      message: "Agent type 'Explore' has been denied by permission rule 'Task(Explore)' from userSettings.",
      rule: { rule: "Task(Explore)", behavior: "deny", source: "userSettings" }
    })
  })
})
