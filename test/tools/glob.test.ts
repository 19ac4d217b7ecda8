import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { GlobTool } from "../../src/tools/Glob.js"
import { FileGuard } from "../../src/internal/fileGuard.js"
import { findRipgrep } from "../../src/tools/files/ripgrep.js"
import { makeEnv, makeTempDir, removeDir, runTool, setMtime, withSettings, write } from "../fixtures/files/harness.js"
import { buildTree } from "../fixtures/files/tree.js"

let dir: string
beforeEach(() => {
  dir = makeTempDir()
})
afterEach(() => removeDir(dir))

const hasRg = findRipgrep() !== undefined

const globWith = (engine: "rg" | "js", input: Record<string, unknown>, extra: Record<string, string> = {}) =>
  Effect.flatMap(makeEnv(dir), (env) => runTool(GlobTool, input, env)).pipe(
    withSettings({ TOOLGATE_GLOB_ENGINE: engine, ...extra })
  )

/** Runs with both engines, requires identical text, and returns the result. */
const glob = (input: Record<string, unknown>, extra: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const js = yield* globWith("js", input, extra)
    if (!hasRg) return js
    const rg = yield* globWith("rg", input, extra)
    expect(js.text).toEqual(rg.text)
    expect(js.stage).toEqual(rg.stage)
    return rg
  })

const p = (name: string) => path.join(dir, name)

