import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import { FileState, hashContent } from "../../src/services/FileState.js"
import { newSession } from "../../src/Session.js"
import { NotebookEditTool } from "../../src/tools/NotebookEdit.js"
import { ReadTool } from "../../src/tools/Read.js"
import { tempDir, testRuntime, toolUse } from "../support/runtime.js"

const FIXTURES = path.join(__dirname, "..", "fixtures", "notebooks")

describe("NotebookEdit on real notebooks, through the pipeline (Read first, acceptEdits mode)", () => {
  const cwd = tempDir("toolgate-nb-")
  afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))
  const session = newSession({ cwd, permissionMode: "acceptEdits", sessionDir: path.join(cwd, ".session") })
  let counter = 0
  const run = (name: string, input: unknown) =>
    Effect.gen(function*() {
      const pipeline = yield* CallPipeline
      return yield* pipeline.run(yield* pipeline.prepare(toolUse(`toolu_${++counter}`, name, input), 0), { session })
    })
  const copy = (fixture: string, as = fixture) => {
    const file = path.join(cwd, as)
    fs.copyFileSync(path.join(FIXTURES, fixture), file)
    return file
  }
  const read = (file: string) => run("Read", { file_path: file })
  const edit = (input: Record<string, unknown>) => run("NotebookEdit", input)
  /** The notebook as Claude Code writes it back: JSON with one-space indentation, the original's final newline. */
  const written = (notebook: unknown, finalNewline: boolean) =>
    JSON.stringify(notebook, null, 1) + (finalNewline ? "\n" : "")

  it.layer(testRuntime({ tools: [ReadTool, NotebookEditTool], cwd }))((it) => {
    it.effect("refuses a notebook that was not read", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "unread.ipynb")
        const outcome = yield* edit({ notebook_path: file, cell_id: "plot", new_source: "x" })
        expect(outcome.result.content).toBe(
          "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
        )
      }))

    it.effect("replaces a code cell: outputs cleared, the source one string, the notebook written back as Claude Code writes it", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "replace.ipynb")
        const before = JSON.parse(fs.readFileSync(file, "utf8"))
        expect((yield* read(file)).result.is_error).toBeUndefined()
        const outcome = yield* edit({
          notebook_path: file,
          cell_id: "load",
          new_source: "import polars as pl\ndf = pl.read_csv('data.csv')"
        })
        expect(outcome.result.content).toBe("Updated cell load with import polars as pl\ndf = pl.read_csv('data.csv')")
        const after = fs.readFileSync(file, "utf8")
        before.cells[1] = {
          ...before.cells[1],
          source: "import polars as pl\ndf = pl.read_csv('data.csv')",
          outputs: [],
          execution_count: null
        }
        expect(after).toBe(written(before, true))
      }))

    it.effect("a markdown replacement may change the cell type; edits in a row need no new Read", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "retype.ipynb")
        yield* read(file)
        const first = yield* edit({
          notebook_path: file,
          cell_id: "plot",
          new_source: "## Plot removed",
          cell_type: "markdown"
        })
        expect(first.result.is_error).toBeUndefined()
        const cell = JSON.parse(fs.readFileSync(file, "utf8")).cells[2]
        expect(cell).toEqual({ cell_type: "markdown", id: "plot", metadata: {}, source: "## Plot removed" })
        const second = yield* edit({ notebook_path: file, cell_id: "intro", new_source: "# Title\n" })
        expect(second.result.content).toBe("Updated cell intro with # Title\n")
      }))

    it.effect("inserts after a cell, or first without cell_id; new cells get ids in nbformat 4.5", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "insert.ipynb")
        const before = JSON.parse(fs.readFileSync(file, "utf8"))
        yield* read(file)
        const after1 = yield* edit({
          notebook_path: file,
          cell_id: "intro",
          new_source: "print('hi')\n",
          cell_type: "code",
          edit_mode: "insert"
        })
        const nb1 = JSON.parse(fs.readFileSync(file, "utf8"))
        const id = nb1.cells[1].id as string
        expect(id).toMatch(/^[0-9a-f]{8}$/)
        expect(after1.result.content).toBe(`Inserted cell ${id} with print('hi')\n`)
        const cell = {
          cell_type: "code",
          id,
          source: "print('hi')\n",
          metadata: {},
          execution_count: null,
          outputs: []
        }
        before.cells.splice(1, 0, cell)
        expect(fs.readFileSync(file, "utf8")).toBe(written(before, true))
        const first = yield* edit({
          notebook_path: file,
          new_source: "Top",
          cell_type: "markdown",
          edit_mode: "insert"
        })
        expect(first.result.is_error).toBeUndefined()
        const nb2 = JSON.parse(fs.readFileSync(file, "utf8"))
        expect(Object.keys(nb2.cells[0])).toEqual(["cell_type", "id", "source", "metadata"])
        expect(nb2.cells.map((c: { id: string }) => c.id).slice(1)).toEqual(["intro", id, "load", "plot"])
        const noType = yield* edit({ notebook_path: file, new_source: "x", edit_mode: "insert" })
        expect(noType.result.content).toBe(
          "<tool_use_error>Cell type is required when using edit_mode=insert.</tool_use_error>"
        )
      }))

    it.effect("deletes a cell; the last one leaves an empty list", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "delete.ipynb")
        const before = JSON.parse(fs.readFileSync(file, "utf8"))
        yield* read(file)
        const outcome = yield* edit({ notebook_path: file, cell_id: "load", new_source: "", edit_mode: "delete" })
        expect(outcome.result.content).toBe("Deleted cell load")
        before.cells.splice(1, 1)
        expect(fs.readFileSync(file, "utf8")).toBe(written(before, true))
        yield* edit({ notebook_path: file, cell_id: "plot", new_source: "", edit_mode: "delete" })
        yield* edit({ notebook_path: file, cell_id: "intro", new_source: "", edit_mode: "delete" })
        expect(JSON.parse(fs.readFileSync(file, "utf8")).cells).toEqual([])
        const added = yield* edit({
          notebook_path: file,
          new_source: "again",
          cell_type: "markdown",
          edit_mode: "insert"
        })
        expect(added.result.is_error).toBeUndefined()
        expect(JSON.parse(fs.readFileSync(file, "utf8")).cells).toHaveLength(1)
        expect(fs.readFileSync(file, "utf8")).toMatch(/^\{\n "cells": \[\n {2}\{\n {3}"cell_type": "markdown",/)
      }))

    it.effect("cells without ids are named cell-N; a new cell gets no id and is announced as a new cell", () =>
      Effect.gen(function*() {
        const file = copy("legacy.ipynb")
        yield* read(file)
        const replaced = yield* edit({ notebook_path: file, cell_id: "cell-1", new_source: "Other *text*" })
        expect(replaced.result.content).toBe("Updated cell cell-1 with Other *text*")
        const text = fs.readFileSync(file, "utf8")
        expect(JSON.parse(text).cells[1]).toEqual({ cell_type: "markdown", metadata: {}, source: "Other *text*" })
        // no final newline before, none after
        expect(text.endsWith("}")).toBe(true)
        const inserted = yield* edit({
          notebook_path: file,
          cell_id: "cell-0",
          new_source: "y = 2",
          cell_type: "code",
          edit_mode: "insert"
        })
        expect(inserted.result.content).toBe("Inserted a new cell with y = 2")
        const nb = JSON.parse(fs.readFileSync(file, "utf8"))
        expect(nb.cells[1]).toEqual({
          cell_type: "code",
          execution_count: null,
          metadata: {},
          outputs: [],
          source: "y = 2"
        })
        expect(nb.cells[1].id).toBeUndefined()
        const past = yield* edit({ notebook_path: file, cell_id: `cell-${nb.cells.length}`, new_source: "z" })
        expect(past.result.content).toBe(
          `<tool_use_error>Cell with index ${nb.cells.length} does not exist in notebook.</tool_use_error>`
        )
        const missing = yield* edit({ notebook_path: file, cell_id: "cell-7", new_source: "z" })
        expect(missing.result.content).toBe(
          "<tool_use_error>Cell with index 7 does not exist in notebook.</tool_use_error>"
        )
        const unknown = yield* edit({ notebook_path: file, cell_id: "nope", new_source: "z" })
        expect(unknown.result.content).toBe(
          "<tool_use_error>Cell with ID \"nope\" not found in notebook.</tool_use_error>"
        )
        const noId = yield* edit({ notebook_path: file, new_source: "z" })
        expect(noId.result.content).toBe(
          "<tool_use_error>Cell ID must be specified when not inserting a new cell.</tool_use_error>"
        )
      }))

    it.effect("refuses a notebook changed since it was read", () =>
      Effect.gen(function*() {
        const file = copy("analysis.ipynb", "stale.ipynb")
        yield* read(file)
        const changed = fs.readFileSync(file, "utf8").replace("plot(df)", "plot(df2)")
        fs.writeFileSync(file, changed)
        const outcome = yield* edit({ notebook_path: file, cell_id: "plot", new_source: "x" })
        expect(outcome.result.content).toBe(
          "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>"
        )
        expect(fs.readFileSync(file, "utf8")).toBe(changed)
      }))

    it.effect("keeps CRLF line ends and a BOM", () =>
      Effect.gen(function*() {
        const file = path.join(cwd, "crlf.ipynb")
        fs.writeFileSync(
          file,
          `\uFEFF${fs.readFileSync(path.join(FIXTURES, "analysis.ipynb"), "utf8").replaceAll("\n", "\r\n")}`
        )
        yield* read(file)
        const outcome = yield* edit({
          notebook_path: file,
          cell_id: "plot",
          new_source: "a\nb",
          edit_mode: "insert",
          cell_type: "code"
        })
        expect(outcome.result.is_error).toBeUndefined()
        const text = fs.readFileSync(file, "utf8")
        expect(text.charCodeAt(0)).toBe(0xfeff)
        expect(text.replaceAll("\r\n", "")).not.toContain("\n")
        expect(JSON.parse(text.slice(1)).cells[3].source).toBe("a\nb")
      }))

    it.effect("malformed notebooks, other files, missing files: clear errors", () =>
      Effect.gen(function*() {
        const state = yield* FileState
        const record = (file: string) => {
          const stat = fs.statSync(file)
          return state.record(file, {
            mtimeMs: Math.floor(stat.mtimeMs),
            contentHash: hashContent(fs.readFileSync(file, "utf8")),
            partial: false
          })
        }
        const broken = path.join(cwd, "broken.ipynb")
        fs.writeFileSync(broken, "{\"cells\": [")
        yield* record(broken)
        const bad = yield* edit({ notebook_path: broken, cell_id: "cell-0", new_source: "x" })
        expect(bad.result.content).toMatch(
          /^<tool_use_error>Notebook file is not valid JSON \(it may be truncated, corrupted, or still being written\): JSON Parse error: Unexpected EOF</
        )
        const noCells = path.join(cwd, "nocells.ipynb")
        fs.writeFileSync(noCells, "{\"metadata\": {}}")
        yield* record(noCells)
        expect((yield* edit({ notebook_path: noCells, cell_id: "cell-0", new_source: "x" })).result.content).toBe(
          "<tool_use_error>Notebook file is not a valid Jupyter notebook (top-level \"cells\" must be an array of cell objects, each with a string or string-array \"source\").</tool_use_error>"
        )
        expect(
          (yield* edit({ notebook_path: path.join(cwd, "notes.txt"), cell_id: "a", new_source: "x" })).result.content
        ).toBe(
          "<tool_use_error>File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.</tool_use_error>"
        )
        // never read: refused as such, as in Claude Code, before anyone looks whether it exists
        expect(
          (yield* edit({ notebook_path: path.join(cwd, "absent.ipynb"), cell_id: "a", new_source: "x" })).result.content
        ).toBe(
          "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
        )
        const gone = path.join(cwd, "gone.ipynb")
        fs.writeFileSync(gone, "{\"cells\": []}")
        yield* record(gone)
        fs.rmSync(gone)
        expect((yield* edit({ notebook_path: gone, cell_id: "a", new_source: "x" })).result.content).toBe(
          "<tool_use_error>Notebook file does not exist.</tool_use_error>"
        )
        const wrongMode = yield* edit({ notebook_path: broken, cell_id: "a", new_source: "x", edit_mode: "append" })
        // Claude Code's zod issue list
        expect(wrongMode.result.content).toContain(
          "\"code\": \"invalid_value\",\n    \"values\": [\n      \"replace\",\n      \"insert\",\n      \"delete\"\n    ]"
        )
      }))
  })

  it("asks for write permission on the notebook path, and is not concurrency-safe", () => {
    const input = { notebook_path: "/x/a.ipynb", new_source: "", cell_id: "a" }
    expect(NotebookEditTool.permissionSubject(input, session)).toEqual({ kind: "write", path: "/x/a.ipynb" })
    expect(NotebookEditTool.isConcurrencySafe(input)).toBe(false)
    expect(NotebookEditTool.isReadOnly(input)).toBe(false)
  })
})
