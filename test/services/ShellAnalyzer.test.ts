/**
 * The ShellAnalyzer belongs to the layer that built it: its parser, its state after a failed load
 * and its cache are not shared with any other analyzer in the process. Permissions and Hooks use
 * the one in their context.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as FileState from "../../src/services/FileState.js"
import * as Hooks from "../../src/services/Hooks.js"
import * as Permissions from "../../src/services/Permissions.js"
import * as Settings from "../../src/services/Settings.js"
import * as ShellAnalyzer from "../../src/services/ShellAnalyzer.js"
import { makeRule } from "../../src/PermissionRules.js"
import { BashTool } from "../../src/tools/Bash.js"
import { testSession } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-shell-analyzer-")))
const session = testSession(cwd)
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

/** The Permissions stage over the given analyzer, with a deny rule for `rm`. */
const permissionsOver = (analyzer: Layer.Layer<ShellAnalyzer.ShellAnalyzer>) =>
  Permissions.layer.pipe(
    Layer.provide(
      Layer.mergeAll(
        Settings.layerStatic({ cwd, rules: [makeRule("Bash(rm:*)", "deny", "userSettings", cwd)] }),
        FileState.layer,
        analyzer
      )
    )
  )

const decideBash = (command: string) =>
  Effect.flatMap(
    Permissions.Permissions,
    (permissions) => permissions.decide({ tool: BashTool, input: { command }, session })
  )

describe("ShellAnalyzer", () => {
  it.effect("two analyzers in one process share nothing: the unavailable one asks for `ls`, the working one allows it", () =>
    Effect.gen(function*() {
      const working = permissionsOver(ShellAnalyzer.layer)
      const unavailable = permissionsOver(ShellAnalyzer.layerUnavailable("not installed"))
      // Built and used in turn, in both orders: neither sees the other's parser state.
      expect(Permission.behaviorOf(yield* Effect.provide(decideBash("ls -la"), working))).toBe("allow")
      const asked = yield* Effect.provide(decideBash("ls -la"), unavailable)
      expect(Permission.behaviorOf(asked)).toBe("ask")
      expect(JSON.stringify(asked.reason)).toContain("not installed")
      expect(Permission.behaviorOf(yield* Effect.provide(decideBash("rm -rf build"), unavailable))).toBe("deny")
      expect(Permission.behaviorOf(yield* Effect.provide(decideBash("ls -la src"), working))).toBe("allow")
    }))

  it.effect("an analysis one analyzer cached is not another's answer", () =>
    Effect.gen(function*() {
      const working = yield* ShellAnalyzer.make
      const unavailable = yield* ShellAnalyzer.makeUnavailable()
      expect((yield* working.analyze("git status")).kind).toBe("simple")
      expect(working.isReadOnly("git status")).toBe(true)
      expect((yield* unavailable.analyze("git status")).kind).toBe("tooComplex")
      expect(unavailable.isReadOnly("git status")).toBe(false)
      expect(yield* unavailable.unavailable).toContain("disabled")
      expect(yield* working.unavailable).toBeUndefined()
    }))

  it.effect("building the layer does not load tree-sitter; the first use does", () =>
    Effect.gen(function*() {
      const analyzer = yield* ShellAnalyzer.make
      expect(analyzer.isReadOnly("ls")).toBe(false) // nothing loaded yet: fail closed
      yield* analyzer.warmup
      expect(analyzer.isReadOnly("ls")).toBe(true)
    }))
})

describe("Hooks `if` with an analyzer whose parser is unavailable", () => {
  const ran = (command: string, condition: string) =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const hooks = Hooks.layerInProcess([{
        event: "PreToolUse",
        matcher: "Bash",
        if: condition,
        run: () => Ref.update(calls, (n) => n + 1)
      }])
      yield* Effect.flatMap(Hooks.Hooks, (h) =>
        h.preToolUse({ tool: BashTool, toolInput: { command }, toolUseId: "toolu_1", session })).pipe(
          Effect.provide(hooks)
        )
      return (yield* Ref.get(calls)) === 1
    })

  it.layer(ShellAnalyzer.layerUnavailable())((it) => {
    it.effect("matches on the subcommands of the fallback splitter", () =>
      Effect.gen(function*() {
        expect(yield* ran("ls && git push", "Bash(git *)")).toBe(true)
        expect(yield* ran("echo \"$(git log -1)\"", "Bash(git *)")).toBe(true)
        expect(yield* ran("ls -l docs", "Bash(git *)")).toBe(false)
        // What the splitter cannot read runs the hook (claude-code-spec §2.1: `if` fails open).
        expect(yield* ran("cat <<EOF\nx\nEOF", "Bash(git *)")).toBe(true)
      }))
  })

  it.layer(ShellAnalyzer.layer)((it) => {
    it.effect("and a working analyzer in the same process still uses the parser", () =>
      Effect.gen(function*() {
        expect(yield* ran("bash -c 'git status'", "Bash(git *)")).toBe(true)
        expect(yield* ran("ls -la", "Bash(git *)")).toBe(false)
      }))
  })
})