describe("Glob", () => {
  it.effect("an empty pattern lists every file, at any depth (Claude Code 2.1.332)", () =>
    Effect.gen(function*() {
      setMtime(write(p("a.txt"), ""), 1_600_000_000)
      setMtime(write(p("d/b.txt"), ""), 1_600_000_001)
      expect((yield* glob({ pattern: "" })).text).toBe("a.txt\nd/b.txt")
    }))

  it.effect("lists paths relative to the working directory, oldest first", () =>
    Effect.gen(function*() {
      write(p("src/old.ts"), "")
      write(p("src/new.ts"), "")
      write(p("src/mid.ts"), "")
      write(p("src/other.js"), "")
      setMtime(p("src/old.ts"), 1_600_000_000)
      setMtime(p("src/mid.ts"), 1_650_000_000)
      setMtime(p("src/new.ts"), 1_700_000_000)
      const out = yield* glob({ pattern: "**/*.ts" })
      expect(out.text).toBe(["src/old.ts", "src/mid.ts", "src/new.ts"].join("\n"))
      expect(out.stage === "ok" && out.data).toMatchObject({ numFiles: 3, truncated: false, totalMatches: 3 })
    }))

  it.effect("files with the same mtime are listed by path", () =>
    Effect.gen(function*() {
      for (const name of ["b.txt", "c.txt", "a.txt"]) setMtime(write(p(name), ""), 1_600_000_000)
      expect((yield* glob({ pattern: "*.txt" })).text).toBe("a.txt\nb.txt\nc.txt")
    }))

  it.effect("a search outside the working directory lists absolute paths", () =>
    Effect.gen(function*() {
      const outside = makeTempDir()
      try {
        write(path.join(outside, "lib", "o.ts"), "")
        expect((yield* glob({ pattern: "**/*.ts", path: outside })).text).toBe(path.join(outside, "lib", "o.ts"))
      } finally {
        removeDir(outside)
      }
    }))

  it.effect("caps at 100 files, keeps the oldest, and says how many more there are", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 130; i++) {
        const file = write(p(`many/f${String(i).padStart(3, "0")}.txt`), "")
        setMtime(file, 1_600_000_000 + i)
      }
      const out = yield* glob({ pattern: "many/*.txt" })
      const lines = out.text.split("\n")
      expect(lines).toHaveLength(101)
      expect(lines[0]).toBe("many/f000.txt")
      expect(lines[99]).toBe("many/f099.txt")
      expect(lines[100]).toBe(
        "(Showing 100 of 130 matching files; 30 more are not listed. Narrow the pattern or path to see the rest.)"
      )
      expect(out.stage === "ok" && out.data).toMatchObject({ numFiles: 100, truncated: true, totalMatches: 130 })
    }))

  it.effect("No files found", () =>
    Effect.gen(function*() {
      write(p("a.txt"), "")
      expect((yield* glob({ pattern: "**/*.nothing" })).text).toBe("No files found")
    }))

  it.effect("a pattern without a slash matches at any depth; one with a slash is anchored at the search directory", () =>
    Effect.gen(function*() {
      buildTree(dir)
      const anyDepth = yield* glob({ pattern: "*.ts" })
      expect(anyDepth.text.split("\n").sort()).toEqual(["src/a.ts", "src/deep/c.ts", "src/sub/.hidden.ts"].sort())
      const anchored = yield* glob({ pattern: "src/*.ts" })
      expect(anchored.text).toBe("src/a.ts")
      const inPath = yield* glob({ pattern: "*.ts", path: "src/deep" })
      expect(inPath.text).toBe("src/deep/c.ts")
      const braces = yield* glob({ pattern: "src/*.{ts,tsx}" })
      expect(braces.text.split("\n").sort()).toEqual(["src/a.ts", "src/b.tsx"])
    }))

  it.effect("ignores .gitignore by default (and honours it with CLAUDE_CODE_GLOB_NO_IGNORE=false); hidden files listed; .git and symlinks left out", () =>
    Effect.gen(function*() {
      buildTree(dir)
      const all = yield* glob({ pattern: "**/*.js" })
      expect(all.text).toBe("dist/out.js")
      const respecting = yield* glob({ pattern: "**/*.js" }, { CLAUDE_CODE_GLOB_NO_IGNORE: "false" })
      expect(respecting.text).toBe("No files found")
      const everything = (yield* glob({ pattern: "**/*" })).text.split("\n")
      expect(everything).toContain("src/sub/.hidden.ts")
      expect(everything).toContain(".gitignore")
      expect(everything.some((f) => `/${f}`.includes("/.git/"))).toBe(false)
      expect(everything).not.toContain("link.ts")
    }))

  it.effect("an absolute pattern searches from its directory", () =>
    Effect.gen(function*() {
      buildTree(dir)
      const out = yield* glob({ pattern: path.join(dir, "src", "**", "*.ts") })
      expect(out.text.split("\n").sort()).toEqual(["src/a.ts", "src/deep/c.ts", "src/sub/.hidden.ts"].sort())
    }))

  it.effect("a given path must be an existing directory: an error of the call, in Claude Code's words", () =>
    Effect.gen(function*() {
      write(p("file.txt"), "")
      const only = `only-here-${path.basename(dir)}`
      write(p(`${only}/x.ts`), "")
      expect(yield* glob({ pattern: "*", path: "missing" })).toMatchObject({
        stage: "failed",
        text: `Directory does not exist: missing. Note: your current working directory is ${dir}.`
      })
      // a path missing the project folder: the same path inside the working directory is suggested
      expect(yield* glob({ pattern: "*", path: path.join(path.dirname(dir), only) })).toMatchObject({
        stage: "failed",
        text: `Directory does not exist: ${
          path.join(path.dirname(dir), only)
        }. Note: your current working directory is ${dir}. Did you mean ${p(only)}?`
      })
      expect(yield* glob({ pattern: "*", path: "file.txt" })).toMatchObject({
        stage: "failed",
        text: "Path is not a directory: file.txt"
      })
    }))

  it.effect("both engines select the same files for assorted patterns", () =>
    Effect.gen(function*() {
      buildTree(dir)
      for (
        const pattern of [
          "**/*",
          "*",
          "src/**",
          "**/deep/*",
          "[ab]*",
          "?akefile",
          "docs",
          "**/*.{md,txt}",
          "a b/*",
          "!*.ts"
        ]
      ) {
        yield* glob({ pattern })
        yield* glob({ pattern }, { CLAUDE_CODE_GLOB_NO_IGNORE: "false" })
      }
    }))

  it("has Claude Code's flags and a read permission subject on the search root", () => {
    const session = {
      sessionId: "s",
      sessionDir: "/tmp/s",
      projectDir: "/w",
      cwd: "/w",
      additionalDirectories: [],
      permissionMode: "default" as const
    }
    expect(GlobTool.name).toBe("Glob")
    expect(GlobTool.isReadOnly({ pattern: "*" })).toBe(true)
    expect(GlobTool.isConcurrencySafe({ pattern: "*" })).toBe(true)
    expect(GlobTool.isDestructive({ pattern: "*" })).toBe(false)
    expect(GlobTool.interruptBehavior()).toBe("cancel")
    expect(GlobTool.maxResultSizeChars).toBe(100_000)
    expect(GlobTool.permissionSubject({ pattern: "*" }, session)).toEqual({ kind: "read", path: "/w" })
    expect(GlobTool.permissionSubject({ pattern: "*", path: "lib" }, session)).toEqual({ kind: "read", path: "/w/lib" })
  })

  it.effect("the footprint reads the real search directory", () =>
    Effect.gen(function*() {
      fs.mkdirSync(p("real"))
      fs.symlinkSync(p("real"), p("alias"))
      const env = yield* makeEnv(dir)
      expect(yield* GlobTool.footprint!({ pattern: "*", path: p("alias") }, env.session)).toEqual({
        reads: [p("real")],
        writes: []
      })
    }))
})

describe("Glob under a FileGuard (a served session): lists from the folder it opened", () => {
  const guarded = (engine: "rg" | "js", input: Record<string, unknown>, allowed: string) =>
    globWith(engine, input).pipe(
      Effect.provideService(FileGuard, {
        refuses: (real) => (real === allowed || real.startsWith(`${allowed}/`) ? undefined : `${real} is outside`)
      })
    )

  it.effect("gives the same files as without a guard, under the session's own paths", () =>
    Effect.gen(function*() {
      buildTree(dir)
      for (const engine of hasRg ? (["js", "rg"] as const) : (["js"] as const)) {
        for (
          const input of [{ pattern: "**/*.ts" }, { pattern: "*.ts", path: p("src") }, { pattern: `${p("src")}/*.ts` }]
        ) {
          const plain = yield* globWith(engine, input)
          const held = yield* guarded(engine, input, dir)
          expect(held.text, `${engine} ${JSON.stringify(input)}`).toEqual(plain.text)
          expect(held.stage, held.text).toBe("ok")
          expect(held.text).not.toContain("/proc/")
        }
        const outside = yield* guarded(engine, { pattern: "*.ts", path: p("src") }, p("docs"))
        expect(outside.stage).toBe("failed")
        expect(outside.text).toContain("is outside")
      }
    }))
})
