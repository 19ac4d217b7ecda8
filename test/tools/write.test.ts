import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber } from "effect"
import { WriteTool } from "../../src/tools/Write.js"
import { ReadTool } from "../../src/tools/Read.js"
import {
  makeEnv,
  makeTempDir,
  removeDir,
  runTool,
  tempLeftovers,
  touch,
  write,
  type Env
} from "../fixtures/files/harness.js"

let dir: string
beforeEach(() => {
  dir = makeTempDir()
})
afterEach(() => removeDir(dir))

const NOT_READ = "File has not been read yet. Read it first before writing to it."
const MODIFIED =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."

const readFile = (env: Env, file: string, extra: Record<string, unknown> = {}) =>
  runTool(ReadTool, { file_path: file, ...extra }, env)
const writeTool = (env: Env, input: Record<string, unknown>) => runTool(WriteTool, input, env)

/** Polls (live clock) until the condition holds. */
const waitUntil = (condition: () => boolean): Effect.Effect<void> =>
  Effect.suspend(
    () => (condition() ? Effect.void : Effect.sleep("1 millis").pipe(Effect.zipRight(waitUntil(condition))))
  )

const CURRENT = " (file state is current in your context \u2014 no need to Read it back)"

describe("Write", () => {
  it.effect("trailing whitespace goes from each line, line ends kept, except in Markdown", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const txt = path.join(dir, "a.txt")
      yield* writeTool(env, { file_path: txt, content: "one  \r\ntwo\t\n" })
      expect(fs.readFileSync(txt, "utf8")).toBe("one\r\ntwo\n")
      const mdx = path.join(dir, "a.mdx")
      yield* writeTool(env, { file_path: mdx, content: "break  \n" })
      expect(fs.readFileSync(mdx, "utf8")).toBe("break  \n")
    }))

  it.effect("creates a new file and its parent directories", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = path.join(dir, "a", "b", "new.txt")
      const out = yield* writeTool(env, { file_path: file, content: "line 1\nline 2\n" })
      expect(out).toMatchObject({ stage: "ok", text: `File created successfully at: ${file}${CURRENT}` })
      expect(fs.readFileSync(file, "utf8")).toBe("line 1\nline 2\n")
      expect(out.stage === "ok" && WriteTool.hookResponse(out.data)).toEqual({
        type: "create",
        filePath: file,
        content: "line 1\nline 2\n",
        structuredPatch: [],
        originalFile: null,
        userModified: false
      })
      expect(out.stage === "ok" && WriteTool.renderResult(out.data)).toBe(`Wrote 2 lines to ${file}`)
      // what it wrote counts as read
      expect((yield* writeTool(env, { file_path: file, content: "again" })).stage).toBe("ok")
    }))

  it.effect("an existing file must have been read", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "keep me")
      expect(yield* writeTool(env, { file_path: file, content: "gone" })).toEqual({ stage: "rejected", text: NOT_READ })
      expect(fs.readFileSync(file, "utf8")).toBe("keep me")
    }))

  it.effect("a file that is not valid UTF-8 is left alone, with a text saying why (Claude Code's)", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"))
      yield* readFile(env, file)
      const out = yield* writeTool(env, { file_path: file, content: "new\n" })
      expect(out.stage).toBe("failed")
      expect(out.text).toMatch(
        /^File is not valid UTF-8: .* nothing was written\. .* delete it first, then Write it\.$/
      )
      expect(fs.readFileSync(file)).toEqual(Buffer.from("caf\xe9\n", "latin1"))
    }))

  it.effect("replaces a file read in full, with Claude Code's text and a structured patch", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "a\nb\nc\n")
      yield* readFile(env, file)
      const out = yield* writeTool(env, { file_path: file, content: "a\nB\nc\n" })
      expect(out).toMatchObject({ stage: "ok", text: `The file ${file} has been updated successfully.${CURRENT}` })
      expect(out.stage === "ok" && out.data).toEqual({
        type: "update",
        filePath: file,
        content: "a\nB\nc\n",
        structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" a", "-b", "+B", " c"] }],
        originalFile: "a\nb\nc\n"
      })
    }))

  it.effect("a partial read is not enough to overwrite", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "a\nb\nc\n")
      yield* readFile(env, file, { offset: 2, limit: 1 })
      expect(yield* writeTool(env, { file_path: file, content: "z" })).toEqual({ stage: "rejected", text: NOT_READ })
    }))

  it.effect("a file changed since the read is refused", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "v1")
      yield* readFile(env, file)
      fs.writeFileSync(file, "v2 from outside")
      touch(file, 10)
      expect(yield* writeTool(env, { file_path: file, content: "v3" })).toEqual({ stage: "rejected", text: MODIFIED })
      expect(fs.readFileSync(file, "utf8")).toBe("v2 from outside")
    }))

  it.effect("a change between validateInput and call is refused, not overwritten", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "v1")
      yield* readFile(env, file)
      const input = { file_path: file, content: "mine" }
      yield* WriteTool.validateInput(input, env.check)
      fs.writeFileSync(file, "theirs")
      const result = yield* Effect.either(WriteTool.call(input, env.ctx))
      expect(Either.isLeft(result) && result.left.reason).toBe(
        "File has been unexpectedly modified. Read it again before attempting to write it."
      )
      expect(fs.readFileSync(file, "utf8")).toBe("theirs")
    }))

  it.effect("a file created between validateInput and call is not overwritten", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = path.join(dir, "late.txt")
      const input = { file_path: file, content: "mine" }
      yield* WriteTool.validateInput(input, env.check)
      fs.writeFileSync(file, "theirs")
      const result = yield* Effect.either(WriteTool.call(input, env.ctx))
      expect(Either.isLeft(result) && result.left.reason).toBe(NOT_READ)
      expect(fs.readFileSync(file, "utf8")).toBe("theirs")
    }))

  it.effect("a relative path is taken from the working directory and shown as given; a directory is refused", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      expect(yield* writeTool(env, { file_path: "notes/x.txt", content: "a" })).toMatchObject({
        stage: "ok",
        text: `File created successfully at: notes/x.txt${CURRENT}`
      })
      expect(fs.readFileSync(path.join(dir, "notes", "x.txt"), "utf8")).toBe("a")
      fs.mkdirSync(path.join(dir, "d"))
      expect(yield* writeTool(env, { file_path: "d", content: "a" })).toEqual({
        stage: "rejected",
        text: "d is a directory, not a file. To create a file inside it, include the file name in file_path."
      })
    }))

  it.effect("writes the content exactly as given and keeps the mode and a UTF-16 encoding", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const script = write(path.join(dir, "run.sh"), "echo 1\r\n")
      fs.chmodSync(script, 0o755)
      yield* readFile(env, script)
      yield* writeTool(env, { file_path: script, content: "echo 2\n" })
      expect(fs.readFileSync(script, "utf8")).toBe("echo 2\n")
      expect(fs.statSync(script).mode & 0o777).toBe(0o755)
      const u16 = write(
        path.join(dir, "u.txt"),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("old", "utf16le")])
      )
      yield* readFile(env, u16)
      yield* writeTool(env, { file_path: u16, content: "new ✓" })
      expect(fs.readFileSync(u16)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("new ✓", "utf16le")]))
    }))

  it.live("interrupting a large write leaves the old content and no temp file", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "big.txt"), "old content\n")
      yield* readFile(env, file)
      const fiber = yield* Effect.fork(
        WriteTool.call({ file_path: file, content: "x".repeat(96 * 1024 * 1024) }, env.ctx)
      )
      yield* waitUntil(() => tempLeftovers(dir).length > 0)
      yield* Fiber.interrupt(fiber)
      expect(fs.readFileSync(file, "utf8")).toBe("old content\n")
      expect(tempLeftovers(dir)).toEqual([])
    }))

  it.live("interrupting the write of a new file leaves no file and no temp file", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = path.join(dir, "never.txt")
      const fiber = yield* Effect.fork(
        WriteTool.call({ file_path: file, content: "y".repeat(96 * 1024 * 1024) }, env.ctx)
      )
      yield* waitUntil(() => tempLeftovers(dir).length > 0)
      yield* Fiber.interrupt(fiber)
      expect(fs.existsSync(file)).toBe(false)
      expect(tempLeftovers(dir)).toEqual([])
    }))

  it("has Claude Code's flags and a write permission subject", () => {
    const input = { file_path: "/w/a.txt", content: "" }
    expect(WriteTool.name).toBe("Write")
    expect(WriteTool.isReadOnly(input)).toBe(false)
    expect(WriteTool.isConcurrencySafe(input)).toBe(false)
    expect(WriteTool.interruptBehavior()).toBe("block")
    expect(WriteTool.maxResultSizeChars).toBe(100_000)
    const session = {
      sessionId: "s",
      sessionDir: "/tmp/s",
      projectDir: "/w",
      cwd: "/w",
      additionalDirectories: [],
      permissionMode: "default" as const
    }
    expect(WriteTool.permissionSubject(input, session)).toEqual({ kind: "write", path: "/w/a.txt" })
    expect(WriteTool.expandInput({ file_path: "~/x", content: "" }, session).file_path.startsWith("/")).toBe(true)
  })
})
