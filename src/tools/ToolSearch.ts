/**
 * ToolSearch `{query, max_results}`: finds deferred
 * tools and returns their full definitions; the conversation then has them in its tool list from
 * the next turn on (DeferredTools). Read-only, concurrency-safe, needs no permission, never
 * deferred; off (out of the pool) when tool search is off.
 *
 * The pool it searches is the ToolRegistry's, looked up in the call's context
 * (`Effect.serviceOption`, as WebFetch finds the ModelClient): the registry is built from the
 * built-in tools, ToolSearch among them, so the tool cannot be handed the registry when built.
 */
import { Effect, Option, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { McpClients } from "../services/McpClients.js"
import { apiSchemaOf, ToolRegistry } from "../services/ToolRegistry.js"
import { buildTool } from "../Tool.js"
import { allow } from "../Permission.js"
import {
  splitPool,
  TOOL_SEARCH_NAME,
  contextTokens,
  toolSearchMode,
  formatToolSearchResult,
  summaryOf,
  truncateDescription,
  type ToolSearchOutput
} from "../services/DeferredTools.js"
import { parseQuery, searchTools } from "./toolsearch/search.js"
import { described, NumberLike, optional } from "./schemas.js"

export const DEFAULT_MAX_RESULTS = 5
/** A keyword search never returns more than this many tools. */
export const MAX_RESULTS_CEILING = 50

export const ToolSearchInput = Schema.Struct({
  query: Schema.String.annotations({
    description:
      "What to look for: \"select:<name>,<name>\" to load tools by exact name, or keywords (a \"+\" before a word makes it required, e.g. \"+github issue\")"
  }),
  max_results: optional(
    described(NumberLike, `Most tools to return for a keyword search (default ${DEFAULT_MAX_RESULTS})`)
  )
})
export type ToolSearchInput = typeof ToolSearchInput.Type

const PROMPT =
  `Loads deferred tools. Some tools are listed by name only (in <available-deferred-tools>): you cannot call them until ToolSearch has loaded them. ToolSearch returns the matching tools' full definitions, and from your next message on they are in your tool list.

- query "select:Name1,Name2" loads exactly those tools; use it when you know the names.
- Otherwise query is keywords matched against tool names, descriptions and search hints, best matches first; a word starting with + must match (e.g. "+slack send message").
- max_results limits a keyword search (default 5).
- Load every tool you will need in one call when you can.`

export const maxResultsOf = (requested: number | undefined): number =>
  requested === undefined || !Number.isFinite(requested) || requested < 1
    ? DEFAULT_MAX_RESULTS
    : Math.min(Math.floor(requested), MAX_RESULTS_CEILING)

const pendingMcpServers = Effect.flatMap(Effect.serviceOption(McpClients), (clients) =>
  Option.isNone(clients)
    ? Effect.succeed<ReadonlyArray<string>>([])
    : Effect.map(clients.value.servers, (servers) => servers.filter((s) => s.state === "pending").map((s) => s.name)))

export const ToolSearchTool = buildTool<ToolSearchInput, ToolSearchOutput>({
  name: TOOL_SEARCH_NAME,
  inputSchema: ToolSearchInput,
  description:
    "Loads the definitions of deferred tools, by exact name (select:A,B) or by keywords, so that they can be called.",
  prompt: PROMPT,
  isEnabled: Effect.map(toolSearchMode, (mode) => mode._tag !== "Off"),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  // Never spilled to a file: later turns read the loaded names from this result's first line.
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  checkPermissions: () => Effect.succeed(allow("ToolSearch needs no permission")),
  call: (input) =>
    Effect.gen(function*() {
      const registry = yield* Effect.serviceOption(ToolRegistry)
      if (Option.isNone(registry)) {
        return yield* new ToolError({ reason: "ToolSearch is not available here: the runtime has no tool registry" })
      }
      const pool = yield* registry.value.pool
      const split = splitPool(pool.tools, yield* toolSearchMode, yield* contextTokens)
      const found = searchTools(
        parseQuery(input.query),
        { pool: pool.tools, deferred: split.deferred },
        maxResultsOf(input.max_results)
      )
      const pending = yield* pendingMcpServers
      const output: ToolSearchOutput = {
        matches: found.matches.map((tool) => tool.name),
        query: input.query,
        total_deferred_tools: split.deferred.length,
        ...(pending.length > 0 ? { pending_mcp_servers: pending } : {}),
        definitions: found.matches.map((tool) => ({
          ...apiSchemaOf(tool),
          description: truncateDescription(tool.prompt)
        })),
        unknown: found.unknown
      }
      return { data: output }
    }),
  mapResult: formatToolSearchResult,
  hookResponse: summaryOf,
  renderUse: (input) => input.query,
  renderResult: (output) => (output.matches.length === 0 ? "no matching tools" : `loaded ${output.matches.join(", ")}`)
})
