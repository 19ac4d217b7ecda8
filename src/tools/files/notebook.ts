/**
 * `.ipynb` files as text for Read: every cell with its id, type and outputs, in Claude Code's
 * `<cell id="…">…</cell id="…">` form. Image outputs are named, not embedded.
 */
import { jsonSyntaxError } from "./jsonSyntax.js"

export interface NotebookCellView {
  readonly cellId: string
  readonly cellType: string
  readonly source: string
  readonly language: string
  readonly outputs: ReadonlyArray<string>
}

/** Why a notebook cannot be read, in Claude Code's words (the whole result text). */
export class NotebookUnreadable extends Error {}

export const NOT_A_NOTEBOOK =
  "Notebook file is not a valid Jupyter notebook (top-level \"cells\" must be an array of cell objects, each with a string or string-array \"source\")."

/** The notebook's JSON, or the NotebookUnreadable text for a file that is not JSON. */
export const parseNotebookJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new NotebookUnreadable(
      `Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): JSON Parse error: ${
        jsonSyntaxError(text) ?? (error instanceof Error ? error.message : String(error))
      }`
    )
  }
}

const isSource = (source: unknown): boolean =>
  typeof source === "string" || (Array.isArray(source) && source.every((line) => typeof line === "string"))

export const parseNotebook = (text: string): ReadonlyArray<NotebookCellView> => {
  const notebook = parseNotebookJson(text)
  if (
    !isRecord(notebook) || !Array.isArray(notebook.cells) ||
    !notebook.cells.every((cell) => isRecord(cell) && isSource(cell.source))
  ) throw new NotebookUnreadable(NOT_A_NOTEBOOK)
  const metadata = isRecord(notebook.metadata) ? notebook.metadata : {}
  const languageInfo = isRecord(metadata.language_info) ? metadata.language_info : {}
  const language = typeof languageInfo.name === "string" ? languageInfo.name : "python"
  return notebook.cells.map((cell: unknown, index: number): NotebookCellView => {
    const c = isRecord(cell) ? cell : {}
    return {
      cellId: typeof c.id === "string" ? c.id : `cell-${index}`,
      cellType: typeof c.cell_type === "string" ? c.cell_type : "code",
      source: joinText(c.source),
      language,
      outputs: c.cell_type === "code" && Array.isArray(c.outputs) ? renderOutputs(c.outputs) : []
    }
  })
}

export const renderNotebook = (cells: ReadonlyArray<NotebookCellView>): string => cells.map(renderCell).join("\n")

/** The cell, then each output on a line of its own after a blank line (Claude Code's text blocks, merged). */
const renderCell = (cell: NotebookCellView): string => {
  const tags: Array<string> = []
  if (cell.cellType !== "code") tags.push(`<cell_type>${cell.cellType}</cell_type>`)
  if (cell.cellType === "code" && cell.language !== "python") tags.push(`<language>${cell.language}</language>`)
  const body = `<cell id="${cell.cellId}">${tags.join("")}${cell.source}</cell id="${cell.cellId}">`
  return [body, ...cell.outputs.map((output) => `\n${output}`)].join("\n")
}

const KNOWN_OUTPUTS = new Set(["stream", "execute_result", "display_data", "error"])

const renderOutputs = (outputs: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const texts = outputs.map(renderOutput).filter((o) => o !== "")
  const unknown = outputs.some((o) => !isRecord(o) || !KNOWN_OUTPUTS.has(String(o.output_type)))
  return unknown ? [...texts, "Outputs of an unknown type are not shown."] : texts
}

const renderOutput = (output: unknown): string => {
  if (!isRecord(output)) return ""
  switch (output.output_type) {
    case "stream":
      return joinText(output.text)
    case "execute_result":
    case "display_data": {
      const data = isRecord(output.data) ? output.data : {}
      const text = joinText(data["text/plain"])
      const images = Object.keys(data).filter((k) => k.startsWith("image/"))
      return [text, ...images.map((k) => `[${k} output omitted]`)].filter((s) => s !== "").join("\n")
    }
    case "error": {
      const traceback = Array.isArray(output.traceback) ? output.traceback.map(String).join("\n") : ""
      return stripAnsi(`${String(output.ename)}: ${String(output.evalue)}${traceback === "" ? "" : `\n${traceback}`}`)
    }
    default:
      return ""
  }
}

const joinText = (value: unknown): string =>
  typeof value === "string" ? value : Array.isArray(value) ? value.map(String).join("") : ""

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "")

const isRecord = (u: unknown): u is Record<string, any> => typeof u === "object" && u !== null && !Array.isArray(u)
