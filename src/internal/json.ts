/**
 * Untrusted JSON: object checks, and reading a JSON-object file (settings, `.mcp.json`,
 * `~/.claude.json`) where a missing file is not an error but anything unusable is.
 */
import * as fs from "node:fs"

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  u !== null && typeof u === "object" && !Array.isArray(u)

/** What a JSON value is, for messages ("an array", "a string", …). */
export const kindOf = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : `a ${typeof u}`

export type JsonObjectRead =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Loaded"; readonly json: Record<string, unknown> }
  | { readonly _tag: "Failed"; readonly reason: string }

/** Parses a JSON object (a leading BOM is allowed). */
export const parseJsonObject = (text: string): JsonObjectRead => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (e) {
    return { _tag: "Failed", reason: `invalid JSON: ${(e as Error).message}` }
  }
  return isRecord(parsed)
    ? { _tag: "Loaded", json: parsed }
    : { _tag: "Failed", reason: `must be a JSON object, got ${kindOf(parsed)}` }
}

/** Reads and parses a JSON-object file; a file that does not exist is `Missing`. */
export const readJsonObjectFile = (file: string): JsonObjectRead => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return { _tag: "Missing" }
    return { _tag: "Failed", reason: `cannot read: ${(e as Error).message}` }
  }
  return parseJsonObject(text)
}
