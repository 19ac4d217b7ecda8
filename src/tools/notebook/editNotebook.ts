/**
 * The NotebookEdit change as a pure function of the notebook's text, as Claude Code 2.1.332 makes
 * it: the notebook is parsed, the cell replaced, inserted or deleted (a new or replaced source is
 * one string), and the whole notebook written back as JSON with one-space indentation, in the
 * file's line endings and with its final newline if it had one.
 */
import { NOT_A_NOTEBOOK, parseNotebookJson } from "../files/notebook.js"

export type CellType = "code" | "markdown"
export type EditMode = "replace" | "insert" | "delete"

export interface NotebookEditRequest {
  readonly cellId: string | undefined
  readonly newSource: string
  readonly cellType: CellType | undefined
  readonly editMode: EditMode
}

export interface NotebookEditPlan {
  /** The new notebook text (without BOM, in the file's line endings). */
  readonly text: string
  /** The edited or deleted cell as the model named it; the new cell's id (none when the notebook's cells have no ids). */
  readonly cellId: string | undefined
  readonly cellType: string
  readonly editMode: EditMode
  readonly language: string
}

export type PlanResult = { readonly ok: true; readonly plan: NotebookEditPlan } | {
  readonly ok: false
  readonly reason: string
}

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type Cell = { [key: string]: Json }

const isObject = (u: unknown): u is Record<string, Json> => typeof u === "object" && u !== null && !Array.isArray(u)

const fail = (reason: string): PlanResult => ({ ok: false, reason })

const newCellId = (taken: ReadonlySet<string>, random: () => string): string => {
  for (;;) {
    const id = random()
    if (!taken.has(id)) return id
  }
}

/** The cell's index: by its id, else by `cell-N` (0-based); the error text when there is none. */
export const cellIndexOf = (cells: ReadonlyArray<unknown>, cellId: string): number | string => {
  const byId = cells.findIndex((c) => isObject(c) && c.id === cellId)
  if (byId !== -1) return byId
  const match = /^cell-(\d+)$/.exec(cellId)
  if (match !== null) {
    const index = Number(match[1])
    return index < cells.length ? index : `Cell with index ${index} does not exist in notebook.`
  }
  return `Cell with ID "${cellId}" not found in notebook.`
}

/** The notebook written back: one-space indentation, the original's line endings and final newline. */
const serialize = (notebook: unknown, original: string): string => {
  const crlf = /\r\n/.test(original.slice(0, original.indexOf("\n") + 1))
  const text = JSON.stringify(notebook, null, 1) + (/\n$/.test(original) ? "\n" : "")
  return crlf ? text.replace(/\n/g, "\r\n") : text
}

/** Plans the edit on `text` (the notebook without BOM). `randomId` makes ids for new cells. */
export const planNotebookEdit = (text: string, request: NotebookEditRequest, randomId: () => string): PlanResult => {
  let notebook: unknown
  try {
    notebook = parseNotebookJson(text)
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  if (!isObject(notebook)) return fail(NOT_A_NOTEBOOK)
  const cells = notebook.cells
  if (!Array.isArray(cells)) return fail(NOT_A_NOTEBOOK)
  const metadata = isObject(notebook.metadata) ? notebook.metadata : {}
  const languageInfo = isObject(metadata.language_info) ? metadata.language_info : {}
  const language = typeof languageInfo.name === "string" ? languageInfo.name : "python"
  const mode = request.editMode
  let index = 0
  if (request.cellId !== undefined) {
    const found = cellIndexOf(cells, request.cellId)
    if (typeof found === "string") return fail(found)
    index = found
  } else if (mode !== "insert") return fail("Cell ID must be specified when not inserting a new cell.")
  const planned = (cellId: string | undefined, cellType: string): PlanResult => ({
    ok: true,
    plan: { text: serialize(notebook, text), cellId, cellType, editMode: mode, language }
  })

  if (mode === "delete") {
    const [target] = cells.splice(index, 1)
    return planned(request.cellId, isObject(target) && typeof target.cell_type === "string" ? target.cell_type : "code")
  }

  if (mode === "insert") {
    const cellType = request.cellType
    if (cellType === undefined) return fail("Cell type is required when using edit_mode=insert.")
    const nbformat = typeof notebook.nbformat === "number" ? notebook.nbformat : 4
    const minor = typeof notebook.nbformat_minor === "number" ? notebook.nbformat_minor : 0
    const withIds = nbformat > 4 || (nbformat === 4 && minor >= 5)
    const taken = new Set(cells.flatMap((c) => (isObject(c) && typeof c.id === "string" ? [c.id] : [])))
    const id = withIds ? newCellId(taken, randomId) : undefined
    const cell: Cell = {
      cell_type: cellType,
      ...(id === undefined ? {} : { id }),
      source: request.newSource,
      metadata: {},
      ...(cellType === "code" ? { execution_count: null, outputs: [] } : {})
    }
    cells.splice(request.cellId === undefined ? 0 : index + 1, 0, cell)
    return planned(id, cellType)
  }

  // replace
  const cell = cells[index]
  if (!isObject(cell)) return fail(`Notebook is not valid: cell ${request.cellId} is not a JSON object.`)
  const oldType = typeof cell.cell_type === "string" ? cell.cell_type : "code"
  const newType = request.cellType ?? oldType
  cell.cell_type = newType
  cell.source = request.newSource
  if (newType === "code") {
    // The outputs belong to the old source: a replaced code cell has not been run.
    cell.outputs = []
    cell.execution_count = null
  } else {
    delete cell.execution_count
    delete cell.outputs
  }
  return planned(request.cellId, newType)
}
