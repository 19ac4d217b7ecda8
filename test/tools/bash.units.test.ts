import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { isBenignExitOne, splitSimpleCommands } from "../../src/tools/bash/benignExit.js"
import { OutputCapture, truncationMarker } from "../../src/tools/bash/OutputCapture.js"
import { escapeInvisible } from "../../src/tools/bash/renderCommand.js"
import { failureText, successText } from "../../src/tools/bash/resultText.js"
import { bashSettings, effectiveTimeoutMs } from "../../src/tools/bash/settings.js"

const withTemp = <A>(f: (dir: string) => A): A => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bash-unit-"))
  try {
    return f(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("OutputCapture", () => {
  it("keeps everything in memory up to the cap and writes no file", () =>
    withTemp((dir) => {
      const spillPath = path.join(dir, "out", "id.txt")
      const capture = new OutputCapture({ maxChars: 100, spillPath })
      capture.write("stdout", Buffer.from("a".repeat(60)))
      capture.write("stderr", Buffer.from("b".repeat(40)))
      const result = capture.finish()
      expect(result).toMatchObject({
        stdout: "a".repeat(60),
        stderr: "b".repeat(40),
        truncated: false,
        outputFile: undefined,
        totalChars: 100
      })
      expect(fs.existsSync(spillPath)).toBe(false)
    }))

  it("never holds more than the cap while 5 MB streams through, and the file gets every byte", () =>
    withTemp((dir) => {
      const spillPath = path.join(dir, "out", "id.txt")
      const maxChars = 30_000
      const capture = new OutputCapture({ maxChars, spillPath })
      let maxRetained = 0
      const chunk = Buffer.from("0123456789abcdef\n".repeat(3855)) // ~64 KB
      let written = 0
      for (let i = 0; written < 5_000_000; i++) {
        capture.write(i % 7 === 0 ? "stderr" : "stdout", chunk)
        written += chunk.length
        maxRetained = Math.max(maxRetained, capture.retainedChars)
      }
      const result = capture.finish()
      // each stream's head and tail, and the first maxChars of both together
      expect(maxRetained).toBeLessThanOrEqual(2 * maxChars)
      expect(result.truncated).toBe(true)
      expect(result.outputFile).toBe(spillPath)
      expect(fs.statSync(spillPath).size).toBe(written)
      expect(result.totalBytes).toBe(written)
      expect(result.lines).toBe((written / chunk.length) * 3855)
      expect(result.stdout.length).toBeLessThanOrEqual(maxChars / 2 + truncationMarker(written).length)
      expect(result.stdout.startsWith("0123456789abcdef\n")).toBe(true)
      expect(result.stdout.endsWith("0123456789abcdef\n")).toBe(true)
    }))

  it("cuts the file at maxFileBytes, ends it with the notice, saves nothing more and calls onLimit once", () =>
    withTemp((dir) => {
      const spillPath = path.join(dir, "id.txt")
      let limits = 0
      const capture = new OutputCapture({
        maxChars: 100,
        spillPath,
        maxFileBytes: 1000,
        limitNotice: "Command killed: output file exceeded 1000B",
        onLimit: () => limits++
      })
      for (let i = 0; i < 50; i++) capture.write("stdout", Buffer.from("y\n".repeat(50)))
      const result = capture.finish()
      expect(limits).toBe(1)
      expect(result.limitNotice).toBe("Command killed: output file exceeded 1000B")
      expect(result.totalBytes).toBe(5000)
      expect(fs.readFileSync(spillPath, "utf8")).toBe(
        `${"y\n".repeat(500)}\nCommand killed: output file exceeded 1000B\n`
      )
    }))

  it("keeps multi-byte characters split across chunks intact", () =>
    withTemp((dir) => {
      const capture = new OutputCapture({ maxChars: 100, spillPath: path.join(dir, "x.txt") })
      const bytes = Buffer.from("héllo €")
      for (const b of bytes) capture.write("stdout", Buffer.from([b]))
      expect(capture.finish().stdout).toBe("héllo €")
    }))

  it("reports a file that cannot be written instead of failing", () =>
    withTemp((dir) => {
      const blocker = path.join(dir, "blocker")
      fs.writeFileSync(blocker, "")
      const capture = new OutputCapture({ maxChars: 10, spillPath: path.join(blocker, "id.txt") })
      capture.write("stdout", Buffer.from("x".repeat(50)))
      const result = capture.finish()
      expect(result.truncated).toBe(true)
      expect(result.outputFile).toBeUndefined()
      expect(result.spillError).toMatch(/ENOTDIR|EEXIST/)
    }))
})

describe("benign exit 1", () => {
  it.each([
    "grep foo file",
    "grep -r 'a b' .",
    "rg pattern",
    "egrep x y",
    "fgrep x y",
    "find . -name x",
    "diff a b",
    "test -f x",
    "[ -f x ]",
    "git diff --quiet",
    "git grep foo",
    "cat f | grep foo",
    "ls; grep foo f",
    "false || grep foo f",
    "LC_ALL=C grep foo f",
    "/usr/bin/grep foo f",
    "grep foo f 2>/dev/null",
    "grep foo f 2>&1",
    "grep foo f # comment",
    "grep foo f;",
    "grep -c x <<< 'text'"
  ])("%s", (command) => expect(isBenignExitOne(command)).toBe(true))

  it.each([
    "false",
    "ls",
    "grep foo f | wc -l",
    "cd dir && grep foo f",
    "false && grep foo f",
    "set -o pipefail; cat f | grep foo",
    "grep $(cat p) f",
    "grep `cat p` f",
    "(grep foo f)",
    "if grep foo f; then echo y; fi",
    "grep foo <<EOF\nx\nEOF",
    "git status",
    "git -C dir diff",
    "echo 'unterminated",
    "! grep foo f",
    "x=grep"
  ])("not %s", (command) => expect(isBenignExitOne(command)).toBe(false))

  it("splits on operators outside quotes only", () => {
    expect(splitSimpleCommands(`echo "a | b" 'c && d' e\\;f | grep x`)?.map((s) => [s.before, ...s.words])).toEqual([
      ["", "echo", "a | b", "c && d", "e;f"],
      ["|", "grep", "x"]
    ])
  })
})

describe("result texts", () => {
  const base = {
    stdout: "",
    stderr: "",
    combined: "",
    totalChars: 0,
    totalBytes: 0,
    truncated: false,
    exitCode: 0,
    interrupted: false,
    timedOut: false,
    timeoutMs: 1000,
    notices: []
  }
  it("success: both streams in the order written, then notices", () => {
    expect(successText({ ...base, combined: "\n\ne1\nout\ne2 \n", notices: ["note"] })).toBe("e1\nout\ne2\nnote")
    expect(successText(base)).toBe("")
  })
  it("success over the limit: the persisted-output preview", () => {
    const combined = Array.from({ length: 3000 }, (_, i) => `${i + 1}`).join("\n")
    const text = successText({ ...base, combined, totalChars: 40_000, truncated: true, outputFile: "/s/out.txt" })
    const lines = text.split("\n")
    expect(lines.slice(0, 4)).toEqual([
      "<persisted-output>",
      "Output too large (39.1KB). Full output saved to: /s/out.txt",
      "",
      "Preview (first 2KB):"
    ])
    expect(lines.slice(-2)).toEqual(["...", "</persisted-output>"])
  })
  it("failure: Exit code, then the output; a timeout names its limit", () => {
    expect(failureText({ ...base, exitCode: 2, combined: "e1\nout\ne2\n" })).toBe("Exit code 2\ne1\nout\ne2")
    expect(
      failureText({
        ...base,
        exitCode: 143,
        timedOut: true,
        interrupted: true,
        timeoutMs: 120_000,
        combined: "partial\n"
      })
    ).toBe(
      "Exit code 143\nCommand timed out after 2m 0s\npartial"
    )
    expect(failureText({ ...base, exitCode: 143, timedOut: true, interrupted: true, timeoutMs: 1000 })).toBe(
      "Exit code 143\nCommand timed out after 1s"
    )
  })
})

describe("settings", () => {
  const read = (env: Record<string, string>) =>
    bashSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("defaults, clamping and fallbacks", () =>
    Effect.gen(function*() {
      expect(yield* read({})).toEqual({
        defaultTimeoutMs: 120_000,
        maxTimeoutMs: 600_000,
        maxOutputChars: 30_000,
        maintainProjectDir: false,
        maxSpillBytes: 5 * 1024 ** 3
      })
      expect(
        yield* read({
          BASH_MAX_OUTPUT_LENGTH: "999999",
          BASH_DEFAULT_TIMEOUT_MS: "900000",
          CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "true"
        })
      ).toEqual({
        defaultTimeoutMs: 900_000,
        maxTimeoutMs: 900_000,
        maxOutputChars: 150_000,
        maintainProjectDir: true,
        maxSpillBytes: 5 * 1024 ** 3
      })
      expect(
        yield* read({
          BASH_DEFAULT_TIMEOUT_MS: "soon",
          BASH_MAX_OUTPUT_LENGTH: "-5",
          CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "0",
          TOOLGATE_BASH_OUTPUT_MAX_BYTES: "1048576"
        })
      ).toEqual({
        defaultTimeoutMs: 120_000,
        maxTimeoutMs: 600_000,
        maxOutputChars: 30_000,
        maintainProjectDir: false,
        maxSpillBytes: 1024 * 1024
      })
    }))

  it("effective timeout", () => {
    const settings = {
      defaultTimeoutMs: 120_000,
      maxTimeoutMs: 600_000,
      maxOutputChars: 30_000,
      maintainProjectDir: false,
      maxSpillBytes: 1024
    }
    expect(effectiveTimeoutMs(undefined, settings)).toBe(120_000)
    expect(effectiveTimeoutMs(0, settings)).toBe(120_000)
    expect(effectiveTimeoutMs(5000, settings)).toBe(5000)
    expect(effectiveTimeoutMs(10_000_000, settings)).toBe(600_000)
  })
})

describe("escapeInvisible", () => {
  it("escapes controls, zero-width, bidi and tag characters", () => {
    expect(escapeInvisible("a\tb\u0007c\u202ed\u{e0041}e\ufeff")).toBe("a\\tb\\u0007c\\u202ed\\u{e0041}e\\ufeff")
    expect(escapeInvisible("plain ünïcode 漢字")).toBe("plain ünïcode 漢字")
  })
})
