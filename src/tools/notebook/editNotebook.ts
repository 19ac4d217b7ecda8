/**
 * The NotebookEdit change as a pure function of the notebook's text: find the cell, build the new
 * or changed cell in the notebook's own style (indent, line ends, key order, source as a list of
 * lines or one string), and splice it into the text. Only the edited cell's bytes (and one
 * separator for an insert or delete) change.
 */
import { cellsLayout, JsonLayoutError, type CellsLayout, type Span } from "./jsonSpans.js"

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
  /** The edited, inserted or deleted cell: its id, or `cell-N` when cells have no ids. */
  readonly cellId: string
  readonly cellType: string
  readonly editMode: EditMode
  readonly language: string
}

export type PlanResult = { readonly ok: true; readonly plan: NotebookEditPlan } | { readonly ok: false; readonly reason: string }

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type Cell = { [key: string]: Json }

interface Style {
  /** One level of indentation; "" for a compact file. */
  readonly unit: string
  readonly newline: string
  /** Indentation in front of each cell. */
  readonly cellIndent: string
  /** Indentation of the line holding the `cells` key. */
  readonly arrayIndent: string
  readonly sortedKeys: boolean
}

const isObject = (u: unknown): u is Record<string, Json> => typeof u === "object" && u !== null && !Array.isArray(u)

const fail = (reason: string): PlanResult => ({ ok: false, reason })

/** Leading whitespace of the line `index` is on, when only whitespace precedes it. */
const indentBefore = (text: string, index: number): string | undefined => {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1
  const lead = text.slice(lineStart, index)
  return /^[ \t]*$/.test(lead) ? lead : undefined
}

const detectStyle = (text: string, layout: CellsLayout, cells: ReadonlyArray<unknown>): Style => {
  const firstBreak = text.indexOf("\n")
  const newline = firstBreak > 0 && text[firstBreak - 1] === "\r" ? "\r\n" : "\n"
  const unitMatch = /\n([ \t]+)\S/.exec(text)
  const unit = firstBreak === -1 || unitMatch === null ? "" : unitMatch[1]!
  const arrayIndent = indentBefore(text, text.lastIndexOf('"cells"', layout.array.start)) ?? unit
  const firstCell = layout.cells[0]
  const cellIndent = (firstCell !== undefined ? indentBefore(text, firstCell.start) : undefined) ?? (unit === "" ? "" : arrayIndent + unit)
  const objects = cells.filter(isObject)
  const sortedKeys = objects.every((cell) => {
    const keys = Object.keys(cell)
    return keys.every((k, i) => i === 0 || keys[i - 1]! <= k)
  })
  return { unit, newline, cellIndent, arrayIndent, sortedKeys }
}

const serializeCell = (cell: Cell, style: Style): string => {
  if (style.unit === "") return JSON.stringify(cell)
  return JSON.stringify(cell, null, style.unit).split("\n").join(`${style.newline}${style.cellIndent}`)
}

