import * as path from "node:path"
import { execFileSync } from "node:child_process"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { GrepTool } from "../../src/tools/Grep.js"
import { findRipgrep, runRipgrep } from "../../src/tools/files/ripgrep.js"
import { ripgrepArgs } from "../../src/tools/files/grepSearch.js"
import { FileGuard } from "../../src/internal/fileGuard.js"
import { SearchSandbox } from "../../src/internal/searchSandbox.js"
import { makeEnv, makeTempDir, removeDir, runTool, setMtime, withSettings, write } from "../fixtures/files/harness.js"
import { buildTree } from "../fixtures/files/tree.js"

let dir: string
beforeEach(() => {
  dir = makeTempDir()
  buildTree(dir)
})
afterEach(() => removeDir(dir))

const hasRg = findRipgrep() !== undefined

const grepWith = (engine: "rg" | "js", input: Record<string, unknown>) =>
  Effect.flatMap(makeEnv(dir), (env) => runTool(GrepTool, input, env)).pipe(
    withSettings({ TOOLGATE_GREP_ENGINE: engine })
  )

/** Runs with both engines, requires identical results, and returns them. */
const grep = (input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const js = yield* grepWith("js", input)
    if (!hasRg) return js
    const rg = yield* grepWith("rg", input)
    expect(js).toEqual(rg)
    return rg
  })

const p = (name: string) => path.join(dir, name)

