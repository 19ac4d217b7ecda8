/**
 * A subagent's tool pool: the parent's pool (already without tools removed by whole-tool deny
 * rules) narrowed to the type's `tools`, minus its `disallowedTools`, minus `Agent` itself (a
 * subagent cannot start subagents, as in Claude Code). Entries are names or name globs
 * (`mcp__github__*`); an entry with a specifier (`Bash(git *)`) cannot be honoured as a pool
 * entry, so the tool is left out (fail closed) and `toolEntryWarnings` says so. For read-only
 * types every tool is wrapped so that a call its own `isReadOnly(input)` calls a write is
 * refused at validation. Narrowed pools are cached per parent pool snapshot, so API schemas are
 * computed once.
 */
import { Effect } from "effect"
import { canonicalToolName, parseRuleText, matchesToolName } from "../../../PermissionRules.js"
import { poolOf, type ToolPool } from "../../ToolRegistry.js"
import { reject, type AnyTool } from "../../../Tool.js"
import type { AgentDefinition } from "./definitions.js"

export const AGENT_TOOL_NAME = "Agent"

const entryMatches = (entry: string, tool: AnyTool): boolean => {
  const { toolName, content } = parseRuleText(entry)
  if (content !== undefined) return false
  return matchesToolName(toolName, tool.name, "deny") || tool.aliases.some((a) => matchesToolName(toolName, a, "deny"))
}

/** Warnings for `tools` / `disallowedTools` entries that cannot work as written. */
export const toolEntryWarnings = (definition: AgentDefinition): ReadonlyArray<string> => {
  const where = definition.file ?? `agent type ${definition.name}`
  const out: Array<string> = []
  for (const entry of definition.tools ?? []) {
    const { toolName, content } = parseRuleText(entry)
    if (content !== undefined && canonicalToolName(toolName) !== AGENT_TOOL_NAME) {
      out.push(
        `${where}: tools entry '${entry}' has a specifier, which a tool list cannot enforce; ${toolName} is not given to ${definition.name}`
      )
    }
  }
  return out
}

const readOnlyCache = new WeakMap<AnyTool, Map<string, AnyTool>>()

/** The tool, refusing any call its own `isReadOnly(input)` does not call read-only. */
const readOnlyVersion = (tool: AnyTool, agentType: string): AnyTool => {
  let byType = readOnlyCache.get(tool)
  if (byType === undefined) {
    byType = new Map()
    readOnlyCache.set(tool, byType)
  }
  const cached = byType.get(agentType)
  if (cached !== undefined) return cached
  const wrapped: AnyTool = {
    ...tool,
    validateInput: (input, ctx) => {
      let readOnly = false
      try {
        readOnly = tool.isReadOnly(input)
      } catch {
        readOnly = false
      }
      return readOnly
        ? tool.validateInput(input, ctx)
        : reject(
          tool.name,
          `${agentType} is a read-only agent: this ${tool.name} call would change files or state, so it was not run. Use only read-only calls.`
        )
    }
  }
  byType.set(agentType, wrapped)
  return wrapped
}

/** The tools of the parent's pool a type may use, in the parent's order. */
export const subagentTools = (parent: ReadonlyArray<AnyTool>, definition: AgentDefinition): ReadonlyArray<AnyTool> =>
  parent
    .filter((tool) => canonicalToolName(tool.name) !== AGENT_TOOL_NAME)
    .filter((tool) => definition.tools === undefined || definition.tools.some((entry) => entryMatches(entry, tool)))
    .filter((tool) => !definition.disallowedTools.some((entry) => entryMatches(entry, tool)))
    .map((tool) => (definition.readOnly ? readOnlyVersion(tool, definition.name) : tool))

const makePool = (tools: ReadonlyArray<AnyTool>, parent: ToolPool): ToolPool => poolOf(tools, parent.removed)

const poolCache = new WeakMap<ToolPool, Map<AgentDefinition, ToolPool>>()

/** The subagent pool of a type, over one snapshot of the parent's pool. */
export const narrowPool = (parent: ToolPool, definition: AgentDefinition): ToolPool => {
  let byType = poolCache.get(parent)
  if (byType === undefined) {
    byType = new Map()
    poolCache.set(parent, byType)
  }
  const cached = byType.get(definition)
  if (cached !== undefined) return cached
  const pool = makePool(subagentTools(parent.tools, definition), parent)
  byType.set(definition, pool)
  return pool
}

/** Follows the parent's pool (MCP servers coming and going, session rules) through `narrowPool`. */
export const narrowedPoolEffect = (
  parentPool: Effect.Effect<ToolPool>,
  definition: AgentDefinition
): Effect.Effect<ToolPool> => Effect.map(parentPool, (pool) => narrowPool(pool, definition))
