/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter
 * notebook. Cells are found by their `id`, or by `cell-N` (the N-th cell, 0-based, as Read shows
 * cells that have no id). An insert goes after the given cell, or first when no cell is given.
 * A replaced code cell loses its outputs and execution count. The notebook is written back as
 * Claude Code writes it (see notebook/editNotebook.ts).
 *
 * Like Edit, the notebook must have been read in this session and not changed since
 * (FileState, the same entries Read records), and the write is atomic.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileAt } from "./files/pathTraits.js"
import { randomBytes } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { buildTool, reject, type ToolCheckContext, type ToolContext, type ToolResult } from "../Tool.js"
import { expandPath } from "../internal/expandPath.js"
import { optional } from "./schemas.js"
import { makeParentDirectories, writeAtomically } from "./files/atomic.js"
import { readCurrentFile, type CurrentFile } from "./files/currentFile.js"
import { FileGuard } from "../internal/fileGuard.js"
import {
  freshness,
  MODIFIED_SINCE_READ_MESSAGE,
  NOT_READ_MESSAGE,
  snapshotMtime,
  UNEXPECTEDLY_MODIFIED_MESSAGE
} from "./files/freshness.js"
import { oneLine } from "./files/format.js"
import { errorText, pathProblem } from "./files/paths.js"
import { encodeText, snapshotHash, stripBom } from "./files/textCodec.js"
import { planNotebookEdit, type NotebookEditPlan } from "./notebook/editNotebook.js"

export const NOTEBOOK_EDIT_TOOL_NAME = "NotebookEdit"

export const NotebookEditInput = Schema.Struct({
  notebook_path: Schema.String.annotations({
    description: "The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"
  }),
  cell_id: optional(Schema.String).annotations({
    description:
      "The ID of the cell to edit. When inserting a new cell, the new cell is inserted after the cell with this ID, or at the beginning if not specified. Cells without an id can be named cell-N (0-based index)."
  }),
  new_source: Schema.String.annotations({ description: "The new source for the cell" }),
  cell_type: optional(Schema.Literal("code", "markdown")).annotations({
    description:
      "The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."
  }),
  edit_mode: optional(Schema.Literal("replace", "insert", "delete")).annotations({
    description: "The type of edit to make (replace, insert, delete). Defaults to replace."
  })
})
export type NotebookEditInput = typeof NotebookEditInput.Type

export interface NotebookEditOutput {
  readonly notebook_path: string
  /** The cell edited or deleted; the new cell's id (undefined for a notebook whose cells have no ids). */
  readonly cell_id: string | undefined
  readonly cell_type: string
  readonly edit_mode: "replace" | "insert" | "delete"
  readonly new_source: string
  readonly language: string
  /** The notebook's text before and after, without BOM. */
  readonly original_file: string
  readonly updated_file: string
}

const PROMPT = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