describe("Grep output modes (ripgrep and the JS fallback give the same text)", () => {
  it.effect("files_with_matches (default): Found N files, newest first, relative to the working directory; .gitignore, .ignore, VCS dirs, binaries and symlinks left out", () =>
    Effect.gen(function*() {
      const out = yield* grep({ pattern: "foo" })
      expect(out.text).toBe(
        [
          "Found 10 files",
          "Makefile",
          "crlf.txt",
          "long.txt",
          "a b/c d.txt",
          "docs/readme.md",
          "keep.log",
          "src/sub/.hidden.ts",
          "src/deep/c.ts",
          "src/b.tsx",
          "src/a.ts"
        ].join("\n")
      )
    }))

  it.effect("content: path:line:text lines, long lines omitted, the CR of a CRLF line end gone (as in Claude Code)", () =>
    Effect.gen(function*() {
      const out = yield* grep({ pattern: "foo", output_mode: "content", glob: "*.txt" })
      expect(out.text).toBe(
        [
          `a b/c d.txt:1:foo spaced`,
          `crlf.txt:1:foo`,
          `crlf.txt:2:bar foo`,
          `long.txt:1:[Omitted long matching line]`,
          `long.txt:2:foo short`
        ].join("\n")
      )
    }))

  it.effect("content with context: -C, -A/-B, and -- between groups; -n false drops the numbers", () =>
    Effect.gen(function*() {
      const around = yield* grep({ pattern: "foo", output_mode: "content", path: p("src/deep"), "-C": 1 })
      expect(around.text).toBe(
        [
          `src/deep/c.ts-2-let x = 1`,
          `src/deep/c.ts:3:let foo = 2`,
          `src/deep/c.ts-4-let y = 3`,
          "--",
          `src/deep/c.ts-6-let w = 5`,
          `src/deep/c.ts:7:let foo2 = 6`
        ].join("\n")
      )
      const after = yield* grep({
        pattern: "foo",
        output_mode: "content",
        path: p("src/deep/c.ts"),
        "-A": "2",
        "-n": false
      })
      expect(after.text).toBe(["let foo = 2", "let y = 3", "let z = 4", "--", "let foo2 = 6"].join("\n"))
      const before = yield* grep({ pattern: "return", output_mode: "content", path: p("src"), "-B": 1, context: 0 })
      expect(before.text).toBe(`src/a.ts:5:  return foo`)
    }))

  it.effect("a file of a running process is not searched", () =>
    Effect.gen(function*() {
      expect(yield* grep({ pattern: "Name", path: "/proc/self/status" })).toEqual({
        stage: "rejected",
        text: "Cannot read '/proc/self/status': this path names a device or process file that this tool does not read."
      })
    }))

  it.effect("-i, -o, type and glob narrow the search", () =>
    Effect.gen(function*() {
      const ci = yield* grep({ pattern: "foo", "-i": true, type: "md" })
      expect(ci.text).toBe(`Found 1 file\ndocs/readme.md`)
      const only = yield* grep({ pattern: "fo+\\w*", output_mode: "content", "-o": true, path: p("src/deep/c.ts") })
      expect(only.text).toBe("3:foo\n7:foo2")
      const typed = yield* grep({ pattern: "foo", type: "ts" })
      expect(typed.text).toBe(`Found 4 files\nsrc/sub/.hidden.ts\nsrc/deep/c.ts\nsrc/b.tsx\nsrc/a.ts`)
      const globbed = yield* grep({ pattern: "foo", glob: "*.{ts,tsx} !**/deep/**" })
      expect(globbed.text).toBe(`Found 3 files\nsrc/sub/.hidden.ts\nsrc/b.tsx\nsrc/a.ts`)
      const anchored = yield* grep({ pattern: "foo", glob: "/src/*.ts" })
      expect(anchored.text).toBe(`Found 1 file\nsrc/a.ts`)
    }))

  it.effect("multiline lets a pattern span lines", () =>
    Effect.gen(function*() {
      const out = yield* grep({ pattern: "abc.*?def", multiline: true, output_mode: "content", path: p("multi.txt") })
      expect(out.text).toBe("2:abc\n3:def\n5:abc\n6:xyz def")
      const counted = yield* grep({
        pattern: "abc.*?def",
        multiline: "true",
        output_mode: "count",
        path: p("multi.txt")
      })
      expect(counted.text).toBe("multi.txt:2\n\nFound 2 total occurrences across 1 file.")
    }))

  it.effect("count: path:count lines and a total", () =>
    Effect.gen(function*() {
      const out = yield* grep({ pattern: "foo", output_mode: "count", path: p("src") })
      expect(out.text).toBe(
        [
          `src/a.ts:3`,
          `src/b.tsx:1`,
          `src/deep/c.ts:2`,
          `src/sub/.hidden.ts:1`,
          "",
          "Found 7 total occurrences across 4 files."
        ].join("\n")
      )
    }))

  it.effect("head_limit and offset paginate, with Claude Code's notices", () =>
    Effect.gen(function*() {
      const content = yield* grep({ pattern: "foo", output_mode: "content", path: p("src"), head_limit: 2, offset: 1 })
      expect(content.text).toBe(
        `src/a.ts:4:function foo() {\nsrc/a.ts:5:  return foo\n\n[Showing results with pagination = limit: 2, offset: 1]`
      )
      const files = yield* grep({ pattern: "foo", head_limit: 2 })
      expect(files.text).toBe(`Found 2 files limit: 2\nMakefile\ncrlf.txt`)
      const counts = yield* grep({ pattern: "foo", output_mode: "count", path: p("src"), head_limit: 1, offset: 1 })
      expect(counts.text).toBe(
        `src/b.tsx:1\n\nFound 7 total occurrences across 4 files. with pagination = limit: 1, offset: 1`
      )
      const all = yield* grep({ pattern: "foo", head_limit: 0, offset: 9 })
      expect(all.text).toBe(`Found 1 file offset: 9\nsrc/a.ts`)
      const exact = yield* grep({ pattern: "foo", output_mode: "content", path: p("src/a.ts"), head_limit: 3 })
      expect(exact.text).toBe("1:import foo from 'x'\n4:function foo() {\n5:  return foo")
    }))

  it.effect("an offset past the end says there are no entries there; a search outside the working directory shows absolute paths", () =>
    Effect.gen(function*() {
      expect((yield* grep({ pattern: "foo", output_mode: "content", path: p("src"), offset: 50 })).text).toBe(
        "No entries at this offset\n\n[Showing results with pagination = offset: 50]"
      )
      expect((yield* grep({ pattern: "foo", offset: 50 })).text).toBe(
        "No entries at this offset. [Showing results with pagination = offset: 50]"
      )
      expect((yield* grep({ pattern: "zzz-none", offset: 50 })).text).toBe("No files found")
      const outside = makeTempDir()
      try {
        write(path.join(outside, "o.txt"), "foo\n")
        expect((yield* grep({ pattern: "foo", path: outside, output_mode: "content" })).text).toBe(
          `${path.join(outside, "o.txt")}:1:foo`
        )
      } finally {
        removeDir(outside)
      }
    }))

  it.effect("the default head_limit is 250", () =>
    Effect.gen(function*() {
      write(p("many.txt"), "hit\n".repeat(300))
      const out = yield* grep({ pattern: "hit", output_mode: "content", path: p("many.txt") })
      const lines = out.text.split("\n")
      expect(lines[249]).toBe("250:hit")
      expect(lines.slice(250)).toEqual(["", "[Showing results with pagination = limit: 250]"])
    }))

  it.effect("no match: No files found / No matches found", () =>
    Effect.gen(function*() {
      expect((yield* grep({ pattern: "zzz-none" })).text).toBe("No files found")
      expect((yield* grep({ pattern: "zzz-none", output_mode: "content" })).text).toBe("No matches found")
      expect((yield* grep({ pattern: "zzz-none", output_mode: "count" })).text).toBe(
        "No matches found\n\nFound 0 total occurrences across 0 files."
      )
    }))

  it.effect("an explicitly named file is searched even if ignored; a binary one is reported as matching", () =>
    Effect.gen(function*() {
      expect((yield* grep({ pattern: "foo", output_mode: "content", path: p("app.log") })).text).toBe("1:foo log")
      expect((yield* grep({ pattern: "foo", output_mode: "content", path: p("bin.dat") })).text).toBe(
        "binary file matches (found \"\\0\" byte around offset 3)"
      )
      // Claude Code 2.1.332: the matching lines without a NUL byte, before and after it, then the notice
      write(p("mixed.bin"), "first line match\n\0binary match\nsecond match here\r\n")
      expect((yield* grep({ pattern: "match", output_mode: "content", path: p("mixed.bin") })).text).toBe(
        "1:first line match\n3:second match here\nbinary file matches (found \"\\0\" byte around offset 17)"
      )
      expect((yield* grep({ pattern: "match", output_mode: "content", path: p("mixed.bin"), "-n": false })).text).toBe(
        "first line match\nsecond match here\nbinary file matches (found \"\\0\" byte around offset 17)"
      )
    }))
})