const sortKeys = (cell: Cell): Cell => Object.fromEntries(Object.entries(cell).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/** Jupyter's multi-line string form: lines that keep their "\n". */
export const sourceLines = (source: string): Array<string> => (source === "" ? [] : source.match(/[^\n]*\n|[^\n]+$/g) ?? [])

const sourceValue = (source: string, asArray: boolean): Json => (asArray ? sourceLines(source) : source)

const newCellId = (taken: ReadonlySet<string>, random: () => string): string => {
  for (;;) {
    const id = random()
    if (!taken.has(id)) return id
  }
}

export const cellIndexOf = (cells: ReadonlyArray<unknown>, cellId: string, allowEnd: boolean): number | string => {
  const byId = cells.findIndex((c) => isObject(c) && c.id === cellId)
  if (byId !== -1) return byId
  const match = /^cell-(\d+)$/.exec(cellId)
  if (match !== null) {
    const index = Number(match[1])
    if (index < cells.length || (allowEnd && index === cells.length)) return index
    return `Cell with index ${index} does not exist in notebook.`
  }
  return `Cell with ID "${cellId}" not found in notebook.`
}

const splice = (text: string, span: Span, replacement: string): string => text.slice(0, span.start) + replacement + text.slice(span.end)

/** Plans the edit on `text` (the notebook without BOM). `randomId` makes ids for new cells. */
export const planNotebookEdit = (text: string, request: NotebookEditRequest, randomId: () => string): PlanResult => {
  let notebook: unknown
  try {
    notebook = JSON.parse(text)
  } catch (error) {
    return fail(`Notebook is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!isObject(notebook)) return fail("Notebook is not valid: the file is not a JSON object.")
  const cells = notebook.cells
  if (!Array.isArray(cells)) return fail("Notebook is not valid: it has no cells array.")
  let layout: CellsLayout
  try {
    layout = cellsLayout(text)
  } catch (error) {
    return fail(`Notebook is not valid: ${error instanceof JsonLayoutError ? error.message : String(error)}`)
  }
  if (layout.cells.length !== cells.length) return fail("Notebook is not valid: its cells could not be located in the file.")
  const metadata = isObject(notebook.metadata) ? notebook.metadata : {}
  const languageInfo = isObject(metadata.language_info) ? metadata.language_info : {}
  const language = typeof languageInfo.name === "string" ? languageInfo.name : "python"
  const style = detectStyle(text, layout, cells)

  let mode = request.editMode
  let cellType = request.cellType
  let index = 0
  if (request.cellId !== undefined) {
    const found = cellIndexOf(cells, request.cellId, mode === "replace")
    if (typeof found === "string") return fail(found)
    index = found
    // `cell-N` one past the last cell: replacing it means adding a cell at the end.
    if (mode === "replace" && index === cells.length) {
      mode = "insert"
      cellType ??= "code"
      index = cells.length - 1
    }
  } else if (mode !== "insert") return fail("Cell ID must be specified when not inserting a new cell.")

  if (mode === "delete") {
    const target = cells[index]
    const spans = layout.cells
    const updated =
      spans.length === 1
        ? splice(text, layout.array, "[]")
        : index < spans.length - 1
          ? splice(text, { start: spans[index]!.start, end: spans[index + 1]!.start }, "")
          : splice(text, { start: spans[index - 1]!.end, end: spans[index]!.end }, "")
    return {
      ok: true,
      plan: { text: updated, cellId: request.cellId!, cellType: isObject(target) && typeof target.cell_type === "string" ? target.cell_type : "code", editMode: mode, language }
    }
  }

  const sourceAsArray = (cell: unknown): boolean =>
    isObject(cell) ? Array.isArray(cell.source) : !cells.some((c) => isObject(c) && typeof c.source === "string")

  if (mode === "insert") {
    if (cellType === undefined) return fail("Cell type is required when using edit_mode=insert.")
    const position = request.cellId === undefined ? 0 : index + 1
    const nbformat = typeof notebook.nbformat === "number" ? notebook.nbformat : 4
    const minor = typeof notebook.nbformat_minor === "number" ? notebook.nbformat_minor : 0
    const withIds = nbformat > 4 || (nbformat === 4 && minor >= 5)
    const taken = new Set(cells.flatMap((c) => (isObject(c) && typeof c.id === "string" ? [c.id] : [])))
    const id = withIds ? newCellId(taken, randomId) : undefined
    const base: Cell = {
      cell_type: cellType,
      ...(id === undefined ? {} : { id }),
      metadata: {},
      source: sourceValue(request.newSource, sourceAsArray(undefined))
    }
    const cell = cellType === "code" ? { ...base, execution_count: null, outputs: [] } : base
    const json = serializeCell(style.sortedKeys ? sortKeys(cell) : cell, style)
    const spans = layout.cells
    const separator =
      spans.length >= 2 ? text.slice(spans[0]!.end, spans[1]!.start) : style.unit === "" ? "," : `,${style.newline}${style.cellIndent}`
    const updated =
      spans.length === 0
        ? splice(text, layout.array, style.unit === "" ? `[${json}]` : `[${style.newline}${style.cellIndent}${json}${style.newline}${style.arrayIndent}]`)
        : position < spans.length
          ? splice(text, { start: spans[position]!.start, end: spans[position]!.start }, json + separator)
          : splice(text, { start: spans[spans.length - 1]!.end, end: spans[spans.length - 1]!.end }, separator + json)
    return { ok: true, plan: { text: updated, cellId: id ?? `cell-${position}`, cellType, editMode: mode, language } }
  }

  // replace
  const original = cells[index]
  if (!isObject(original)) return fail(`Notebook is not valid: cell ${request.cellId} is not a JSON object.`)
  const cell: Cell = { ...original }
  const oldType = typeof original.cell_type === "string" ? original.cell_type : "code"
  const newType = cellType ?? oldType
  cell.cell_type = newType
  cell.source = sourceValue(request.newSource, sourceAsArray(original))
  if (newType === "code") {
    // The outputs belong to the old source: a replaced code cell has not been run.
    cell.execution_count = null
    cell.outputs = []
  } else if (oldType === "code") {
    delete cell.execution_count
    delete cell.outputs
  }
  const json = serializeCell(style.sortedKeys ? sortKeys(cell) : cell, style)
  return { ok: true, plan: { text: splice(text, layout.cells[index]!, json), cellId: request.cellId!, cellType: newType, editMode: mode, language } }
}
