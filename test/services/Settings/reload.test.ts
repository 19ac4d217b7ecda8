/**
 * Settings files that change while a session runs are read again: new deny rules and hooks
 * appear, a file that becomes unreadable marks the last good settings `broken` (and the
 * Permissions stage then denies every call), a fixed file clears it, and rules approved during
 * the session survive every reload.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as FileState from "../../../src/services/FileState.js"
import * as Permissions from "../../../src/services/Permissions.js"
import * as Settings from "../../../src/services/Settings.js"
import { BashTool } from "../../../src/tools/Bash.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"
import * as F from "../Permissions/fixture.js"

let fx: F.Fixture
beforeEach(() => {
  fx = F.makeFixture()
})
afterEach(() => fx.cleanup())

const projectFile = () => fx.p(".claude", "settings.json")
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}
/** Past the look-again interval (a millisecond), so the next read looks at the files. */
const later = Effect.sleep("5 millis")

const withSettings = <A>(body: (settings: Settings.SettingsService) => Effect.Effect<A>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      return yield* body(yield* Settings.Settings)
    }).pipe(Effect.provide(Settings.layer(F.settingsOptions(fx, { trustProject: true }))))
  )

const denyRules = (loaded: Settings.LoadedSettings) =>
  loaded.rules.filter((r) => r.behavior === "deny").map((r) => r.raw)

describe("settings read again when their files change", () => {
  it("a deny rule added to the project settings, and one added to the user settings, appear", () =>
    withSettings((settings) =>
      Effect.gen(function*() {
        expect(denyRules(yield* settings.current)).toEqual([])
        write(projectFile(), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }))
        write(path.join(fx.userConfigDir, "settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch"] } }))
        yield* later
        expect(denyRules(yield* settings.current).sort()).toEqual(["Bash(rm:*)", "WebFetch"])
      })
    ))

  it("a file that becomes unreadable keeps the last good rules and marks them broken; fixed, it clears", () =>
    withSettings((settings) =>
      Effect.gen(function*() {
        write(projectFile(), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }))
        yield* later
        expect(denyRules(yield* settings.current)).toEqual(["Bash(rm:*)"])
        write(projectFile(), "{ not json")
        yield* later
        const broken = yield* settings.current
        expect(broken.broken?.message).toContain(projectFile())
        expect(denyRules(broken)).toEqual(["Bash(rm:*)"])
        write(projectFile(), JSON.stringify({ permissions: { deny: ["Bash(curl:*)"] } }))
        yield* later
        const fixed = yield* settings.current
        expect(fixed.broken).toBeUndefined()
        expect(denyRules(fixed)).toEqual(["Bash(curl:*)"])
      })
    ))

  it("rules approved during the session survive a reload", () =>
    withSettings((settings) =>
      Effect.gen(function*() {
        yield* settings.addRules(["Bash(make:*)"], "allow", "session").pipe(Effect.orDie)
        write(projectFile(), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }))
        yield* later
        const loaded = yield* settings.current
        expect(loaded.rules.filter((r) => r.behavior === "allow").map((r) => r.raw)).toEqual(["Bash(make:*)"])
        expect(denyRules(loaded)).toEqual(["Bash(rm:*)"])
      })
    ))

  it("with broken settings the Permissions stage denies every call, naming the file", () =>
    Effect.runPromise(
      Effect.gen(function*() {
        const permissions = yield* Permissions.Permissions
        write(projectFile(), "[]")
        yield* later
        const decision = yield* permissions.decide({
          tool: BashTool,
          input: { command: "ls" },
          session: F.session(fx, "bypassPermissions")
        })
        expect(decision._tag).toBe("Deny")
        expect(decision._tag === "Deny" ? decision.message : "").toContain(projectFile())
      }).pipe(
        Effect.provide(Permissions.layer),
        Effect.provide(FileState.layer),
        Effect.provide(layerSharedShellAnalyzer),
        Effect.provide(Settings.layer(F.settingsOptions(fx, { trustProject: true })))
      )
    ))
})
