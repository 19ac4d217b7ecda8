import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { EditTool } from "../../src/tools/Edit.js"
import { ReadTool } from "../../src/tools/Read.js"
import { makeEnv, makeTempDir, removeDir, runTool, touch, write, type Env } from "../fixtures/files/harness.js"

let dir: string
beforeEach(() => {
  dir = makeTempDir()
})
afterEach(() => removeDir(dir))

const NOT_READ = "File has not been read yet. Read it first before writing to it."
const MODIFIED =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
const CURRENT = " (file state is current in your context \u2014 no need to Read it back)"
const STALE_APPLIED =
  " (note: the file had been modified on disk since you last read it \u2014 the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)"

const readFile = (env: Env, file: string, extra: Record<string, unknown> = {}) =>
  runTool(ReadTool, { file_path: file, ...extra }, env)
const edit = (env: Env, input: Record<string, unknown>) => runTool(EditTool, input, env)

describe("Edit", () => {
  it.effect("trailing whitespace goes from each new line in an existing file (not in Markdown, not in a file the edit creates)", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const txt = write(path.join(dir, "a.txt"), "alpha\nbeta\n")
      yield* readFile(env, txt)
      yield* edit(env, { file_path: txt, old_string: "alpha", new_string: "one  \ntwo\t\n   \nthree\u00a0\r" })
      expect(fs.readFileSync(txt, "utf8")).toBe("one\ntwo\n\nthree\r\nbeta\n")
      const md = write(path.join(dir, "a.MD"), "alpha\n")
      yield* readFile(env, md)
      yield* edit(env, { file_path: md, old_string: "alpha", new_string: "line break  " })
      expect(fs.readFileSync(md, "utf8")).toBe("line break  \n")
      const created = path.join(dir, "new.txt")
      yield* edit(env, { file_path: created, old_string: "", new_string: "kept  \n" })
      expect(fs.readFileSync(created, "utf8")).toBe("kept  \n")
      // compared as it would be written: only trailing spaces added is no change
      const make = write(path.join(dir, "Makefile"), "all:\n")
      yield* readFile(env, make)
      expect(yield* edit(env, { file_path: make, old_string: "all:", new_string: "all:  " })).toMatchObject({
        stage: "rejected",
        text: "No changes to make: old_string and new_string are exactly the same."
      })
    }))

  it.effect("a file ending in a lone CR (which Read does not show) is edited, without calling the view current", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "cr.txt"), "one\rtwo\rthree\r")
      expect((yield* readFile(env, file)).text).toBe("1\tone\rtwo\rthree")
      const out = yield* edit(env, { file_path: file, old_string: "two", new_string: "TWO" })
      expect(out).toMatchObject({ stage: "ok", text: `The file ${file} has been updated successfully.` })
      expect(fs.readFileSync(file, "utf8")).toBe("one\rTWO\rthree\r")
    }))

  it.effect("Read → Edit → Read on a real file", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "app.ts"), "const a = 1\nconst b = 2\n")
      yield* readFile(env, file)
      const out = yield* edit(env, { file_path: file, old_string: "const b = 2", new_string: "const b = 3" })
      expect(out).toMatchObject({ stage: "ok", text: `The file ${file} has been updated successfully.${CURRENT}` })
      expect(fs.readFileSync(file, "utf8")).toBe("const a = 1\nconst b = 3\n")
      expect((yield* readFile(env, file)).text).toBe("1\tconst a = 1\n2\tconst b = 3\n3\t")
      // the snapshot was updated by the edit: a second edit needs no new read
      const again = yield* edit(env, { file_path: file, old_string: "const a = 1", new_string: "const a = 0" })
      expect(again.stage).toBe("ok")
      expect(again.stage === "ok" && EditTool.hookResponse(again.data)).toEqual({
        filePath: file,
        oldString: "const a = 1",
        newString: "const a = 0",
        originalFile: "const a = 1\nconst b = 3\n",
        structuredPatch: [{
          oldStart: 1,
          oldLines: 2,
          newStart: 1,
          newLines: 2,
          lines: ["-const a = 1", "+const a = 0", " const b = 3"]
        }],
        userModified: false,
        replaceAll: false
      })
    }))

  it.effect("a file that is not valid UTF-8 is refused and left alone", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "latin1.txt"), Buffer.from("a\ncaf\xe9\n", "latin1"))
      yield* readFile(env, file)
      const out = yield* edit(env, { file_path: file, old_string: "a\n", new_string: "A\n" })
      expect(out.stage).toBe("rejected")
      expect(out.text).toMatch(/^File is not valid UTF-8: /)
      expect(fs.readFileSync(file)).toEqual(Buffer.from("a\ncaf\xe9\n", "latin1"))
    }))

  it.effect("an unread file is refused (check 7) and left alone", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "hello")
      expect(yield* edit(env, { file_path: file, old_string: "hello", new_string: "bye" })).toEqual({
        stage: "rejected",
        text: NOT_READ
      })
      expect(fs.readFileSync(file, "utf8")).toBe("hello")
    }))

  it.effect("a file changed outside after the read: refused when old_string no longer applies (check 8)", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "hello world")
      yield* readFile(env, file)
      fs.writeFileSync(file, "goodbye world")
      touch(file, 10)
      expect(yield* edit(env, { file_path: file, old_string: "hello", new_string: "bye" })).toEqual({
        stage: "rejected",
        text: MODIFIED
      })
      expect(fs.readFileSync(file, "utf8")).toBe("goodbye world")
    }))

  it.effect("a file changed outside after the read: applied when old_string still applies, with a note", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "hello world\n")
      yield* readFile(env, file)
      fs.writeFileSync(file, "hello world\nmore\n")
      touch(file, 10)
      const out = yield* edit(env, { file_path: file, old_string: "hello", new_string: "bye" })
      expect(out).toMatchObject({
        stage: "ok",
        text: `The file ${file} has been updated successfully.${STALE_APPLIED}`
      })
      expect(fs.readFileSync(file, "utf8")).toBe("bye world\nmore\n")
      // the model has not seen the whole file: a Write now needs a Read first
      const { WriteTool } = yield* Effect.promise(() => import("../../src/tools/Write.js"))
      expect(yield* runTool(WriteTool, { file_path: file, content: "x" }, env)).toEqual({
        stage: "rejected",
        text: NOT_READ
      })
    }))

  it.effect("a newer mtime with the same content is fine after a full read", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "x.txt"), "hello world")
      yield* readFile(env, file)
      touch(file, 10)
      expect((yield* edit(env, { file_path: file, old_string: "world", new_string: "there" })).stage).toBe("ok")
    }))

  it.effect("a change between validateInput and call is refused when the edit no longer applies, not overwritten", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "race.txt"), "value = 1\n")
      yield* readFile(env, file)
      const input = { file_path: file, old_string: "value = 1", new_string: "value = 2" }
      yield* EditTool.validateInput(input, env.check)
      fs.writeFileSync(file, "value = 7\nother = 9\n")
      touch(file, 5)
      const result = yield* Effect.either(EditTool.call(input, env.ctx))
      expect(Either.isLeft(result) && result.left.reason).toBe(
        "File has been unexpectedly modified. Read it again before attempting to write it."
      )
      expect(fs.readFileSync(file, "utf8")).toBe("value = 7\nother = 9\n")
    }))

  it.effect("a range read allows an edit; after an mtime change only an edit that still applies goes through", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "r.txt"), "a\nb\nc\n")
      yield* readFile(env, file, { offset: 2, limit: 1 })
      // only part of the file was read: no claim that the model holds it all
      expect(yield* edit(env, { file_path: file, old_string: "b", new_string: "B" })).toMatchObject({
        stage: "ok",
        text: `The file ${file} has been updated successfully.`
      })
      yield* readFile(env, file, { offset: 1, limit: 1 })
      touch(file, 10)
      expect(yield* edit(env, { file_path: file, old_string: "zzz", new_string: "C" })).toEqual({
        stage: "rejected",
        text: MODIFIED
      })
      expect(yield* edit(env, { file_path: file, old_string: "c", new_string: "C" })).toMatchObject({
        stage: "ok",
        text: `The file ${file} has been updated successfully.${STALE_APPLIED}`
      })
    }))

  it.effect("replace_all replaces every occurrence; without it several matches are an error (check 10)", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "r.txt"), "foo bar foo baz foo")
      yield* readFile(env, file)
      expect(yield* edit(env, { file_path: file, old_string: "foo", new_string: "qux" })).toEqual({
        stage: "rejected",
        text:
          "Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: foo"
      })
      const out = yield* edit(env, { file_path: file, old_string: "foo", new_string: "qux", replace_all: "true" })
      expect(out.text).toBe(`The file ${file} has been updated. All occurrences were successfully replaced.${CURRENT}`)
      expect(fs.readFileSync(file, "utf8")).toBe("qux bar qux baz qux")
    }))

  it.effect("checks 1, 4, 5, 6 and 9 give the exact texts", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "t.txt"), "some text")
      yield* readFile(env, file)
      expect(yield* edit(env, { file_path: file, old_string: "same", new_string: "same" })).toEqual({
        stage: "rejected",
        text: "No changes to make: old_string and new_string are exactly the same."
      })
      expect(yield* edit(env, { file_path: file, old_string: "absent", new_string: "x" })).toEqual({
        stage: "rejected",
        text: "String to replace not found in file.\nString: absent"
      })
      expect(yield* edit(env, { file_path: file, old_string: "", new_string: "x" })).toEqual({
        stage: "rejected",
        text: "Cannot create new file - file already exists."
      })
      expect(yield* edit(env, { file_path: path.join(dir, "t.md"), old_string: "a", new_string: "b" })).toEqual({
        stage: "rejected",
        text: `File does not exist. Note: your current working directory is ${dir}. Did you mean t.txt?`
      })
      const nb = write(path.join(dir, "n.ipynb"), "{\"cells\":[]}")
      expect(yield* edit(env, { file_path: nb, old_string: "cells", new_string: "x" })).toEqual({
        stage: "rejected",
        text: "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."
      })
    }))

  it.effect("a file over 1 GiB is refused (check 3)", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = path.join(dir, "huge.bin")
      fs.writeFileSync(file, "")
      fs.truncateSync(file, 1024 * 1024 * 1024 + 1)
      expect(yield* edit(env, { file_path: file, old_string: "a", new_string: "b" })).toEqual({
        stage: "rejected",
        text: "File is too large to edit (1GB). Maximum editable file size is 1GB."
      })
    }))

  it.effect("an empty old_string creates a missing file, with its directories", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = path.join(dir, "new", "deep", "f.txt")
      const out = yield* edit(env, { file_path: file, old_string: "", new_string: "fresh\n" })
      expect(out.stage).toBe("ok")
      expect(fs.readFileSync(file, "utf8")).toBe("fresh\n")
      expect(EditTool.userFacingName({ file_path: file, old_string: "", new_string: "x" })).toBe("Create")
    }))

  it.effect("a relative file_path is taken from the working directory and shown as given; a directory is refused", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      write(path.join(dir, "rel.txt"), "a\n")
      yield* readFile(env, "rel.txt")
      expect(yield* edit(env, { file_path: "rel.txt", old_string: "a", new_string: "b" })).toMatchObject({
        stage: "ok",
        text: `The file rel.txt has been updated successfully.${CURRENT}`
      })
      expect(fs.readFileSync(path.join(dir, "rel.txt"), "utf8")).toBe("b\n")
      fs.mkdirSync(path.join(dir, "sub"))
      expect(yield* edit(env, { file_path: path.join(dir, "sub"), old_string: "a", new_string: "b" })).toEqual({
        stage: "rejected",
        text: "Error calling tool (Edit): EISDIR: illegal operation on a directory, read"
      })
    }))

  it.effect("a CRLF file stays CRLF", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "w.txt"), "one\r\ntwo\r\nthree\r\n")
      yield* readFile(env, file)
      expect((yield* edit(env, { file_path: file, old_string: "two\nthree", new_string: "2\n3\n3.5" })).stage).toBe(
        "ok"
      )
      expect(fs.readFileSync(file, "utf8")).toBe("one\r\n2\r\n3\r\n3.5\r\n")
    }))

  it.effect("curly quotes in old_string match straight quotes, and the file keeps straight quotes", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "q.txt"), `say "hello" and 'bye'\n`)
      yield* readFile(env, file)
      const out = yield* edit(env, {
        file_path: file,
        old_string: "say \u201Chello\u201D and \u2018bye\u2019",
        new_string: "say \u201Chi\u201D and \u2018ciao\u2019"
      })
      expect(out.stage).toBe("ok")
      expect(fs.readFileSync(file, "utf8")).toBe(`say "hi" and 'ciao'\n`)
    }))

  it.effect("straight quotes match curly quotes, and the replacement takes the curly style of the matched text", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "q.txt"), "He said \u201Cno\u201D.\n")
      yield* readFile(env, file)
      const out = yield* edit(env, { file_path: file, old_string: "said \"no\"", new_string: "said \"yes, don't\"" })
      expect(out.stage === "ok" && out.data.oldString).toBe("said \u201Cno\u201D")
      // only the quote kinds the matched text uses are curled: it had no single quotes
      expect(fs.readFileSync(file, "utf8")).toBe("He said \u201Cyes, don't\u201D.\n")
    }))

  it.effect("curly single quotes and apostrophes in the file are kept in the replacement", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "q.txt"), "It\u2019s \u2018ok\u2019\n")
      yield* readFile(env, file)
      expect((yield* edit(env, { file_path: file, old_string: "It's 'ok'", new_string: "It's 'fine'" })).stage).toBe(
        "ok"
      )
      expect(fs.readFileSync(file, "utf8")).toBe("It\u2019s \u2018fine\u2019\n")
    }))

  it.effect("a UTF-16LE file keeps its BOM and encoding", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(
        path.join(dir, "u.txt"),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("naïve\r\ntext\r\n", "utf16le")])
      )
      yield* readFile(env, file)
      expect((yield* edit(env, { file_path: file, old_string: "naïve", new_string: "café" })).stage).toBe("ok")
      const bytes = fs.readFileSync(file)
      expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe])
      expect(bytes.subarray(2).toString("utf16le")).toBe("café\r\ntext\r\n")
    }))

  it.effect("keeps the file's mode and writes through a symlink", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const target = write(path.join(dir, "run.sh"), "echo old\n")
      fs.chmodSync(target, 0o750)
      const link = path.join(dir, "link.sh")
      fs.symlinkSync(target, link)
      yield* readFile(env, link)
      expect((yield* edit(env, { file_path: link, old_string: "old", new_string: "new" })).stage).toBe("ok")
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(target, "utf8")).toBe("echo new\n")
      expect(fs.statSync(target).mode & 0o777).toBe(0o750)
    }))

  it.effect("deleting text also deletes the newline after it; $ patterns are literal", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "d.txt"), "keep\ndrop me\nkeep too\n")
      yield* readFile(env, file)
      yield* edit(env, { file_path: file, old_string: "drop me", new_string: "" })
      expect(fs.readFileSync(file, "utf8")).toBe("keep\nkeep too\n")
      yield* edit(env, { file_path: file, old_string: "keep too", new_string: "$& $1 $$" })
      expect(fs.readFileSync(file, "utf8")).toBe("keep\n$& $1 $$\n")
    }))

  it("has Claude Code's flags and a write permission subject", () => {
    const input = { file_path: "/w/a.txt", old_string: "a", new_string: "b" }
    expect(EditTool.name).toBe("Edit")
    expect(EditTool.isReadOnly(input)).toBe(false)
    expect(EditTool.isConcurrencySafe(input)).toBe(false)
    expect(EditTool.interruptBehavior()).toBe("block")
    expect(EditTool.maxResultSizeChars).toBe(100_000)
    const session = {
      sessionId: "s",
      sessionDir: "/tmp/s",
      projectDir: "/w",
      cwd: "/w",
      additionalDirectories: [],
      permissionMode: "default" as const
    }
    expect(EditTool.permissionSubject(input, session)).toEqual({ kind: "write", path: "/w/a.txt" })
  })

  it.effect("the footprint of a new file is under the real path of its deepest existing directory", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(dir, "real"))
      fs.symlinkSync(path.join(dir, "real"), path.join(dir, "alias"))
      const env = yield* makeEnv(dir)
      const footprint = yield* EditTool.footprint!({
        file_path: path.join(dir, "alias", "x", "new.txt"),
        old_string: "",
        new_string: "a"
      }, env.session)
      expect(footprint).toEqual({ reads: [], writes: [path.join(dir, "real", "x", "new.txt")] })
    }))
})
