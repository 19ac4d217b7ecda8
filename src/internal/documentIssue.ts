/**
 * One way to say what is wrong with an outside document (a transcript line, a scripted session,
 * JSON given to the CLI): the path inside the document and the problem, from a Schema failure —
 * `at content[2].type: expected "text" | "tool_use", got "img"`.
 */
import { ParseResult } from "effect"

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("")

/** The first problem of a parse failure, with its path (below `base`, the path of the decoded value in its document). */
export const documentIssue = (error: ParseResult.ParseError, base: ReadonlyArray<PropertyKey> = []): string => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (first === undefined) return "not the expected shape"
  const path = [...base, ...first.path]
  const at = path.length === 0 ? "" : `at ${pathText(path)}: `
  return `${at}${first.message}`
}

/** JSON.parse, with a UTF-8 byte order mark allowed in front (editors on Windows write one). */
export const parseJsonText = (text: string): unknown => JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
