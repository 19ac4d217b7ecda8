/**
 * Parser limits and failures (shell-security §1.3, §2 class 12): over-long input, pathological
 * input, NUL bytes and binary garbage, a parser that failed to load or aborted. Never an allow,
 * never a crash, and deny rules still apply.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { makeShellAnalyzer, makeShellParser } from "../../../src/services/ShellAnalyzer/index.js"
import type { BashCheckContext } from "../../../src/services/ShellAnalyzer/index.js"
import { contextFor, makeProject } from "./support.js"
import * as Permission from "../../../src/Permission.js"

// A parser of this file's own, so the tests below can break it.
const parser = makeShellParser()
const shell = makeShellAnalyzer(parser)
const check = (command: string, ctx: BashCheckContext) => shell.checkBash(command, ctx)

const project = makeProject()
const denyRm = () => contextFor(project.root, { allow: ["Bash(echo *)", "Bash(ls:*)"], deny: ["Bash(rm:*)"] })

describe("parser limits", () => {
  beforeAll(() => Effect.runPromise(shell.warmup))
  afterAll(() => project.cleanup())

  it.effect("a command over 10,000 characters is too complex and asks", () =>
    Effect.gen(function*() {
      const command = `echo ${"a".repeat(10_000)}`
      const analysis = yield* shell.analyze(command)
      expect(analysis.kind).toBe("tooComplex")
      if (analysis.kind === "tooComplex") expect(analysis.reason).toContain("10000")
      const verdict = yield* check(command, denyRm())
      expect(Permission.behaviorOf(verdict)).toBe("ask")
      expect((verdict as Permission.Ask).kind).not.toBe("unapproved")
    }))

  it.effect("exactly 10,000 characters is still analysed", () =>
    Effect.gen(function*() {
      const command = `echo ${"a".repeat(10_000 - 5)}`
      expect(command.length).toBe(10_000)
      expect((yield* shell.analyze(command)).kind).toBe("simple")
      expect(Permission.behaviorOf(yield* check(command, denyRm()))).toBe("allow")
    }))

  it.effect("deny rules apply to over-long commands (raw-text scan)", () =>
    Effect.gen(function*() {
      expect(Permission.behaviorOf(yield* check(`echo ${"a".repeat(10_000)}; rm -rf x`, denyRm()))).toBe("deny")
      expect(Permission.behaviorOf(yield* check(`echo ${"a".repeat(10_000)}; 'r'm -rf x`, denyRm()))).toBe("deny")
    }))

  it.effect("deny rules have no subcommand cap", () =>
    Effect.gen(function*() {
      const command = `${"echo x; ".repeat(1_200)}rm -rf build`
      expect(command.length).toBeLessThan(10_000)
      expect(Permission.behaviorOf(yield* check(command, denyRm()))).toBe("deny")
    }))

  it.effect("pathological input does not crash and asks", () =>
    Effect.gen(function*() {
      const inputs = [
        "(".repeat(9_999),
        `echo ${"$(".repeat(4_990)}`,
        "`".repeat(9_999),
        `cat <<EOF\n${"$(".repeat(4_900)}`,
        `$((${"(".repeat(9_990)}`,
        `${"{ ".repeat(4_999)}`,
        `${"a |".repeat(3_333)}`,
        `echo ${"\"'".repeat(4_990)}`,
        `${"if true; then ".repeat(600)}`,
        `case x in ${"a) ;; ".repeat(1_400)}`
      ]
      for (const input of inputs) {
        expect(input.length).toBeLessThanOrEqual(10_000)
        const verdict = yield* check(input, denyRm())
        expect(Permission.behaviorOf(verdict), input.slice(0, 30)).toBe("ask")
      }
      // The parser still works afterwards.
      expect(Permission.behaviorOf(yield* check("ls -la", denyRm()))).toBe("allow")
    }))

  it.effect("NUL bytes and control characters ask; deny rules still deny", () =>
    Effect.gen(function*() {
      for (
        const command of ["ls\u0000", "echo a\u0000b", "ls\r", "echo \u001b]0;x\u0007", "ls\u000b-la", "echo \u007f"]
      ) {
        const verdict = yield* check(command, denyRm())
        expect(Permission.behaviorOf(verdict)).toBe("ask")
        expect((verdict as Permission.Ask).kind).not.toBe("unapproved")
      }
      expect(Permission.behaviorOf(yield* check("echo hi\u0000; rm -rf x", denyRm()))).toBe("deny")
      expect(Permission.behaviorOf(yield* check("ls\rrm -rf x", denyRm()))).toBe("deny")
    }))

  it("binary garbage never allows and never throws", () => {
    const ctx = denyRm()
    const garbage = fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
      maxLength: 200
    })
    fc.assert(
      fc.property(garbage, (text) => {
        const verdict = Effect.runSync(check(text, ctx))
        // Without any control or invisible character the text may be an ordinary command.
        if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\ufeff]/.test(text)) {
          return Permission.behaviorOf(verdict) !== "allow"
        }
        return ["allow", "ask", "deny"].includes(Permission.behaviorOf(verdict))
      }),
      { seed: 4242, numRuns: 400 }
    )
  })

  it.effect("a parser that failed to load makes every command ask; deny rules still deny", () =>
    Effect.gen(function*() {
      const failed = makeShellAnalyzer(makeShellParser({ unavailable: "disabled for a test" }))
      const analysis = yield* failed.analyze("ls -la")
      expect(analysis.kind).toBe("tooComplex")
      if (analysis.kind === "tooComplex") expect(analysis.reason).toContain("disabled for a test")
      const failedVerdict = yield* failed.checkBash("ls -la", denyRm())
      expect(Permission.behaviorOf(failedVerdict)).toBe("ask")
      expect((failedVerdict as Permission.Ask).kind).not.toBe("unapproved")
      expect(Permission.behaviorOf(yield* failed.checkBash("rm -rf build", denyRm()))).toBe("deny")
      expect(Permission.behaviorOf(yield* failed.checkBash("ls && \\rm x", denyRm()))).toBe("deny")
      expect(failed.isReadOnly("ls -la")).toBe(false)
      expect(yield* failed.unavailable).toContain("disabled for a test")
    }))

  it.effect("before the parser has loaded nothing is read-only (fail closed)", () =>
    Effect.gen(function*() {
      const fresh = makeShellAnalyzer(makeShellParser())
      expect(fresh.isReadOnly("ls -la")).toBe(false)
      yield* fresh.warmup
      expect(fresh.isReadOnly("ls -la")).toBe(true)
    }))

  it.effect("after a WASM abort the parser is reloaded; meanwhile commands ask", () =>
    Effect.gen(function*() {
      parser.injectFault()
      const first = yield* Effect.sync(() => shell.isReadOnly("ls -la /tmp/aborted-once"))
      expect(first).toBe(false)
      const verdict = yield* check("git status --short", denyRm())
      expect(Permission.behaviorOf(verdict)).toBe("allow") // check waits for the reload
      expect(shell.isReadOnly("ls -la /tmp/aborted-once")).toBe(true)
      expect((yield* shell.analyze(`echo ${"$(".repeat(100)}x${")".repeat(100)}`)).kind).toBe("tooComplex")
    }))
})