- notebook_path must be an absolute path. Read the notebook first; an edit of a notebook you have not read, or that changed since you read it, fails.
- cell_id names the cell: its id as shown by Read, or cell-N (0-based) for notebooks whose cells have no id.
- edit_mode=replace (default) replaces the cell's source; a replaced code cell loses its outputs.
- edit_mode=insert adds a new cell after cell_id (at the beginning when cell_id is omitted); cell_type is required.
- edit_mode=delete removes the cell.`

// Claude Code's wording, which names its file-editing tool's internal name
const NOT_NOTEBOOK =
  "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool."

const randomId = () => randomBytes(4).toString("hex")

const toolError = (reason: string) => new ToolError({ reason })

const requestOf = (input: NotebookEditInput) => ({
  cellId: input.cell_id,
  newSource: input.new_source,
  cellType: input.cell_type,
  editMode: input.edit_mode ?? "replace"
})

/** Problems with the input alone, before the file is opened. */
const inputProblem = (input: NotebookEditInput): string | undefined => {
  const problem = pathProblem(input.notebook_path)
  if (problem !== undefined) return problem
  if (path.extname(input.notebook_path.trim()).toLowerCase() !== ".ipynb") return NOT_NOTEBOOK
  if ((input.edit_mode ?? "replace") === "insert" && input.cell_type === undefined) {
    return "Cell type is required when using edit_mode=insert."
  }
  if ((input.edit_mode ?? "replace") !== "insert" && input.cell_id === undefined) {
    return "Cell ID must be specified when not inserting a new cell."
  }
  return undefined
}

const readNotebook = (file: string): Effect.Effect<CurrentFile | undefined, ToolError> =>
  Effect.flatMap(
    FileGuard,
    (guard) =>
      Effect.tryPromise({
        try: () => readCurrentFile(file, guard),
        catch: (error) => toolError(`Cannot read ${file}: ${errorText(error)}`)
      })
  )

const validate = Effect.fn("NotebookEdit.validateInput")(function*(input: NotebookEditInput, ctx: ToolCheckContext) {
  const rejectWith = (text: string) => reject(NOTEBOOK_EDIT_TOOL_NAME, text)
  const problem = inputProblem(input)
  if (problem !== undefined) return yield* rejectWith(problem)
  const file = expandPath(input.notebook_path, ctx.session.cwd)
  const current = yield* readNotebook(file).pipe(Effect.catchAll((error) => rejectWith(error.reason)))
  const seen = Option.getOrUndefined(yield* ctx.fileState.get(file))
  // as in Claude Code, a notebook never read is refused as such, whether or not it exists
  if (seen === undefined) return yield* rejectWith(NOT_READ_MESSAGE)
  if (current === undefined) return yield* rejectWith("Notebook file does not exist.")
  if (current.stat.isDirectory()) return yield* rejectWith(`Cannot edit ${file}: it is a directory, not a file.`)
  const state = freshness(seen, { mtimeMs: current.stat.mtimeMs, contentHash: current.contentHash })
  if (state === "unread" || state === "partial") return yield* rejectWith(NOT_READ_MESSAGE)
  if (state === "stale") return yield* rejectWith(MODIFIED_SINCE_READ_MESSAGE)
  const planned = planNotebookEdit(stripBom(current.text), requestOf(input), randomId)
  if (!planned.ok) return yield* rejectWith(planned.reason)
})

const run = Effect.fn("NotebookEdit.call")(function*(input: NotebookEditInput, ctx: ToolContext) {
  const problem = inputProblem(input)
  if (problem !== undefined) return yield* Effect.fail(toolError(problem))
  const file = yield* Effect.try({
    try: () => expandPath(input.notebook_path, ctx.session.cwd),
    catch: (e) => toolError(errorText(e))
  })
  const current = yield* readNotebook(file)
  if (current === undefined) return yield* Effect.fail(toolError("Notebook file does not exist."))
  // Checked again right before writing: a change since validateInput must be refused, not overwritten.
  const state = freshness(Option.getOrUndefined(yield* ctx.fileState.get(file)), {
    mtimeMs: current.stat.mtimeMs,
    contentHash: current.contentHash
  })
  if (state === "unread" || state === "partial") return yield* Effect.fail(toolError(NOT_READ_MESSAGE))
  if (state === "stale") return yield* Effect.fail(toolError(UNEXPECTEDLY_MODIFIED_MESSAGE))
  const hasBom = current.text.charCodeAt(0) === 0xfeff
  const original = stripBom(current.text)
  const planned = planNotebookEdit(original, requestOf(input), randomId)
  if (!planned.ok) return yield* Effect.fail(toolError(planned.reason))
  const plan: NotebookEditPlan = planned.plan
  const written = hasBom ? `\uFEFF${plan.text}` : plan.text
  yield* makeParentDirectories(file, path.dirname(current.realPath))
  yield* writeAtomically(current.realPath, encodeText(written, current.encoding), current.stat.mode)
  const stat = yield* Effect.tryPromise({
    try: () => fs.promises.stat(current.realPath),
    catch: (error) => toolError(`Failed to stat ${current.realPath} after writing: ${errorText(error)}`)
  })
  yield* ctx.fileState.record(file, {
    mtimeMs: snapshotMtime(stat.mtimeMs),
    contentHash: snapshotHash(written),
    partial: false
  })
  const output: NotebookEditOutput = {
    notebook_path: file,
    cell_id: plan.cellId,
    cell_type: plan.cellType,
    edit_mode: plan.editMode,
    new_source: input.new_source,
    language: plan.language,
    original_file: original,
    updated_file: plan.text
  }
  return { data: output } satisfies ToolResult<NotebookEditOutput>
})

const describeEdit = (output: NotebookEditOutput): string => {
  switch (output.edit_mode) {
    case "replace":
      return `Updated cell ${output.cell_id} with ${output.new_source}`
    case "insert":
      return output.cell_id === undefined
        ? `Inserted a new cell with ${output.new_source}`
        : `Inserted cell ${output.cell_id} with ${output.new_source}`
    case "delete":
      return `Deleted cell ${output.cell_id}`
  }
}

export const NotebookEditTool = buildTool<NotebookEditInput, NotebookEditOutput>({
  name: NOTEBOOK_EDIT_TOOL_NAME,
  shouldDefer: true,
  inputSchema: NotebookEditInput,
  description: "Replace, insert or delete a cell in a Jupyter notebook (.ipynb) that has been read.",
  prompt: PROMPT,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  isDestructive: (input) => input.edit_mode === "delete",
  interruptBehavior: () => "block",
  maxResultSizeChars: 100_000,
  ...fileAt<"notebook_path", NotebookEditInput>("notebook_path", "write"),
  validateInput: validate,
  call: run,
  mapResult: describeEdit,
  userFacingName: () => "Edit Notebook",
  renderUse: (input) =>
    `${oneLine(input.notebook_path, 160)}${input.cell_id === undefined ? "" : ` (${input.cell_id})`} ${
      input.edit_mode ?? "replace"
    }`,
  renderResult: (output) =>
    output.edit_mode === "delete"
      ? `Deleted cell ${output.cell_id}`
      : `${output.edit_mode === "insert" ? "Inserted" : "Updated"} ${output.cell_type} cell${
        output.cell_id === undefined ? "" : ` ${output.cell_id}`
      }`
})
