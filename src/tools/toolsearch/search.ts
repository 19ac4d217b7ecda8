/**
 * ToolSearch queries. Pure.
 * - `select:A,B`: exactly these tools, by name (any tool of the pool; no limit);
 * - keywords otherwise, over the deferred tools; `+term` must match. Each term scores against a
 *   tool: a whole word of its name 10, part of its name 5, its search hint 4, a word start in its
 *   description or prompt 2. Tools are ranked by total score, then pool order; the whole query
 *   equal to a tool's name puts that tool first.
 */
import type { AnyTool } from "../../Tool.js"
import { TOOL_SEARCH_NAME } from "../../services/DeferredTools.js"

export type ParsedQuery =
  | { readonly _tag: "Select"; readonly names: ReadonlyArray<string> }
  | {
    readonly _tag: "Keywords"
    readonly text: string
    readonly required: ReadonlyArray<string>
    readonly optional: ReadonlyArray<string>
  }

export const parseQuery = (query: string): ParsedQuery => {
  const trimmed = query.trim()
  const select = /^select:(.*)$/is.exec(trimmed)
  if (select !== null) {
    const names = select[1]!.split(",").map((name) => name.trim()).filter((name) => name !== "")
    return { _tag: "Select", names: [...new Set(names)] }
  }
  const required: Array<string> = []
  const optional: Array<string> = []
  for (const word of trimmed.toLowerCase().split(/\s+/)) {
    if (word.startsWith("+")) {
      if (word.length > 1) required.push(word.slice(1))
    } else if (word !== "") optional.push(word)
  }
  return { _tag: "Keywords", text: trimmed.toLowerCase(), required, optional }
}

/** `mcp__github__create_issue` → github, create, issue; `NotebookEdit` → notebook, edit. */
export const nameWords = (name: string): ReadonlyArray<string> =>
  (name.startsWith("mcp__") ? name.slice(5) : name)
    .split(/__|[_\-\s.:/]+/)
    .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .map((word) => word.toLowerCase())
    .filter((word) => word !== "")

/** A short text some tools carry to be found by words their name and description lack. */
export const searchHintOf = (tool: AnyTool): string => {
  const hint = (tool as { readonly searchHint?: unknown }).searchHint
  return typeof hint === "string" ? hint : ""
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

interface Indexed {
  readonly tool: AnyTool
  readonly order: number
  readonly words: ReadonlySet<string>
  readonly name: string
  readonly hint: string
  readonly text: string
}

const index = (tool: AnyTool, order: number): Indexed => ({
  tool,
  order,
  words: new Set(nameWords(tool.name)),
  name: tool.name.toLowerCase(),
  hint: searchHintOf(tool).toLowerCase(),
  text: `${tool.description}\n${tool.prompt}`
})

const termScore = (entry: Indexed, term: string): number => {
  if (entry.words.has(term)) return 10
  if (entry.name.includes(term)) return 5
  if (entry.hint !== "" && entry.hint.includes(term)) return 4
  if (new RegExp(`(?:^|[^\\p{L}\\p{N}])${escapeRegExp(term)}`, "iu").test(entry.text)) return 2
  return 0
}

export interface SearchOutcome {
  /** The tools found, best first. */
  readonly matches: ReadonlyArray<AnyTool>
  /** `select:` names that are not in the pool. */
  readonly unknown: ReadonlyArray<string>
}

export interface SearchScope {
  /** Every tool of the pool (what `select:` may name). */
  readonly pool: ReadonlyArray<AnyTool>
  /** The deferred tools (what keywords search). */
  readonly deferred: ReadonlyArray<AnyTool>
}

export const searchTools = (query: ParsedQuery, scope: SearchScope, maxResults: number): SearchOutcome => {
  if (query._tag === "Select") {
    const candidates = scope.pool.filter((tool) => tool.name !== TOOL_SEARCH_NAME)
    const matches: Array<AnyTool> = []
    const unknown: Array<string> = []
    for (const wanted of query.names) {
      const tool = candidates.find((t) => t.name === wanted) ??
        candidates.find((t) => t.name.toLowerCase() === wanted.toLowerCase())
      if (tool === undefined) unknown.push(wanted)
      else if (!matches.includes(tool)) matches.push(tool)
    }
    return { matches, unknown }
  }
  const terms = [...query.required, ...query.optional]
  if (terms.length === 0) return { matches: [], unknown: [] }
  const scored: Array<{ readonly entry: Indexed; readonly score: number }> = []
  scope.deferred.forEach((tool, order) => {
    const entry = index(tool, order)
    if (!query.required.every((term) => termScore(entry, term) > 0)) return
    const score = terms.reduce((sum, term) => sum + termScore(entry, term), 0) + (entry.name === query.text ? 100 : 0)
    if (score > 0) scored.push({ entry, score })
  })
  scored.sort((a, b) => b.score - a.score || a.entry.order - b.entry.order)
  return { matches: scored.slice(0, Math.max(1, maxResults)).map((s) => s.entry.tool), unknown: [] }
}