const REJECTED = "Search failed \u2014 ripgrep rejected the pattern, glob, or file type without searching:"

describe("Grep errors", () => {
  it.effect("a bad regex is a tool error with either engine", () =>
    Effect.gen(function*() {
      const js = yield* grepWith("js", { pattern: "foo(" })
      expect(js.stage).toBe("failed")
      expect(js.text).toContain("regex parse error")
      if (hasRg) {
        const rg = yield* grepWith("rg", { pattern: "foo(" })
        expect(rg.stage).toBe("failed")
        // shown as ripgrep 14 shows it: the pattern inside (?:…)
        expect(rg.text).toBe(`${REJECTED}\nrg: regex parse error:\n    (?:foo()\n    ^\nerror: unclosed group`)
      }
    }))

  it.effect("a newline in a pattern needs multiline, with ripgrep's text", () =>
    Effect.gen(function*() {
      const out = yield* grep({ pattern: "abc\\ndef" })
      expect(out.stage).toBe("failed")
      expect(out.text.startsWith(`${REJECTED}\nrg: the literal '"\\n"' is not allowed in a regex`)).toBe(true)
    }))

  it.effect("counts that are not whole numbers: head_limit and offset are refused first, context lines as ripgrep refuses them", () =>
    Effect.gen(function*() {
      expect(yield* grep({ pattern: "foo", head_limit: 2.5 })).toEqual({
        stage: "rejected",
        text: "head_limit must be a whole number of 0 or more, got 2.5. Pass 0 for unlimited."
      })
      expect(yield* grep({ pattern: "foo", offset: -1 })).toEqual({
        stage: "rejected",
        text: "offset must be a whole number of 0 or more, got -1."
      })
      expect(yield* grep({ pattern: "foo", output_mode: "content", "-C": -1 })).toEqual({
        stage: "failed",
        text:
          "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: error parsing flag -C: value is not a valid number: invalid digit found in string"
      })
      expect((yield* grep({ pattern: "foo", output_mode: "content", "-A": 1.5 })).text).toContain(
        "error parsing flag -A"
      )
      // outside content mode the context flags are not used
      expect((yield* grep({ pattern: "foo", "-A": 1.5 })).stage).toBe("ok")
    }))

  it.effect("an unknown type is a tool error", () =>
    Effect.gen(function*() {
      expect(yield* grep({ pattern: "foo", type: "nosuchtype" })).toEqual({
        stage: "failed",
        text: `${REJECTED}\nrg: unrecognized file type: nosuchtype`
      })
    }))

  it.effect("a missing path is an error of the call, in Claude Code's words", () =>
    Effect.gen(function*() {
      expect(yield* grep({ pattern: "foo", path: "nowhere" })).toEqual({
        stage: "failed",
        text: `Path does not exist: nowhere. Note: your current working directory is ${dir}.`
      })
    }))
})

