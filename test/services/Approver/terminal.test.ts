/**
 * The interactive approval prompt (issue 4 item 6), driven through a pseudo-terminal: once,
 * session, always, deny with and without a message, Ctrl-C, serialized prompts, escaped
 * invisible characters, and no dangerous broad prefix ever offered.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { escapeForDisplay, isDangerousRule, offeredRules, renderPrompt } from "../../../src/services/Approver.js"
import { removeBundles, runInPty, ROOT } from "./pty.js"
import * as Permission from "../../../src/Permission.js"

const HARNESS = path.join(ROOT, "test/services/Approver/harness.ts")

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-approver-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))
afterAll(removeBundles)

const DANGEROUS = [
  "Bash(bash:*)",
  "Bash(sh:*)",
  "Bash(env:*)",
  "Bash(xargs *)",
  "Bash(sudo:*)",
  "Bash",
  "Bash(*)",
  "Bash(python3 -c:*)",
  "Bash(node:*)"
]

const writeRequest = (overrides: Record<string, unknown> = {}) => {
  const file = path.join(dir, "request.json")
  fs.writeFileSync(
    file,
    JSON.stringify({
      tool: "Bash",
      input: { command: "rm -rf build\u200b && npm test\r" },
      message: "This Bash command contains multiple operations. The following part requires approval: rm -rf build",
      suggestions: [
        { rule: "Bash(rm -rf build)", behavior: "allow" },
        { rule: "Bash(npm test:*)", behavior: "allow" },
        ...DANGEROUS.map((rule) => ({ rule, behavior: "allow" }))
      ],
      subcommands: [
        { command: "rm -rf build\u200b", behavior: "ask", reason: "no rule allows it" },
        { command: "npm test", behavior: "allow", reason: "Bash(npm test:*)" }
      ],
      ...overrides
    })
  )
  return file
}

const answerOf = (output: string, i = 0): unknown => JSON.parse(new RegExp(`ANSWER ${i} (\\{.*\\})`).exec(output)![1]!)

/** Starts the harness, waits for the prompt, types the keys in turn (each after its prompt), returns the answer. */
const drive = (keys: ReadonlyArray<string>, request = writeRequest()) =>
  Effect.scoped(
    Effect.gen(function*() {
      const term = yield* runInPty(HARNESS, [request])
      yield* term.waitFor(/READY canAsk=true/)
      yield* term.waitFor(/Choose \[[\d/]+\]: /)
      for (const key of keys) {
        const before = term.output().length
        yield* term.type(key)
        yield* term.waitFor(/Choose \[|Tell Claude|ANSWER|Please answer/, before)
      }
      yield* term.waitFor(/ANSWER 0 \{.*\}/)
      return { answer: answerOf(term.output()), output: term.output() }
    })
  )

describe("terminal prompt through a pseudo-terminal", () => {
  it.live("allow once", () =>
    Effect.gen(function*() {
      const { answer, output } = yield* drive(["1\r"])
      expect(answer).toEqual({ behavior: "allow", scope: "once" })
      // invisible and control characters are shown escaped, never raw
      expect(output).toContain("command: rm -rf build\\u200b && npm test\\r")
      expect(output).not.toContain("\u200b")
      expect(output).toContain("Commands that need approval:")
      expect(output).toContain("• rm -rf build\\u200b  (no rule allows it)")
      expect(output).not.toContain("• npm test")
    }))

  it.live("allow for this session, with only the safe rules", () =>
    Effect.gen(function*() {
      const { answer } = yield* drive(["2\r"])
      expect(answer).toEqual({ behavior: "allow", scope: "session", rules: ["Bash(rm -rf build)", "Bash(npm test:*)"] })
    }))

  it.live("always allow: the rules to save never include a dangerous broad prefix", () =>
    Effect.gen(function*() {
      const { answer, output } = yield* drive(["3\r"])
      expect(answer).toEqual({ behavior: "allow", scope: "always", rules: ["Bash(rm -rf build)", "Bash(npm test:*)"] })
      expect(output).toContain(
        "3. Yes, and always allow (saved to .claude/settings.local.json): Bash(rm -rf build), Bash(npm test:*)"
      )
      for (const rule of DANGEROUS) expect(output).not.toContain(`${rule},`)
      expect(output).not.toMatch(/Bash\((bash|sh|env|sudo|node):\*\)/)
    }))

  it.live("deny with a message to the model", () =>
    Effect.gen(function*() {
      const { answer } = yield* drive(["4\r", "use make clean instead\r"])
      expect(answer).toEqual({ behavior: "deny", feedback: "use make clean instead" })
    }))

  it.live("deny without a message", () =>
    Effect.gen(function*() {
      const { answer } = yield* drive(["n\r", "\r"])
      expect(answer).toEqual({ behavior: "deny" })
    }))

  it.live("an unknown answer asks again", () =>
    Effect.gen(function*() {
      const { answer, output } = yield* drive(["9\r", "y\r"])
      expect(output).toContain("Please answer 1/2/3/4.")
      expect(answer).toEqual({ behavior: "allow", scope: "once" })
    }))

  it.live("Ctrl-C denies and interrupts", () =>
    Effect.gen(function*() {
      const { answer } = yield* drive(["\x03"])
      expect(answer).toEqual({ behavior: "deny", interrupt: true })
    }))

  it.live("with only dangerous suggestions, session/always are not offered", () =>
    Effect.gen(function*() {
      const request = writeRequest({ suggestions: DANGEROUS.map((rule) => ({ rule, behavior: "allow" })) })
      const { answer, output } = yield* drive(["3\r", "1\r"], request)
      expect(output).not.toContain("always allow")
      expect(output).toContain("Please answer 1/4.")
      expect(answer).toEqual({ behavior: "allow", scope: "once" })
    }))

  it.live("concurrent requests are prompted one at a time", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const term = yield* runInPty(HARNESS, [writeRequest(), "2"])
        yield* term.waitFor(/Choose \[1\/2\/3\/4\]: /)
        expect(term.output().match(/Permission request/g)).toHaveLength(1)
        const mark = term.output().length
        yield* term.type("1\r")
        yield* term.waitFor(/Permission request[\s\S]*Choose \[1\/2\/3\/4\]: /, mark)
        yield* term.type("4\r")
        yield* term.waitFor(/Tell Claude/, mark)
        yield* term.type("no thanks\r")
        yield* term.waitFor(/ANSWER 1 \{.*\}/)
        yield* term.waitFor(/ANSWER 0 \{.*\}/)
        const answers = [answerOf(term.output(), 0), answerOf(term.output(), 1)]
        expect(answers).toContainEqual({ behavior: "allow", scope: "once" })
        expect(answers).toContainEqual({ behavior: "deny", feedback: "no thanks" })
        expect(term.output().match(/Permission request/g)).toHaveLength(2)
      })
    ))
})

