/**
 * `.ipynb` files as text for Read: every cell with its id, type and outputs, in Claude Code's
 * `<cell id="…">…</cell id="…">` form. Image outputs are named, not embedded.
 */
export interface NotebookCellView {
  readonly cellId: string
  readonly cellType: string
  readonly source: string
  readonly language: string
  readonly outputs: ReadonlyArray<string>
}

export const parseNotebook = (text: string): ReadonlyArray<NotebookCellView> => {
  const notebook = JSON.parse(text) as unknown
  if (!isRecord(notebook) || !Array.isArray(notebook.cells)) throw new Error("it has no cells array")
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