describe("Grep runs ripgrep safely", () => {
  it("never passes --pre and ignores ripgrep config files", () => {
    const args = ripgrepArgs({
      root: "/x",
      rootIsFile: false,
      pattern: "--pre=evil",
      mode: "content",
      caseInsensitive: false,
      multiline: false,
      lineNumbers: true,
      onlyMatching: false,
      before: 0,
      after: 0,
      globs: [],
      type: undefined,
      maxRecords: undefined
    })
    expect(args[0]).toBe("--no-config")
    expect(args.slice(-4)).toEqual(["-e", "--pre=evil", "--", "/x"])
    expect(args.filter((a) => a.startsWith("--pre"))).toEqual(["--pre=evil"])
  })

  it.effect("a pattern that looks like a flag is searched for literally", () =>
    Effect.gen(function*() {
      write(p("flags.txt"), "use --pre here\n")
      expect((yield* grep({ pattern: "--pre", output_mode: "content", path: p("flags.txt") })).text).toBe(
        "1:use --pre here"
      )
    }))

  it.live.skipIf(!hasRg)("interrupting a search kills ripgrep", () =>
    Effect.gen(function*() {
      const fifo = p("blocking.fifo")
      execFileSync("mkfifo", [fifo])
      const running = () =>
        execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").some((line) => line.includes(fifo))
      const fiber = yield* Effect.fork(runRipgrep(findRipgrep()!, ["--no-config", "-e", "x", "--", fifo], dir))
      for (let i = 0; i < 2000 && !running(); i++) yield* Effect.sleep("5 millis")
      expect(running()).toBe(true)
      yield* Fiber.interrupt(fiber)
      expect(running()).toBe(false)
    }))

  it.effect("a path that is neither a file nor a directory is refused", () =>
    Effect.gen(function*() {
      const fifo = p("other.fifo")
      execFileSync("mkfifo", [fifo])
      const out = yield* grep({ pattern: "x", path: fifo })
      expect(out.stage).toBe("failed")
      expect(out.text).toBe(`Cannot search ${fifo}: it is neither a regular file nor a directory.`)
    }))
})

