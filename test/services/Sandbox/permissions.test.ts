/**
 * How Claude Code's sandbox settings bear on Bash decisions (what Claude Code 2.1.332 answered,
 * conformance/scenarios/sandbox.json): `autoAllowBashIfSandboxed` approves what only lacked an
 * approval, never past a deny rule, an ask rule or a safety check; `dangerouslyDisableSandbox`
 * needs an allow rule ("Run outside of the sandbox"), unless `allowUnsandboxedCommands` is false;
 * `excludedCommands` run outside the sandbox and are judged as usual.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FileState from "../../../src/services/FileState.js"
import * as Permissions from "../../../src/services/Permissions.js"
import { makeRule } from "../../../src/PermissionRules.js"
import * as Sandbox from "../../../src/services/Sandbox.js"
import * as Settings from "../../../src/services/Settings.js"
import { isExcludedCommand } from "../../../src/services/Sandbox/excluded.js"
import type { Decision, RuleBehavior } from "../../../src/Permission.js"
import { analyzedBashTool, layerSharedShellAnalyzer, sharedShellAnalyzer } from "../../support/shellAnalyzer.js"
import { tempDir, testSession } from "../../support/runtime.js"
import * as Permission from "../../../src/Permission.js"

interface Options {
  readonly rules?: ReadonlyArray<readonly [RuleBehavior, string]>
  readonly autoAllow?: boolean
  readonly unsandboxedAllowed?: boolean
  readonly excluded?: ReadonlyArray<string>
  /** No settings sandbox in force (off, or it cannot run here). */
  readonly off?: boolean
}

const decide = (input: Record<string, unknown>, options: Options = {}) =>
  Effect.gen(function*() {
    const cwd = tempDir("toolgate-sandbox-decide-")
    const rules = (options.rules ?? []).map(([behavior, raw]) => makeRule(raw, behavior, "userSettings", cwd))
    const inForce: Sandbox.SandboxPermissions = {
      autoAllowBashIfSandboxed: options.autoAllow ?? true,
      unsandboxedCommandsAllowed: options.unsandboxedAllowed ?? true,
      isExcluded: (command) => isExcludedCommand(sharedShellAnalyzer, command, options.excluded ?? [])
    }
    const sandbox = Layer.succeed(Sandbox.Sandbox, {
      ...Sandbox.none,
      permissions: Effect.succeed(options.off === true ? undefined : inForce)
    })
    const layer = Permissions.layer.pipe(
      Layer.provide(
        Layer.mergeAll(Settings.layerStatic({ cwd, rules }), FileState.layer, layerSharedShellAnalyzer, sandbox)
      )
    )
    const permissions = yield* Effect.provide(Permissions.Permissions, layer)
    const tool = analyzedBashTool
    return yield* permissions.decide({ tool, input: { description: "x", ...input }, session: testSession(cwd) })
  })

const summary = (d: Decision) => ({
  behavior: Permission.behaviorOf(d),
  reason: d.reason.type,
  ...(Permission.behaviorOf(d) === "allow" ? {} : { message: (d as Permission.Ask).message })
})

describe("autoAllowBashIfSandboxed", () => {
  it.effect("approves a sandboxed command that only lacked an approval", () =>
    Effect.gen(function*() {
      expect(summary(yield* decide({ command: "touch made.txt" }))).toEqual({ behavior: "allow", reason: "sandbox" })
      expect(summary(yield* decide({ command: "python3 -c 'print(1)'" }))).toEqual({
        behavior: "allow",
        reason: "sandbox"
      })
      // off, or not available here: the usual question
      expect(Permission.behaviorOf(yield* decide({ command: "touch made.txt" }, { autoAllow: false }))).toBe("ask")
      expect(Permission.behaviorOf(yield* decide({ command: "touch made.txt" }, { off: true }))).toBe("ask")
    }))

  it.effect("never past a deny rule or an ask rule", () =>
    Effect.gen(function*() {
      const rules = [["deny", "Bash(rm:*)"], ["ask", "Bash(git push:*)"]] as const
      expect(summary(yield* decide({ command: "rm a.md" }, { rules }))).toEqual({
        behavior: "deny",
        reason: "rule",
        message: "Permission to use Bash with command rm a.md has been denied."
      })
      expect(Permission.behaviorOf(yield* decide({ command: "git push" }, { rules }))).toBe("ask")
    }))

  it.effect("a command the analyzer cannot read fully is not approved while Bash deny or ask rules exist", () =>
    Effect.gen(function*() {
      const hidden = "cat $(id -u)"
      expect(Permission.behaviorOf(yield* decide({ command: hidden }, { rules: [["deny", "Bash(rm:*)"]] }))).not.toBe(
        "allow"
      )
      expect(summary(yield* decide({ command: hidden }))).toEqual({ behavior: "allow", reason: "sandbox" })
    }))

  it.effect("excluded commands run outside the sandbox, so they are judged as usual", () =>
    Effect.gen(function*() {
      expect(Permission.behaviorOf(yield* decide({ command: "touch made.txt" }, { excluded: ["touch:*"] }))).toBe("ask")
      // every part must match; a redirect keeps the call in the sandbox
      expect(summary(yield* decide({ command: "touch a && echo b" }, { excluded: ["touch:*"] }))).toEqual({
        behavior: "allow",
        reason: "sandbox"
      })
      expect(summary(yield* decide({ command: "touch a > log" }, { excluded: ["touch:*"] }))).toEqual({
        behavior: "allow",
        reason: "sandbox"
      })
    }))
})

describe("dangerouslyDisableSandbox", () => {
  it.effect("asks to run outside of the sandbox unless an allow rule approves the command", () =>
    Effect.gen(function*() {
      for (const autoAllow of [true, false]) {
        expect(summary(yield* decide({ command: "ls", dangerouslyDisableSandbox: true }, { autoAllow }))).toEqual({
          behavior: "ask",
          reason: "sandbox",
          message: "Run outside of the sandbox"
        })
        expect(summary(yield* decide({ command: "touch in1", dangerouslyDisableSandbox: true }, { autoAllow })))
          .toEqual({
            behavior: "ask",
            reason: "sandbox",
            message: "Run outside of the sandbox"
          })
      }
      expect(
        summary(
          yield* decide({ command: "python3 -c 'print(2)'", dangerouslyDisableSandbox: true }, {
            rules: [["allow", "Bash(python3:*)"]]
          })
        )
      ).toEqual({
        behavior: "allow",
        reason: "rule"
      })
      expect(
        Permission.behaviorOf(
          yield* decide({ command: "rm x", dangerouslyDisableSandbox: true }, { rules: [["deny", "Bash(rm:*)"]] })
        )
      ).toBe("deny")
    }))

  it.effect("is ignored when allowUnsandboxedCommands is false, and without a sandbox in force", () =>
    Effect.gen(function*() {
      expect(
        summary(yield* decide({ command: "touch u1", dangerouslyDisableSandbox: true }, { unsandboxedAllowed: false }))
      ).toEqual({
        behavior: "allow",
        reason: "sandbox"
      })
      expect(summary(yield* decide({ command: "ls", dangerouslyDisableSandbox: true }, { off: true }))).toEqual({
        behavior: "allow",
        reason: "readOnly"
      })
    }))
})
