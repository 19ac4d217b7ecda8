/** Small text formatters shared by the file tools, in Claude Code's shapes. */

/** `262144` → `256KB`, `1536` → `1.5KB`, `12` → `12 bytes` (Claude Code's formatFileSize). */
export const formatFileSize = (bytes: number): string => {
  const kb = bytes / 1024
  if (kb < 1) return `${bytes} bytes`
  if (kb < 1024) return `${oneDecimal(kb)}KB`
  const mb = kb / 1024
  if (mb < 1024) return `${oneDecimal(mb)}MB`
  return `${oneDecimal(mb / 1024)}GB`
}

const oneDecimal = (n: number): string => n.toFixed(1).replace(/\.0$/, "")

/** The compact `N<TAB>line` numbering of Read (2.1.112 default). */
export const numberLines = (lines: ReadonlyArray<string>, firstLine: number): string =>
  lines.map((line, i) => `${firstLine + i}\t${line}`).join("\n")

export const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many)

/** Flattens a text to one line for people, cut with an ellipsis. */
export const oneLine = (text: string, max = 120): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
