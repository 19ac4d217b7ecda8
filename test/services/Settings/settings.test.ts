/**
 * Settings sources, precedence, trust and malformed files (claude-code-spec §1.1, §1.2), from
 * real files in a temporary project. Malformed files: an error names the file and the field,
 * the other sources still load, and nothing broken ever turns into an allow.
 */
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Settings from "../../../src/services/Settings.js"
import { unknownToolWarnings } from "../../../src/PermissionRules.js"
import * as F from "../Permissions/fixture.js"

const load = (options: Settings.SettingsOptions, env: Record<string, string> = {}) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const settings = yield* Settings.Settings
      return yield* settings.current
    }).pipe(
      Effect.provide(Settings.layer(options)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    )
  )

const loadEither = (options: Settings.SettingsOptions) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const settings = yield* Settings.Settings
      return yield* settings.current
    }).pipe(Effect.provide(Settings.layer(options)), Effect.either)
  )

const writeRaw = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

describe("Settings", () => {
  let fx: F.Fixture
  beforeAll(() => {
    fx = F.makeFixture()
  })
  afterAll(() => fx.cleanup())

  const projectFile = () => fx.p(".claude", "settings.json")
  const opts = (extra: Partial<Settings.SettingsOptions> = {}) =>
    F.settingsOptions(fx, { trustProject: true, ...extra })

  describe("broken files fail closed: nothing loads, the error names the file and the place in it", () => {
    const variants: ReadonlyArray<{ readonly name: string; readonly text: string; readonly problem: RegExp }> = [
      { name: "truncated JSON", text: "{\"permissions\": {\"deny\": [\"Bash\"]", problem: /invalid JSON/ },
      { name: "an empty file", text: "", problem: /invalid JSON/ },
      { name: "a trailing comma", text: "{\"permissions\": {\"deny\": [\"Bash\",]}}", problem: /invalid JSON/ },
      { name: "a JSON array", text: "[\"WebSearch\"]", problem: /must be a JSON object, got an array/ },
      { name: "a JSON string", text: "\"allow everything\"", problem: /must be a JSON object, got a string/ },
      { name: "null", text: "null", problem: /must be a JSON object, got null/ },
      { name: "permissions is an array", text: "{\"permissions\": [\"Bash\"]}", problem: /^permissions: Expected/ },
      { name: "permissions is a string", text: "{\"permissions\": \"deny all\"}", problem: /^permissions: Expected/ },
      {
        name: "deny is a string",
        text: "{\"permissions\": {\"deny\": \"Bash\"}}",
        problem: /^permissions\.deny: Expected/
      },
      {
        name: "deny is an object",
        text: "{\"permissions\": {\"deny\": {\"Bash\": true}}}",
        problem: /^permissions\.deny: Expected/
      },
      {
        name: "deny has a number",
        text: "{\"permissions\": {\"deny\": [\"WebSearch\", \"Bash\", 3]}}",
        problem: /^permissions\.deny\[2\]: Expected string, actual 3/
      },
      {
        name: "ask has null",
        text: "{\"permissions\": {\"ask\": [null]}}",
        problem: /^permissions\.ask\[0\]: Expected string, actual null/
      },
      {
        name: "allow is a string",
        text: "{\"permissions\": {\"allow\": \"WebSearch\"}}",
        problem: /^permissions\.allow: Expected/
      },
      {
        name: "an unknown defaultMode",
        text: "{\"permissions\": {\"defaultMode\": \"yolo\"}}",
        problem: /^permissions\.defaultMode: Expected one of "default", /
      },
      {
        name: "defaultMode is a number",
        text: "{\"permissions\": {\"defaultMode\": 1}}",
        problem: /^permissions\.defaultMode: /
      },
      {
        name: "additionalDirectories is a string",
        text: "{\"permissions\": {\"additionalDirectories\": \"/\"}}",
        problem: /^permissions\.additionalDirectories: Expected/
      },
      {
        name: "disableBypassPermissionsMode is true",
        text: "{\"permissions\": {\"disableBypassPermissionsMode\": true}}",
        problem: /^permissions\.disableBypassPermissionsMode: Expected "disable"/
      },
      {
        name: "allowManagedPermissionRulesOnly is a string",
        text: "{\"allowManagedPermissionRulesOnly\": \"yes\"}",
        problem: /^allowManagedPermissionRulesOnly: Expected boolean/
      },
      {
        name: "two problems",
        text: "{\"permissions\": {\"deny\": [1], \"ask\": \"x\"}}",
        problem: /\(and 1 more problem\)$/
      }
    ]

    const brokenOf = async (options: Settings.SettingsOptions) => {
      const result = await loadEither(options)
      if (Either.isRight(result)) throw new Error("the load should have failed")
      if (result.left._tag !== "BrokenSettings") {
        throw new Error(`expected BrokenSettings, got ${result.left._tag}: ${result.left.message}`)
      }
      return result.left
    }

    it.each(variants.map((v) => [v.name, v] as const))("project settings with %s", async (_, v) => {
      F.writeSettings(fx, { user: { permissions: { deny: ["WebFetch"] } } })
      writeRaw(projectFile(), v.text)
      const error = await brokenOf(opts())
      expect(error.file).toBe(projectFile())
      expect(error.problem).toMatch(v.problem)
      expect(error.message).toContain(projectFile())
      expect(error.message.split("\n")).toHaveLength(1)
    })

    it.each(
      [
        ["managed", () => path.join(fx.managed, "managed-settings.json")],
        ["managed drop-in", () => path.join(fx.managed, "managed-settings.d", "10-team.json")],
        ["local", () => fx.p(".claude", "settings.local.json")],
        ["user", () => path.join(fx.userConfigDir, "settings.json")]
      ] as const
    )("a broken %s file fails the load too", async (_, file) => {
      F.writeSettings(fx, {})
      writeRaw(file(), "{\"permissions\": {\"deny\": \"Bash\"}}")
      try {
        const error = await brokenOf(opts())
        expect(error.file).toBe(file())
        expect(error.problem).toMatch(/^permissions\.deny: /)
      } finally {
        fs.rmSync(file(), { force: true })
      }
    })

    it("an untrusted project's broken file still fails the load (its deny rules apply untrusted too)", async () => {
      F.writeSettings(fx, {})
      writeRaw(projectFile(), "{\"permissions\": {\"deny\": [\"Bash\"], \"allow\": 5}}")
      expect((await brokenOf(F.settingsOptions(fx, { trustProject: false }))).problem).toMatch(/^permissions\.allow: /)
    })

    it("a settings path that cannot be read is broken", async () => {
      F.writeSettings(fx, {})
      fs.mkdirSync(projectFile(), { recursive: true })
      try {
        const error = await brokenOf(opts())
        expect(error.file).toBe(projectFile())
        expect(error.problem).toMatch(/cannot read/)
      } finally {
        fs.rmSync(projectFile(), { recursive: true, force: true })
      }
    })

    it("--settings with bad JSON or a bad field is broken; a missing file is a bad request", async () => {
      F.writeSettings(fx, {})
      const inline = await brokenOf(opts({ settings: ["{\"permissions\": "] }))
      expect(inline.file).toBe("--settings")
      expect(inline.problem).toMatch(/invalid JSON/)
      const file = path.join(fx.root, "flag-broken.json")
      writeRaw(file, "{\"permissions\": {\"ask\": {}}}")
      expect((await brokenOf(opts({ settings: [file] }))).file).toBe(file)
      const missing = await loadEither(opts({ settings: [path.join(fx.root, "nope.json")] }))
      expect(Either.isLeft(missing) && missing.left._tag === "BadRequest" && missing.left.message).toMatch(
        /--settings: file not found/
      )
    })

    it("accepts a UTF-8 byte order mark, keys it does not know, and the manual alias", async () => {
      F.writeSettings(fx, {})
      writeRaw(
        projectFile(),
        "\ufeff{\"permissions\": {\"deny\": [\"WebSearch\"], \"defaultMode\": \"manual\", \"futureKey\": 1}, \"hooks\": {}, \"somethingNew\": [1]}"
      )
      const loaded = await load(opts())
      expect(loaded.rules.map((r) => r.raw)).toEqual(["WebSearch"])
      expect(loaded.mode).toBe("default")
      expect(loaded.value("somethingNew")).toEqual([1])
    })
  })

  describe("a rule that cannot be parsed fails closed (deny and ask rules make the tool ask)", () => {
    const cases: ReadonlyArray<{ readonly rule: string; readonly behavior: "deny" | "ask"; readonly asks: string }> = [
      { rule: "Bash(rm:*", behavior: "deny", asks: "Bash" },
      { rule: "Bash (rm -rf:*)", behavior: "deny", asks: "Bash" },
      { rule: "Read(.env", behavior: "deny", asks: "Read" },
      { rule: "WebFetch(example.com)", behavior: "deny", asks: "WebFetch" },
      { rule: "Edit)", behavior: "ask", asks: "Edit" },
      { rule: "mcp__srv__*(x)", behavior: "deny", asks: "mcp__srv__*" },
      { rule: "Web Search", behavior: "deny", asks: "*" },
      { rule: "(rm)", behavior: "deny", asks: "*" }
    ]
    it.each(cases.map((c) => [c.rule, c] as const))("%s", async (_, c) => {
      F.writeSettings(fx, { project: { permissions: { [c.behavior]: [c.rule] } } })
      const loaded = await load(opts())
      const fallback = loaded.rules.find((r) => r.raw === c.rule)
      expect(fallback).toMatchObject({
        toolName: c.asks,
        content: undefined,
        behavior: "ask",
        source: "projectSettings"
      })
      expect(loaded.warnings.join("\n")).toContain(`Permission rule '${c.rule}'`)
      expect(loaded.warnings.join("\n")).toMatch(/fails closed: .* now always asks/)
    })

    it("the named tool asks even under bypassPermissions and a whole-tool allow", async () => {
      F.writeSettings(fx, { project: { permissions: { deny: ["WebSearch(foo"], allow: ["WebSearch"] } } })
      const { decision } = await F.decide(opts(), F.WebSearchTool, { query: "q" }, F.session(fx, "bypassPermissions"))
      expect(decision).toMatchObject({ _tag: "Ask", kind: "rule" })
    })

    it("an allow rule that cannot be parsed is only dropped", async () => {
      F.writeSettings(fx, { project: { permissions: { allow: ["WebSearch(foo"] } } })
      const loaded = await load(opts())
      expect(loaded.rules).toEqual([])
      expect(loaded.warnings.join("\n")).toMatch(/cannot be parsed .*; it is ignored/)
    })
  })

  describe("sources and precedence (§1.1)", () => {
    it("orders sources managed, flag, local, project, user; each rule keeps source and file", async () => {
      const flag = F.writeSettings(fx, {
        managed: { permissions: { deny: ["A"] } },
        flag: { permissions: { deny: ["B"] } },
        local: { permissions: { deny: ["C"] } },
        project: { permissions: { deny: ["D"] } },
        user: { permissions: { deny: ["E"] } }
      })!
      const loaded = await load(opts({ settings: [flag] }))
      expect(loaded.sources.map((s) => s.source)).toEqual([
        "policySettings",
        "flagSettings",
        "localSettings",
        "projectSettings",
        "userSettings"
      ])
      expect(loaded.rules.map((r) => [r.raw, r.source, r.file])).toEqual([
        ["A", "policySettings", path.join(fx.managed, "managed-settings.json")],
        ["B", "flagSettings", flag],
        ["C", "localSettings", fx.p(".claude", "settings.local.json")],
        ["D", "projectSettings", fx.p(".claude", "settings.json")],
        ["E", "userSettings", path.join(fx.userConfigDir, "settings.json")]
      ])
    })

    it("scalars come from the highest source; later managed drop-ins win", async () => {
      F.writeSettings(fx, {
        managedDropIns: { "10-a.json": { model: "drop-in-10" }, "20-b.json": { model: "drop-in-20" } },
        managed: { model: "base", other: "managed" },
        user: { model: "user", userOnly: 1 }
      })
      const loaded = await load(opts())
      expect(loaded.value("model")).toBe("drop-in-20")
      expect(loaded.value("other")).toBe("managed")
      expect(loaded.value("userOnly")).toBe(1)
    })

    it("CLAUDE_CONFIG_DIR and TOOLGATE_MANAGED_SETTINGS_DIR come from the environment", async () => {
      const configDir = path.join(fx.root, "config-dir")
      const managedDir = path.join(fx.root, "managed-env")
      writeRaw(path.join(configDir, "settings.json"), "{\"permissions\": {\"deny\": [\"FromConfigDir\"]}}")
      writeRaw(path.join(managedDir, "managed-settings.json"), "{\"permissions\": {\"deny\": [\"FromManagedEnv\"]}}")
      F.writeSettings(fx, {})
      const loaded = await load({ cwd: fx.proj, home: fx.home }, {
        CLAUDE_CONFIG_DIR: configDir,
        TOOLGATE_MANAGED_SETTINGS_DIR: managedDir
      })
      expect(loaded.rules.map((r) => [r.raw, r.source])).toEqual([
        ["FromManagedEnv", "policySettings"],
        ["FromConfigDir", "userSettings"]
      ])
    })

    it("local settings come from the git root, project settings from the cwd only", async () => {
      F.writeSettings(fx, {
        local: { permissions: { deny: ["RootLocal"] } },
        project: { permissions: { deny: ["RootProject"] } }
      })
      const sub = fx.p("packages", "api")
      writeRaw(path.join(sub, ".claude", "settings.json"), "{\"permissions\": {\"deny\": [\"SubProject\"]}}")
      try {
        const loaded = await load(F.settingsOptions(fx, { cwd: sub, trustProject: true }))
        expect(loaded.rules.map((r) => r.raw).sort()).toEqual(["RootLocal", "SubProject"])
        expect(loaded.localSettingsFile).toBe(fx.p(".claude", "settings.local.json"))
      } finally {
        fs.rmSync(path.join(sub, ".claude"), { recursive: true, force: true })
      }
    })

    it("local settings tracked by git count as project settings for trust", async () => {
      F.writeSettings(fx, { local: { permissions: { allow: ["WebSearch"], deny: ["WebFetch"] } } })
      execFileSync("git", ["-C", fx.proj, "add", "-f", ".claude/settings.local.json"])
      try {
        const untrusted = await load(opts({ trustProject: false }))
        expect(untrusted.rules.map((r) => `${r.behavior}:${r.raw}`)).toEqual(["deny:WebFetch"])
        expect(untrusted.warnings.join("\n")).toMatch(/not trusted/)
        const trusted = await load(opts({ trustProject: true }))
        expect(trusted.rules.map((r) => `${r.behavior}:${r.raw}`).sort()).toEqual(["allow:WebSearch", "deny:WebFetch"])
      } finally {
        execFileSync("git", ["-C", fx.proj, "rm", "-q", "--cached", ".claude/settings.local.json"])
      }
    })

    it("local settings behind a symlinked .claude count as project settings", async () => {
      const other = fs.mkdtempSync(path.join(fx.root, "proj2-"))
      const realClaude = path.join(fx.root, "shared-claude")
      writeRaw(path.join(realClaude, "settings.local.json"), "{\"permissions\": {\"allow\": [\"WebSearch\"]}}")
      fs.symlinkSync(realClaude, path.join(other, ".claude"))
      const loaded = await load({
        cwd: other,
        home: fx.home,
        userConfigDir: fx.userConfigDir,
        managedDir: fx.managed,
        trustProject: false
      })
      expect(loaded.rules.filter((r) => r.behavior === "allow")).toEqual([])
    })

    it("invalid rules are warned about and left out", async () => {
      F.writeSettings(fx, {
        user: {
          permissions: {
            allow: ["*", "mcp__*", "B*", "mcp__github__get_*", "", "Write(/x)"],
            deny: ["Glob(/src/**)", "Bash(command:rm *)", "mcp__*", "NotebookEdit(/a)"]
          }
        }
      })
      const loaded = await load(opts())
      expect(loaded.rules.map((r) => `${r.behavior}:${r.toolName}:${r.raw}`)).toEqual([
        "deny:Read:Glob(/src/**)",
        "deny:mcp__*:mcp__*",
        "deny:Edit:NotebookEdit(/a)",
        "allow:mcp__github__get_*:mcp__github__get_*"
      ])
      const warnings = loaded.warnings.join("\n")
      expect(warnings).toMatch(/'\*' .* tool-name glob in an allow rule/)
      expect(warnings).toMatch(/'B\*'/)
      expect(warnings).toMatch(/is empty/)
      expect(warnings).toMatch(/'Write\(\/x\)' .* never consulted \(use Edit/)
      expect(warnings).toMatch(/'Glob\(\/src\/\*\*\)' .* toolgate applies it as Read\(\/src\/\*\*\)/)
      expect(warnings).toMatch(/'NotebookEdit\(\/a\)' .* toolgate applies it as Edit\(\/a\)/)
      expect(warnings).toMatch(/'Bash\(command:rm \*\)' .* primary field "command"/)
    })

    it("warns about deny rules naming unknown tools (names with _ or * exempt)", () => {
      const rules = [
        { raw: "Raed", toolName: "Raed", content: undefined, behavior: "deny", source: "userSettings", root: "/" },
        { raw: "mcp__x", toolName: "mcp__x", content: undefined, behavior: "deny", source: "userSettings", root: "/" },
        { raw: "Read", toolName: "Read", content: undefined, behavior: "deny", source: "userSettings", root: "/" }
      ] as const
      expect(unknownToolWarnings(rules, ["Read", "Bash"])).toEqual([
        "Permission rule 'Raed' from userSettings names an unknown tool Raed"
      ])
    })

    it("--permission-mode bypassPermissions is refused when disabled", async () => {
      F.writeSettings(fx, { managed: { permissions: { disableBypassPermissionsMode: "disable" } } })
      const result = await loadEither(opts({ permissionMode: "bypassPermissions" }))
      expect(Either.isLeft(result) && result.left.message).toMatch(/bypassPermissions is disabled/)
    })

    it("--add-dir must be an existing directory", async () => {
      F.writeSettings(fx, {})
      const result = await loadEither(opts({ addDirs: [path.join(fx.root, "missing")] }))
      expect(Either.isLeft(result) && result.left.message).toMatch(/--add-dir: not a directory/)
    })

    it("splitToolList splits on commas and spaces outside parentheses", () => {
      expect(Settings.splitToolList(["Bash(git log:*) Edit,Read", "Bash(npm run test, lint)"])).toEqual([
        "Bash(git log:*)",
        "Edit",
        "Read",
        "Bash(npm run test, lint)"
      ])
    })
  })

  describe("addRules", () => {
    it("saves to settings.local.json atomically and applies at once", async () => {
      F.writeSettings(fx, { local: { permissions: { allow: ["Read"] }, other: true } })
      const result = await Effect.runPromise(
        Effect.gen(function*() {
          const settings = yield* Settings.Settings
          yield* settings.addRules(["WebSearch", "Read", "*"], "allow", "localSettings")
          yield* settings.addRules(["WebFetch(domain:example.com)"], "allow", "session")
          return yield* settings.current
        }).pipe(Effect.provide(Settings.layer(opts())))
      )
      const saved = JSON.parse(fs.readFileSync(fx.p(".claude", "settings.local.json"), "utf8"))
      expect(saved).toEqual({ permissions: { allow: ["Read", "WebSearch", "*"] }, other: true })
      const added = result.rules.filter((r) => r.source === "session" || r.raw === "WebSearch")
      expect(added.map((r) => [r.raw, r.source])).toEqual([
        ["WebSearch", "localSettings"],
        ["WebFetch(domain:example.com)", "session"]
      ])
      // the glob allow was saved verbatim (it is the user's file) but is not usable
      expect(result.rules.some((r) => r.raw === "*")).toBe(false)
      expect(result.warnings.join("\n")).toMatch(/tool-name glob/)
      expect(fs.readdirSync(fx.p(".claude")).filter((f) => f.endsWith(".tmp"))).toEqual([])
    })

    it("layerStatic applies session rules in memory", async () => {
      const loaded = await Effect.runPromise(
        Effect.gen(function*() {
          const settings = yield* Settings.Settings
          yield* settings.addRules(["WebSearch"], "allow", "session")
          return yield* settings.current
        }).pipe(Effect.provide(Layer.fresh(Settings.layerStatic({ cwd: fx.proj }))))
      )
      expect(loaded.rules.map((r) => [r.raw, r.source])).toEqual([["WebSearch", "session"]])
    })
  })
})