describe("prompt helpers", () => {
  it("dangerous rules", () => {
    for (const rule of DANGEROUS) expect(isDangerousRule(rule), rule).toBe(true)
    for (
      const rule of [
        "Bash(/bin/bash:*)",
        "Bash(FOO=1 make:*)",
        "Bash(python:*)",
        "Bash(find . -name x *)",
        "Bash(*)",
        "Bash(:*)"
      ]
    ) {
      expect(isDangerousRule(rule), rule).toBe(true)
    }
    for (
      const rule of [
        "Bash(npm test:*)",
        "Bash(git status)",
        "Bash(bash -c 'echo hi')",
        "Bash(python3 script.py:*)",
        "Read(src/**)",
        "WebFetch(domain:x.com)",
        "mcp__fs"
      ]
    ) {
      expect(isDangerousRule(rule), rule).toBe(false)
    }
    expect(
      offeredRules([{ rule: "Bash(sh:*)", behavior: "allow" }, { rule: "Edit", behavior: "allow" }, {
        rule: "Bash(ls:*)",
        behavior: "deny"
      }])
    ).toEqual(["Edit"])
  })

  it("escapes invisible and control characters", () => {
    expect(escapeForDisplay("plain text")).toBe("plain text")
    expect(escapeForDisplay("a\u200bb")).toBe("a\\u200bb")
    expect(escapeForDisplay("x\ry\nz\t")).toBe("x\\ry\\nz\\t")
    expect(escapeForDisplay("\u202eevil")).toBe("\\u202eevil")
    expect(escapeForDisplay("\x1b[31mred")).toBe("\\u001b[31mred")
    expect(escapeForDisplay("tag\u{e0041}")).toBe("tag\\u{e0041}")
    // a literal backslash stays unambiguous once something was escaped
    expect(escapeForDisplay("\\u200b\u200b")).toBe("\\\\u200b\\u200b")
    expect(escapeForDisplay("a\\b")).toBe("a\\b")
  })

  it("renders the prompt with the offered choices", () => {
    const view = renderPrompt({
      tool: { name: "Write" } as never,
      input: { file_path: "/p/a.txt", content: "hi" },
      toolUseId: "t",
      message: "Claude requested permissions to write to /p/a.txt, but you haven't granted it yet.",
      decision: Permission.ask("", { reason: { type: "default", detail: "" } }),
      suggestions: [],
      session: {} as never
    })
    expect(view.choices.map((c) => c.choice)).toEqual(["once", "deny"])
    expect(view.text).toContain("  file_path: /p/a.txt\n  content: hi\n")
  })
})
