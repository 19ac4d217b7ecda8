/**
 * Which paths the read-only profile hides for Read deny rules, from real files: a path a rule
 * names, the matches of a pattern (found with ripgrep, confirmed by the session's own check), each
 * as high up as its denied folders go, and nothing that does not exist.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeRule } from "../../../src/PermissionRules.js"
import { hiddenPaths } from "../../../src/services/Sandbox/hiddenPaths.js"
import { findProgram } from "../../../src/services/Sandbox/detect.js"
import { tempDir } from "../../support/runtime.js"

const write = (file: string, text = "x") => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

describe("hidden paths", () => {
  it.effect("named paths, pattern matches collapsed to their denied folders, nothing that does not exist", () =>
    Effect.gen(function*() {
      const root = fs.realpathSync(tempDir("toolgate-hidden-"))
      const home = path.join(root, "home")
      const cwd = path.join(root, "project")
      write(path.join(home, ".ssh", "id_ed25519"))
      write(path.join(cwd, ".env"))
      write(path.join(cwd, "app", ".env"))
      write(path.join(cwd, "app", ".env.example"))
      write(path.join(cwd, "secrets", "a.key"))
      write(path.join(cwd, "secrets", "deep", "b.key"))
      write(path.join(root, "etc", "shadow"))
      const rules = [
        "Read(~/.ssh/**)",
        "Read(.env)",
        "Read(./secrets/**)",
        `Read(/${path.join(root, "etc", "shadow")})`,
        "Read(~/.aws/**)"
      ].map((raw) => makeRule(raw, "deny", "userSettings", root))
      const denied = (p: string) => p.endsWith(`${path.sep}.env`) || p.startsWith(path.join(cwd, "secrets"))
      const hidden = yield* hiddenPaths({
        rules,
        home,
        cwds: [cwd],
        isDenied: denied,
        ripgrep: findProgram("rg", process.env.PATH ?? "")
      })
      expect(hidden).toEqual({
        directories: [path.join(home, ".ssh"), path.join(cwd, "secrets")],
        files: [path.join(cwd, ".env"), path.join(cwd, "app", ".env"), path.join(root, "etc", "shadow")].sort()
      })
    }))

  it.effect("a pattern without ripgrep to look for it fails the call rather than hide nothing", () =>
    Effect.gen(function*() {
      const root = fs.realpathSync(tempDir("toolgate-hidden-"))
      const failed = yield* Effect.flip(
        hiddenPaths({
          rules: [makeRule("Read(**/*.pem)", "deny", "userSettings", root)],
          home: root,
          cwds: [root],
          ripgrep: undefined
        })
      )
      expect(failed.message).toBe(
        "The sandbox could not be prepared (hidden paths): ripgrep (rg) is needed to find the files the rule Read(**/*.pem) covers"
      )
    }))
})
