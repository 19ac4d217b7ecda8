/**
 * ToolSearch's result text. Claude Code answers with `tool_reference` blocks that the API expands
 * into definitions; there is no such server support here, so the definitions are given as text and
 * the tools join the API tool list from the next turn on. The first line is Claude Code's output
 * object `{matches, query, total_deferred_tools, pending_mcp_servers?}` as JSON: that line is
 * also how the next turns find out which tools were loaded (see loadedTools.ts), so it must stay
 * first and stay one line.
 */
import type { ApiToolDefinition } from "../ToolRegistry.js"

export const MAX_DESCRIPTION_CHARS = 2048

export interface ToolSearchSummary {
  readonly matches: ReadonlyArray<string>
  readonly query: string
  readonly total_deferred_tools: number
  readonly pending_mcp_servers?: ReadonlyArray<string>
}

export interface ToolSearchOutput extends ToolSearchSummary {
  readonly definitions: ReadonlyArray<ApiToolDefinition>
  /** `select:` names not in the pool. */
  readonly unknown: ReadonlyArray<string>
}

/** Claude Code cuts tool descriptions at 2 KB. */
export const truncateDescription = (text: string): string =>
  text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}… [truncated]` : text

/** One line of JSON that can never contain `</function>` (every `<` is escaped). */
const jsonLine = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c")

export const summaryOf = (output: ToolSearchOutput): ToolSearchSummary => ({
  matches: output.matches,
  query: output.query,
  total_deferred_tools: output.total_deferred_tools,
  ...(output.pending_mcp_servers !== undefined && output.pending_mcp_servers.length > 0
    ? { pending_mcp_servers: output.pending_mcp_servers }
    : {})
})

export const formatToolSearchResult = (output: ToolSearchOutput): string => {
  const lines = [jsonLine(summaryOf(output))]
  if (output.unknown.length > 0) lines.push(`No tool named: ${output.unknown.join(", ")}.`)
  if (output.definitions.length === 0) {
    lines.push(
      output.total_deferred_tools === 0
        ? "No tools are deferred: every available tool is already in your tool list."
        : "No matching deferred tools found. Try other keywords, or select:<name> with names from the deferred tools list."
    )
  } else {
    lines.push(
      `Loaded ${output.definitions.length} ${output.definitions.length === 1 ? "tool" : "tools"}: ${
        output.definitions.map((d) => d.name).join(", ")
      }. The definitions follow; from your next message on these tools are in your tool list and you can call them.`,
      "<functions>",
      ...output.definitions.map((definition) => `<function>${jsonLine(definition)}</function>`),
      "</functions>"
    )
  }
  if (output.pending_mcp_servers !== undefined && output.pending_mcp_servers.length > 0) {
    lines.push(
      `MCP servers still connecting (their tools are not searchable yet): ${output.pending_mcp_servers.join(", ")}.`
    )
  }
  return lines.join("\n")
}

/** The `matches` of a ToolSearch result text; undefined when the text is not one. */
export const parseMatches = (text: string): ReadonlyArray<string> | undefined => {
  const newline = text.indexOf("\n")
  const first = newline === -1 ? text : text.slice(0, newline)
  let parsed: unknown
  try {
    parsed = JSON.parse(first)
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null) return undefined
  const matches = (parsed as { readonly matches?: unknown }).matches
  return Array.isArray(matches) && matches.every((m) => typeof m === "string")
    ? (matches as ReadonlyArray<string>)
    : undefined
}