describe("Grep contract", () => {
  it("has Claude Code's flags and a read permission subject on the search root", () => {
    const session = {
      sessionId: "s",
      sessionDir: "/tmp/s",
      projectDir: "/w",
      cwd: "/w",
      additionalDirectories: [],
      permissionMode: "default" as const
    }
    expect(GrepTool.name).toBe("Grep")
    expect(GrepTool.isReadOnly({ pattern: "x" })).toBe(true)
    expect(GrepTool.isConcurrencySafe({ pattern: "x" })).toBe(true)
    expect(GrepTool.isDestructive({ pattern: "x" })).toBe(false)
    expect(GrepTool.interruptBehavior()).toBe("cancel")
    expect(GrepTool.maxResultSizeChars).toBe(20_000)
    expect(GrepTool.permissionSubject({ pattern: "x" }, session)).toEqual({ kind: "read", path: "/w" })
    expect(GrepTool.permissionSubject({ pattern: "x", path: "src" }, session)).toEqual({ kind: "read", path: "/w/src" })
    expect(GrepTool.expandInput({ pattern: "x", path: "src" }, session)).toEqual({ pattern: "x", path: "/w/src" })
  })

  it.effect("files are ordered by mtime, then by path", () =>
    Effect.gen(function*() {
      setMtime(p("src/a.ts"), 1_900_000_000)
      const out = yield* grep({ pattern: "foo", path: p("src") })
      expect(out.text.split("\n").slice(0, 2)).toEqual(["Found 4 files", "src/a.ts"])
    }))
})

describe("Grep under a FileGuard (a served session): searches from the folder it opened", () => {
  const guarded = (engine: "rg" | "js", input: Record<string, unknown>, allowed: string) =>
    grepWith(engine, input).pipe(
      Effect.provideService(FileGuard, {
        refuses: (real) => (real === allowed || real.startsWith(`${allowed}/`) ? undefined : `${real} is outside`)
      })
    )

  it.effect("gives the same results as without a guard, under the session's own paths", () =>
    Effect.gen(function*() {
      const engines = hasRg ? (["js", "rg"] as const) : (["js"] as const)
      for (const engine of engines) {
        for (
          const input of [
            { pattern: "foo" },
            { pattern: "foo", output_mode: "content", path: p("src") },
            { pattern: "foo", output_mode: "count", glob: "*.ts" },
            { pattern: "foo", output_mode: "content", path: p("src/a.ts") }
          ]
        ) {
          const plain = yield* grepWith(engine, input)
          const held = yield* guarded(engine, input, dir)
          expect(held, `${engine} ${JSON.stringify(input)}`).toEqual(plain)
          expect(held.stage, held.text).toBe("ok")
          expect(held.text).not.toContain("/proc/")
        }
      }
    }))

  it.effect("refuses a search folder whose real path lies outside what the guard allows", () =>
    Effect.gen(function*() {
      for (const engine of hasRg ? (["js", "rg"] as const) : (["js"] as const)) {
        const out = yield* guarded(engine, { pattern: "foo", path: p("src") }, p("docs"))
        expect(out.stage).toBe("failed")
        expect(out.text).toContain("is outside")
      }
    }))
})

describe("Grep with a search sandbox (a served session's)", () => {
  it.effect.skipIf(!hasRg)("runs ripgrep through the sandbox, on the root by its name", () =>
    Effect.gen(function*() {
      const started: Array<ReadonlyArray<string>> = []
      const plain = yield* grepWith("rg", { pattern: "foo", output_mode: "content" })
      const held = yield* grepWith("rg", { pattern: "foo", output_mode: "content" }).pipe(
        Effect.provideService(FileGuard, { refuses: () => undefined }),
        Effect.provideService(SearchSandbox, (request) =>
          Effect.sync(() => {
            started.push(request.argv)
            return { file: request.argv[0]!, args: request.argv.slice(1), env: { ...request.env } }
          }))
      )
      expect(held).toEqual(plain)
      expect(started.length).toBeGreaterThan(0)
      expect(started[0]![started[0]!.length - 1]).toBe(dir)
    }))

  it.effect.skipIf(!hasRg)("fails the call when the sandbox cannot start it", () =>
    Effect.gen(function*() {
      const out = yield* grepWith("rg", { pattern: "foo" }).pipe(
        Effect.provideService(SearchSandbox, () => Effect.succeed(undefined))
      )
      expect(out.stage).toBe("failed")
      expect(out.text).toContain("no sandbox")
    }))
})
