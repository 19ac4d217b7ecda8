/**
 * Hook configuration from every settings source (claude-code-spec §2.1): merge, dedupe,
 * disableAllHooks, allowManagedHooksOnly, handler fields.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { readHookConfig } from "../../../src/services/Hooks/config.js"
import type { SettingsSource } from "../../../src/services/Settings.js"
import { bashTool, cmd, hooksSettings, makeProject, preToolUse, removeProject, type SourceSpec } from "./support.js"

const source = (s: SettingsSource["source"], settings: Record<string, unknown>): SettingsSource => ({
  source: s,
  file: `/etc/${s}.json`,
  root: "/",
  settings
})

describe("readHookConfig", () => {
  it("reads handlers of every source with their fields and defaults", () => {
    const config = readHookConfig([
      source("localSettings", hooksSettings("PreToolUse", "Bash", [cmd("a.sh", { timeout: 5, if: "Bash(git *)" })])),
      source(
        "userSettings",
        hooksSettings("PostToolUse", "Write", [cmd("b", { args: ["x", "${CLAUDE_PROJECT_DIR}"], async: true })])
      )
    ])
    expect(config.notices).toEqual([])
    expect(config.handlers).toEqual([
      {
        event: "PreToolUse",
        matcher: "Bash",
        command: "a.sh",
        args: undefined,
        shell: "bash",
        timeoutMs: 5000,
        if: "Bash(git *)",
        async: false,
        source: "localSettings",
        file: "/etc/localSettings.json"
      },
      {
        event: "PostToolUse",
        matcher: "Write",
        command: "b",
        args: ["x", "${CLAUDE_PROJECT_DIR}"],
        shell: "bash",
        timeoutMs: 600_000,
        if: undefined,
        async: true,
        source: "userSettings",
        file: "/etc/userSettings.json"
      }
    ])
  })

  it("ignores other handler types and malformed entries with a notice naming the file and field", () => {
    const config = readHookConfig([
      source("projectSettings", {
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "http", url: "http://x" }, { type: "command" }, cmd("ok"), cmd("x", { args: [1] })]
            },
            "nonsense"
          ],
          PostToolBatch: [{ hooks: [cmd("never", { if: "Bash(ls)" })] }],
          SessionStart: [{ matcher: "startup", hooks: [cmd("a session event")] }],
          Setup: [{ hooks: [cmd("an event toolgate never fires")] }]
        }
      })
    ])
    expect(config.handlers.map((h) => [h.command, h.matcher])).toEqual([["ok", "Bash"], ["a session event", "startup"]])
    expect(config.notices).toEqual([
      "/etc/projectSettings.json: field \"hooks.PreToolUse[0].hooks[0]\": hook type \"http\" is not supported by toolgate; ignored",
      "/etc/projectSettings.json: field \"hooks.PreToolUse[0].hooks[1].command\" must be a non-empty string; ignored",
      "/etc/projectSettings.json: field \"hooks.PreToolUse[0].hooks[3].args\" must be an array of strings; ignored",
      "/etc/projectSettings.json: field \"hooks.PreToolUse[1]\" must be an object with a \"hooks\" array; ignored",
      "/etc/projectSettings.json: field \"hooks.PostToolBatch[0].hooks[0]\": \"if\" is only supported on tool events; this hook never runs"
    ])
  })

  it("a non-object hooks field is a notice", () => {
    expect(readHookConfig([source("userSettings", { hooks: [1] })]).notices).toEqual([
      "/etc/userSettings.json: field \"hooks\" must be an object; ignored"
    ])
  })

  it("matchers of PostToolBatch are ignored", () => {
    const config = readHookConfig([source("userSettings", hooksSettings("PostToolBatch", "Bash", [cmd("x")]))])
    expect(config.handlers[0]?.matcher).toBeUndefined()
  })

  const pre = (command: string) => hooksSettings("PreToolUse", "*", [cmd(command)])
  const commands = (sources: ReadonlyArray<SettingsSource>) => readHookConfig(sources).handlers.map((h) => h.command)

  it("disableAllHooks in a non-managed source turns off non-managed hooks only", () => {
    expect(
      commands([
        source("policySettings", pre("managed")),
        source("projectSettings", { ...pre("project"), disableAllHooks: true }),
        source("userSettings", pre("user"))
      ])
    ).toEqual(["managed"])
  })

  it("the highest non-managed source decides disableAllHooks", () => {
    expect(
      commands([
        source("localSettings", { ...pre("local"), disableAllHooks: false }),
        source("userSettings", { ...pre("user"), disableAllHooks: true })
      ])
    ).toEqual(["local", "user"])
  })

  it("a managed disableAllHooks turns off every hook", () => {
    expect(
      commands([
        source("policySettings", { ...pre("managed"), disableAllHooks: true }),
        source("userSettings", pre("user"))
      ])
    ).toEqual([])
  })

  it("allowManagedHooksOnly (managed) keeps only managed hooks; elsewhere it means nothing", () => {
    expect(
      commands([
        source("policySettings", { ...pre("managed"), allowManagedHooksOnly: true }),
        source("userSettings", pre("user"))
      ])
    ).toEqual(["managed"])
    expect(
      commands([
        source("projectSettings", { ...pre("project"), allowManagedHooksOnly: true }),
        source("userSettings", pre("user"))
      ])
    ).toEqual([
      "project",
      "user"
    ])
  })
})

describe("deduplication (shell + command + if)", () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })
  afterEach(() => removeProject(project))

  it.live("the same handler in several sources runs once; a different `if` makes it another hook", () =>
    Effect.gen(function*() {
      const count = path.join(project, "count")
      const command = `echo run >> ${count}`
      const sources: Array<SourceSpec> = [
        { source: "localSettings", settings: hooksSettings("PreToolUse", "Bash", [cmd(command)]) },
        { source: "projectSettings", settings: hooksSettings("PreToolUse", "*", [cmd(command)]) },
        { source: "userSettings", settings: hooksSettings("PreToolUse", "Bash", [cmd(command, { timeout: 30 })]) }
      ]
      yield* preToolUse(project, sources, bashTool, { command: "ls" })
      expect(fs.readFileSync(count, "utf8")).toBe("run\n")

      fs.rmSync(count)
      const withIf: Array<SourceSpec> = [...sources, {
        source: "userSettings",
        settings: hooksSettings("PreToolUse", "Bash", [cmd(command, { if: "Bash(ls)" })])
      }]
      yield* preToolUse(project, withIf, bashTool, { command: "ls" })
      expect(fs.readFileSync(count, "utf8")).toBe("run\nrun\n")
    }))
})
