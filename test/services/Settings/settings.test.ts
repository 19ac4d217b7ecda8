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
import { unknownToolWarnings } from "../../../src/services/Permissions/ruleValidation.js"
import * as F from "../Permissions/fixture.js"

const load = (options: Settings.SettingsOptions, env: Record<string, string> = {}) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const settings = yield* Settings.Settings
      return yield* settings.current
    }).pipe(Effect.provide(Settings.layer(options)), Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )

const loadEither = (options: Settings.SettingsOptions) =>
  Effect.runPromise(
    Effect.gen(function* () {
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
  const opts = (extra: Partial<Settings.SettingsOptions> = {}) => F.settingsOptions(fx, { trustProject: true, ...extra })

  describe("malformed files (issue 4: Bad input)", () => {
    const variants: ReadonlyArray<{ readonly name: string; readonly text: string; readonly field: RegExp }> = [
      { name: "bad JSON", text: '{"permissions": {"allow": ["WebSearch"]', field: /invalid JSON/ },
      { name: "empty file", text: "", field: /invalid JSON/ },
      { name: "a JSON array", text: '["WebSearch"]', field: /must be a JSON object, got an array/ },
      { name: "a JSON string", text: '"allow everything"', field: /must be a JSON object, got a string/ },
      { name: "permissions is an array", text: '{"permissions": ["WebSearch"]}', field: /field "permissions" must be an object/ },
      { name: "allow is a string", text: '{"permissions": {"allow": "WebSearch"}}', field: /field "permissions\.allow" must be an array of strings, got a string/ },
      { name: "allow has a number", text: '{"permissions": {"allow": ["WebSearch", 3]}}', field: /field "permissions\.allow\[1\]" must be a string, got a number/ },
      { name: "deny is an object", text: '{"permissions": {"deny": {"WebFetch": true}, "allow": ["WebSearch"]}}', field: /field "permissions\.deny" must be an array of strings, got an object/ },
      { name: "unknown defaultMode next to an allow", text: '{"permissions": {"defaultMode": "yolo", "allow": ["WebSearch"]}}', field: /field "permissions\.defaultMode" must be one of/ },
      { name: "defaultMode is a number", text: '{"permissions": {"defaultMode": 1, "allow": ["WebSearch"]}}', field: /field "permissions\.defaultMode"/ },
      { name: "additionalDirectories is a string", text: '{"permissions": {"additionalDirectories": "/", "allow": ["WebSearch"]}}', field: /field "permissions\.additionalDirectories" must be an array/ },
      { name: "allowManagedPermissionRulesOnly is a string", text: '{"allowManagedPermissionRulesOnly": "yes", "permissions": {"allow": ["WebSearch"]}}', field: /field "allowManagedPermissionRulesOnly" must be a boolean/ }
    ]

    it.each(variants.map((v) => [v.name, v] as const))("project settings with %s: error names file and field; others load; no allow", async (_, v) => {
      F.writeSettings(fx, { user: { permissions: { allow: ["Read(/{o}/**)".replace("{o}", fx.outside)], deny: ["WebFetch"] } } })
      writeRaw(projectFile(), v.text)
      const loaded = await load(opts())
      expect(loaded.errors.length).toBeGreaterThanOrEqual(1)
      const error = loaded.errors[0]!
      expect(error.path).toBe(projectFile())
      expect(error.message).toContain(projectFile())
      expect(error.message).toMatch(v.field)
      // the user's file still loaded
      expect(loaded.rules.some((r) => r.source === "userSettings" && r.behavior === "deny" && r.raw === "WebFetch")).toBe(true)
      expect(loaded.rules.some((r) => r.source === "userSettings" && r.behavior === "allow")).toBe(true)
      // nothing from the broken file allows anything
      expect(loaded.rules.filter((r) => r.file === projectFile() && r.behavior === "allow")).toEqual([])
      const { decision } = await F.decide(opts(), F.WebSearchTool, { query: "q" }, F.session(fx, loaded.mode))
      expect(decision.behavior).not.toBe("allow")
      expect(loaded.mode).toBe("default")
    })

    it("keeps the deny and ask rules of a file with a bad field", async () => {
      F.writeSettings(fx, { project: { permissions: { deny: ["WebSearch", 7], ask: ["WebFetch"], allow: ["Read"] } } })
      const loaded = await load(opts())
      expect(loaded.errors.map((e) => e.message).join("\n")).toMatch(/permissions\.deny\[1\]/)
      expect(loaded.rules.map((r) => `${r.behavior}:${r.raw}`).sort()).toEqual(["ask:WebFetch", "deny:WebSearch"])
      expect(loaded.warnings.join("\n")).toMatch(/allow rule\(s\) ignored because the file has errors/)
    })

    it("ignores a widening defaultMode from a broken file, keeps a restrictive one", async () => {
      F.writeSettings(fx, { project: { permissions: { defaultMode: "bypassPermissions", allow: 5 } } })
      expect((await load(opts())).mode).toBe("default")
      F.writeSettings(fx, { project: { permissions: { defaultMode: "acceptEdits", additionalDirectories: [fx.outside, false] } } })
      const loaded = await load(opts())
      expect(loaded.mode).toBe("default")
      expect(loaded.additionalDirectories).toEqual([])
      F.writeSettings(fx, { project: { permissions: { defaultMode: "plan", allow: "x" } } })
      expect((await load(opts())).mode).toBe("plan")
    })

    it("a bad managed file does not stop the others", async () => {
      F.writeSettings(fx, { user: { permissions: { deny: ["WebSearch"] } } })
      writeRaw(path.join(fx.managed, "managed-settings.json"), "{ not json")
      const loaded = await load(opts())
      expect(loaded.errors[0]!.path).toBe(path.join(fx.managed, "managed-settings.json"))
      const { decision } = await F.decide(opts(), F.WebSearchTool, { query: "q" }, F.session(fx, "default"))
      expect(decision.behavior).toBe("deny")
    })

    it("a settings path that is a directory is an error naming it", async () => {
      F.writeSettings(fx, {})
      fs.mkdirSync(projectFile(), { recursive: true })
      try {
        const loaded = await load(opts())
        expect(loaded.errors[0]!.path).toBe(projectFile())
        expect(loaded.errors[0]!.message).toMatch(/cannot read/)
      } finally {
        fs.rmSync(projectFile(), { recursive: true, force: true })
      }
    })

    it("a wrong disableBypassPermissionsMode value is reported and still forbids bypass", async () => {
      F.writeSettings(fx, { user: { permissions: { disableBypassPermissionsMode: true, defaultMode: "bypassPermissions" } } })
      const loaded = await load(opts())
      expect(loaded.errors[0]!.message).toMatch(/disableBypassPermissionsMode/)
      expect(loaded.bypassDisabled).toBe(true)
      expect(loaded.mode).toBe("default")
    })

    it("accepts a UTF-8 byte order mark", async () => {
      F.writeSettings(fx, {})
      writeRaw(projectFile(), '\ufeff{"permissions": {"deny": ["WebSearch"]}}')
      const loaded = await load(opts())
      expect(loaded.errors).toEqual([])
      expect(loaded.rules.map((r) => r.raw)).toEqual(["WebSearch"])
    })

    it("--settings with bad JSON or a missing file fails the load with a clear error", async () => {
      F.writeSettings(fx, {})
      const bad = await loadEither(opts({ settings: ['{"permissions": '] }))
      expect(Either.isLeft(bad) && bad.left.message).toMatch(/^--settings: invalid JSON/)
      const missing = await loadEither(opts({ settings: [path.join(fx.root, "nope.json")] }))
      expect(Either.isLeft(missing) && missing.left.message).toMatch(/--settings: file not found/)
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
      expect(loaded.sources.map((s) => s.source)).toEqual(["policySettings", "flagSettings", "localSettings", "projectSettings", "userSettings"])
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
      writeRaw(path.join(configDir, "settings.json"), '{"permissions": {"deny": ["FromConfigDir"]}}')
      writeRaw(path.join(managedDir, "managed-settings.json"), '{"permissions": {"deny": ["FromManagedEnv"]}}')
      F.writeSettings(fx, {})
      const loaded = await load({ cwd: fx.proj, home: fx.home }, { CLAUDE_CONFIG_DIR: configDir, TOOLGATE_MANAGED_SETTINGS_DIR: managedDir })
      expect(loaded.rules.map((r) => [r.raw, r.source])).toEqual([
        ["FromManagedEnv", "policySettings"],
        ["FromConfigDir", "userSettings"]
      ])
    })

    it("local settings come from the git root, project settings from the cwd only", async () => {
      F.writeSettings(fx, { local: { permissions: { deny: ["RootLocal"] } }, project: { permissions: { deny: ["RootProject"] } } })
      const sub = fx.p("packages", "api")
      writeRaw(path.join(sub, ".claude", "settings.json"), '{"permissions": {"deny": ["SubProject"]}}')
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
      writeRaw(path.join(realClaude, "settings.local.json"), '{"permissions": {"allow": ["WebSearch"]}}')
      fs.symlinkSync(realClaude, path.join(other, ".claude"))
      const loaded = await load({ cwd: other, home: fx.home, userConfigDir: fx.userConfigDir, managedDir: fx.managed, trustProject: false })
      expect(loaded.rules.filter((r) => r.behavior === "allow")).toEqual([])
    })

    it("invalid rules are warned about and left out", async () => {
      F.writeSettings(fx, {
        user: { permissions: { allow: ["*", "mcp__*", "B*", "mcp__github__get_*", "", "Write(/x)"], deny: ["Glob(/src/**)", "Bash(command:rm *)", "mcp__*", "NotebookEdit(/a)"] } }
      })
      const loaded = await load(opts())
      expect(loaded.rules.map((r) => `${r.behavior}:${r.raw}`)).toEqual(["deny:mcp__*", "allow:mcp__github__get_*"])
      const warnings = loaded.warnings.join("\n")
      expect(warnings).toMatch(/'\*' .* tool-name glob in an allow rule/)
      expect(warnings).toMatch(/'B\*'/)
      expect(warnings).toMatch(/is empty/)
      expect(warnings).toMatch(/'Write\(\/x\)' .* never consulted \(use Edit/)
      expect(warnings).toMatch(/'Glob\(\/src\/\*\*\)' .* never consulted \(use Read/)
      expect(warnings).toMatch(/'NotebookEdit\(\/a\)' .* never consulted/)
      expect(warnings).toMatch(/'Bash\(command:rm \*\)' .* primary field "command"/)
    })

    it("warns about deny rules naming unknown tools (names with _ or * exempt)", () => {
      const rules = [
        { raw: "Raed", toolName: "Raed", content: undefined, behavior: "deny", source: "userSettings", root: "/" },
        { raw: "mcp__x", toolName: "mcp__x", content: undefined, behavior: "deny", source: "userSettings", root: "/" },
        { raw: "Read", toolName: "Read", content: undefined, behavior: "deny", source: "userSettings", root: "/" }
      ] as const
      expect(unknownToolWarnings(rules, ["Read", "Bash"])).toEqual(["Permission rule 'Raed' from userSettings names an unknown tool Raed"])
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
        Effect.gen(function* () {
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
        Effect.gen(function* () {
          const settings = yield* Settings.Settings
          yield* settings.addRules(["WebSearch"], "allow", "session")
          return yield* settings.current
        }).pipe(Effect.provide(Layer.fresh(Settings.layerStatic({ cwd: fx.proj }))))
      )
      expect(loaded.rules.map((r) => [r.raw, r.source])).toEqual([["WebSearch", "session"]])
    })
  })
})
