/**
 * Which tools of the pool are deferred (listed by name only until ToolSearch loads them) and which
 * are sent in full (as Claude Code defers them). Pure.
 *
 * A tool is deferrable when it says so (`shouldDefer`: MCP tools unless their server or the tool
 * asks to be always loaded; the built-ins Claude Code defers). Deferral is active when the mode is on,
 * ToolSearch is in the pool (a deny rule on it removes it, and so turns deferral off), there is
 * something to defer, and, in `auto` mode, the deferrable tools are big enough to be worth it.
 */
import { apiSchemaOf } from "../ToolRegistry.js"
import type { AnyTool } from "../../Tool.js"
import type { ToolSearchMode } from "./mode.js"

export const TOOL_SEARCH_NAME = "ToolSearch"

export const isDeferrable = (tool: AnyTool): boolean => tool.shouldDefer && tool.name !== TOOL_SEARCH_NAME

/** Rough token cost of tools: their API definitions plus their system-prompt text, characters / 4. */
export const estimateTokens = (tools: ReadonlyArray<AnyTool>): number =>
  Math.ceil(tools.reduce((chars, tool) => chars + JSON.stringify(apiSchemaOf(tool)).length + tool.prompt.length, 0) / 4)

export interface PoolSplit {
  readonly mode: ToolSearchMode
  /** True when some tools are deferred. */
  readonly active: boolean
  /** Why deferral is (in)active, for people. */
  readonly reason: string
  /** Tools sent in full from the first turn, in pool order (ToolSearch only when active). */
  readonly loaded: ReadonlyArray<AnyTool>
  /** Tools listed by name only until loaded, in pool order. */
  readonly deferred: ReadonlyArray<AnyTool>
}

export const splitPool = (tools: ReadonlyArray<AnyTool>, mode: ToolSearchMode, contextTokens: number): PoolSplit => {
  const inactive = (reason: string): PoolSplit => ({
    mode,
    active: false,
    reason,
    loaded: tools.filter((tool) => tool.name !== TOOL_SEARCH_NAME),
    deferred: []
  })
  if (mode._tag === "Off") return inactive(`tool search is off: ${mode.reason}`)
  if (!tools.some((tool) => tool.name === TOOL_SEARCH_NAME)) {
    return inactive("ToolSearch is not in the tool pool (denied or disabled)")
  }
  const deferrable = tools.filter(isDeferrable)
  if (deferrable.length === 0) return inactive("no tool in the pool is deferrable")
  if (mode._tag === "Auto") {
    const tokens = estimateTokens(deferrable)
    const threshold = (mode.percent / 100) * contextTokens
    if (tokens < threshold) {
      return inactive(`the deferrable tools take about ${tokens} tokens, under ${mode.percent}% of ${contextTokens}`)
    }
  }
  return {
    mode,
    active: true,
    reason: mode._tag === "Auto"
      ? `the deferrable tools take at least ${mode.percent}% of ${contextTokens} tokens`
      : "tool search is on: deferrable tools are deferred",
    loaded: tools.filter((tool) => !isDeferrable(tool)),
    deferred: deferrable
  }
}
