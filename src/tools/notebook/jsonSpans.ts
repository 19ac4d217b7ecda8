/**
 * Where things are in a notebook's JSON text: the span of the top-level `cells` array and of each
 * cell in it. NotebookEdit changes only the bytes of the cell it edits (or the separator next to
 * a cell it inserts or deletes), so every other byte of the file — other cells, metadata, number
 * formats, escapes, key order — stays exactly as it was.
 */

export interface Span {
  /** Index of the first character. */
  readonly start: number
  /** Index just past the last character. */
  readonly end: number
}

export interface CellsLayout {
  /** The `[ ... ]` of the `cells` value. */
  readonly array: Span
  readonly cells: ReadonlyArray<Span>
}

export class JsonLayoutError extends Error {}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

const skipWs = (text: string, i: number): number => {
  while (i < text.length && isWs(text.charCodeAt(i))) i++
  return i
}

/** The index just past the string that starts at `i` (a `"`). */
const skipString = (text: string, i: number): number => {
  i++
  while (i < text.length) {
    const c = text[i]
    if (c === "\\") i += 2
    else if (c === '"') return i + 1
    else i++
  }
  throw new JsonLayoutError("unterminated string")
}

/** The index just past the JSON value that starts at `i` (text already known to be valid JSON). */
const skipValue = (text: string, i: number): number => {
  const c = text[i]
  if (c === '"') return skipString(text, i)
  if (c === "{" || c === "[") {
    let depth = 0
    while (i < text.length) {
      const ch = text[i]
      if (ch === '"') {
        i = skipString(text, i)
        continue
      }
      if (ch === "{" || ch === "[") depth++
      else if (ch === "}" || ch === "]") {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
    throw new JsonLayoutError("unterminated container")
  }
  while (i < text.length && !/[,\]}\s]/.test(text[i]!)) i++
  return i
}

/** The spans of the top-level `cells` array and its elements. The text must be valid JSON. */
export const cellsLayout = (text: string): CellsLayout => {
  let i = skipWs(text, 0)
  if (text[i] !== "{") throw new JsonLayoutError("the notebook is not a JSON object")
  i = skipWs(text, i + 1)
  let found: CellsLayout | undefined
  while (i < text.length && text[i] !== "}") {
    if (text[i] !== '"') throw new JsonLayoutError(`expected a key at offset ${i}`)
    const keyEnd = skipString(text, i)
    const key = JSON.parse(text.slice(i, keyEnd)) as string
    i = skipWs(text, keyEnd)
    if (text[i] !== ":") throw new JsonLayoutError(`expected ':' at offset ${i}`)
    i = skipWs(text, i + 1)
    const valueStart = i
    const valueEnd = skipValue(text, i)
    // JSON.parse keeps the last of duplicate keys; so does this.
    if (key === "cells" && text[valueStart] === "[") found = { array: { start: valueStart, end: valueEnd }, cells: elements(text, valueStart, valueEnd) }
    i = skipWs(text, valueEnd)
    if (text[i] === ",") i = skipWs(text, i + 1)
  }
  if (found === undefined) throw new JsonLayoutError("the notebook has no cells array")
  return found
}

const elements = (text: string, start: number, end: number): ReadonlyArray<Span> => {
  const spans: Array<Span> = []
  let i = skipWs(text, start + 1)
  while (i < end - 1) {
    const elementEnd = skipValue(text, i)
    spans.push({ start: i, end: elementEnd })
    i = skipWs(text, elementEnd)
    if (text[i] === ",") i = skipWs(text, i + 1)
  }
  return spans
}
