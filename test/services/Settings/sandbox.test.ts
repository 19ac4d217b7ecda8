/**
 * The `sandbox` settings block from real files: decoded (a field of the wrong type breaks the file,
 * so toolgate refuses to run rather than drop a restriction), merged across sources, and an
 * untrusted project only ever tightening it.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Settings from "../../../src/services/Settings.js"
import { tempDir } from "../../support/runtime.js"

const project = () => {
  const root = fs.realpathSync(tempDir("toolgate-sandbox-settings-"))
  const cwd = path.join(root, "project")
  fs.mkdirSync(path.join(cwd, ".claude"), { recursive: true })
  fs.mkdirSync(path.join(root, "user"), { recursive: true })
  const write = (file: string, json: unknown) => fs.writeFileSync(file, JSON.stringify(json))
  return {
    cwd,
    user: (json: unknown) => write(path.join(root, "user", "settings.json"), json),
    project: (json: unknown) => write(path.join(cwd, ".claude", "settings.json"), json),
    options: (extra: Partial<Settings.SettingsOptions> = {}): Settings.SettingsOptions => ({
      cwd,
      userConfigDir: path.join(root, "user"),
      managedDir: path.join(root, "managed"),
      home: root,
      ...extra
    })
  }
}

const load = (options: Settings.SettingsOptions) =>
  Effect.runPromise(
    Effect.either(Effect.flatMap(Settings.Settings, (s) => s.current).pipe(Effect.provide(Settings.layer(options))))
  )

describe("sandbox settings", () => {
  it("defaults: off, no auto-approval, unsandboxed commands allowed after approval", async () => {
    const p = project()
    const loaded = await load(p.options())
    expect(Either.getOrThrow(loaded).sandbox).toMatchObject({
      enabled: false,
      autoAllowBashIfSandboxed: false,
      allowUnsandboxedCommands: true,
      excludedCommands: []
    })
  })

  it("merges sources: scalars from the highest that sets them, lists from all", async () => {
    const p = project()
    p.user({
      sandbox: {
        enabled: true,
        excludedCommands: ["docker:*"],
        network: { allowedDomains: ["github.com"], deniedDomains: ["evil.test"] }
      }
    })
    const flag = JSON.stringify({
      sandbox: {
        autoAllowBashIfSandboxed: true,
        network: { allowedDomains: ["*.npmjs.org"] },
        filesystem: { denyRead: ["~/.aws"] }
      }
    })
    const s = Either.getOrThrow(await load(p.options({ settings: [flag] }))).sandbox!
    expect(s).toMatchObject({ enabled: true, autoAllowBashIfSandboxed: true, excludedCommands: ["docker:*"] })
    expect(s.network.allowedDomains).toEqual(["*.npmjs.org", "github.com"])
    expect(s.network.deniedDomains).toEqual(["evil.test"])
    expect(s.filesystem.denyRead).toEqual(["~/.aws"])
    expect(s.sources).toMatchObject({ enabled: "userSettings", autoAllowBashIfSandboxed: "flagSettings" })
  })

  it("an untrusted project can switch the sandbox on and deny more, never loosen it", async () => {
    const p = project()
    p.user({ sandbox: { enabled: true, allowUnsandboxedCommands: false } })
    p.project({
      sandbox: {
        enabled: false,
        autoAllowBashIfSandboxed: true,
        allowUnsandboxedCommands: true,
        excludedCommands: ["curl:*"],
        network: { allowedDomains: ["attacker.test"], deniedDomains: ["tracker.test"], allowAllUnixSockets: true },
        filesystem: { allowWrite: ["~"], denyWrite: ["secrets"] }
      }
    })
    const untrusted = Either.getOrThrow(await load(p.options())).sandbox!
    expect(untrusted).toMatchObject({
      enabled: true,
      autoAllowBashIfSandboxed: false,
      allowUnsandboxedCommands: false,
      excludedCommands: []
    })
    expect(untrusted.network).toMatchObject({
      allowedDomains: [],
      deniedDomains: ["tracker.test"],
      allowAllUnixSockets: false
    })
    expect(untrusted.filesystem).toMatchObject({ allowWrite: [], denyWrite: ["secrets"] })

    const trusted = Either.getOrThrow(await load(p.options({ trustProject: true }))).sandbox!
    expect(trusted).toMatchObject({ enabled: false, autoAllowBashIfSandboxed: true, excludedCommands: ["curl:*"] })
    expect(trusted.network.allowedDomains).toEqual(["attacker.test"])

    const off = project()
    off.project({ sandbox: { enabled: true } })
    expect(Either.getOrThrow(await load(off.options())).sandbox!.enabled).toBe(true)
  })

  it("a field of the wrong type breaks the file: nothing runs without the restriction it may hold", async () => {
    const p = project()
    p.user({ sandbox: { enabled: "yes", network: { deniedDomains: "evil.test" } } })
    const loaded = await load(p.options())
    expect(Either.isLeft(loaded)).toBe(true)
    const error = Either.getLeft(loaded).pipe((o) => (o._tag === "Some" ? o.value : undefined))
    expect(error?._tag).toBe("BrokenSettings")
    expect(error?.message).toMatch(/sandbox\.enabled: Expected boolean, actual "yes" \(and 1 more problem\)/)
  })

  it("keys toolgate does not read are kept as written", async () => {
    const p = project()
    p.user({ sandbox: { enabled: true, ignoreViolations: { "*": ["/usr/bin"] }, network: { strictAllowlist: true } } })
    const loaded = Either.getOrThrow(await load(p.options()))
    expect(loaded.sandbox!.enabled).toBe(true)
    expect(loaded.value("sandbox")).toMatchObject({ ignoreViolations: { "*": ["/usr/bin"] } })
  })
})
