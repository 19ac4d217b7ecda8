/**
 * WebSearch: searches the web with Anthropic's server-side web search tool. The call is one
 * more request to the model the session runs on, with the `web_search` server tool (and the
 * domain filters) and nothing else; the search results and the model's summary come back as the
 * tool's result, links as JSON, with Claude Code's text around them.
 *
 * Permission: it asks unless a rule allows it (`WebSearch`); saying "always" saves that rule.
 * The tool needs the Messages API, so it joins the pool only when the session runs on Claude
 * (`register`); a scripted session has none.
 */
import { Effect, Option, Schema, Stream } from "effect"
import { ToolError } from "../Errors.js"
import type { AssistantBlock } from "../ModelEvents.js"
import type { ModelClientService } from "../services/ModelClient.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import { buildTool, reject, type AnyTool } from "../Tool.js"

export const WEB_SEARCH_TOOL_NAME = "WebSearch"
export const WEB_SEARCH_SOURCE = "web-search"
const MAX_USES = 8

export const WebSearchInput = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(2)).annotations({ description: "The search query to use" }),
  allowed_domains: Schema.optional(
    Schema.Array(Schema.String).annotations({ description: "Only include search results from these domains" })
  ),
  blocked_domains: Schema.optional(
    Schema.Array(Schema.String).annotations({ description: "Never include search results from these domains" })
  )
})
export type WebSearchInput = typeof WebSearchInput.Type

export interface SearchLinks {
  readonly tool_use_id: string
  readonly content: ReadonlyArray<{ readonly title: string; readonly url: string }>
}

export interface WebSearchOutput {
  readonly query: string
  /** The model's text between searches, and each search's links (or its error), in order. */
  readonly results: ReadonlyArray<string | SearchLinks>
  readonly durationSeconds: number
  readonly searchCount: number
}

const PROMPT =
  `Searches the web and returns the results, for information newer than your training or that you need to check.

- Give a search query; optionally restrict results to some domains (allowed_domains) or leave some out (blocked_domains), not both.
- The results come back as links (title and URL) with a short summary.
- After you answer from the results, end with a "Sources:" list of the links you used, as markdown links: [Title](URL).
- Use the current year in queries about recent events or current versions.`

const SEARCH_SYSTEM =
  "You are running a web search for another model that is waiting for the results. Search once with the web_search tool, then summarise what the results say in a few sentences."

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

/** The search's blocks as results: the text between searches, and each search's links or error. */
export const resultsOf = (
  blocks: ReadonlyArray<AssistantBlock>
): { readonly results: Array<string | SearchLinks>; readonly searchCount: number } => {
  const results: Array<string | SearchLinks> = []
  let text = ""
  let uses = 0
  let answers = 0
  const flush = () => {
    if (text.trim() !== "") results.push(text.trim())
    text = ""
  }
  for (const block of blocks) {
    if (block.type === "text") text += block.text
    if (block.type !== "other") continue
    const raw = block.block
    if (raw.type === "server_tool_use") {
      uses++
      flush()
    } else if (raw.type === "web_search_tool_result") {
      answers++
      const content = raw.content
      if (Array.isArray(content)) {
        results.push({
          tool_use_id: String(raw.tool_use_id),
          content: content.filter(isObject).map((hit) => ({
            title: String(hit.title ?? ""),
            url: String(hit.url ?? "")
          }))
        })
      } else results.push(`Web search error: ${isObject(content) ? String(content.error_code) : "unknown"}`)
    }
  }
  flush()
  return { results, searchCount: Math.max(uses, answers) }
}

/** What the model reads: Claude Code's layout of the results. */
export const resultText = (output: WebSearchOutput): string => {
  let text = `Web search results for query: "${output.query}"\n\n`
  for (const result of output.results) {
    text += typeof result === "string"
      ? `${result}\n\n`
      : `Links: ${JSON.stringify(result.content)}\n\n`
  }
  return `${text}\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`
}

/** The tool over a model client (the session's). */
export const makeWebSearchTool = (client: ModelClientService) =>
  buildTool({
    name: WEB_SEARCH_TOOL_NAME,
    description: PROMPT,
    prompt: PROMPT,
    inputSchema: WebSearchInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    maxResultSizeChars: 100_000,
    validateInput: (input) => {
      if (input.query.length === 0) return reject(WEB_SEARCH_TOOL_NAME, "Error: Missing query")
      if ((input.allowed_domains?.length ?? 0) > 0 && (input.blocked_domains?.length ?? 0) > 0) {
        return reject(
          WEB_SEARCH_TOOL_NAME,
          "Error: Cannot specify both allowed_domains and blocked_domains in the same request"
        )
      }
      return Effect.void
    },
    call: (input, ctx) =>
      Effect.gen(function*() {
        const started = Date.now()
        const server = {
          type: "web_search_20250305",
          name: "web_search",
          max_uses: MAX_USES,
          ...(input.allowed_domains === undefined || input.allowed_domains.length === 0
            ? {}
            : { allowed_domains: input.allowed_domains }),
          ...(input.blocked_domains === undefined || input.blocked_domains.length === 0
            ? {}
            : { blocked_domains: input.blocked_domains })
        }
        yield* ctx.reportProgress({ message: `searching: ${input.query}` })
        const blocks = yield* client
          .stream({
            system: SEARCH_SYSTEM,
            messages: [{
              role: "user",
              content: [{ type: "text", text: `Perform a web search for the query: ${input.query}` }]
            }],
            tools: [],
            serverTools: [server],
            toolChoice: { type: "tool", name: "web_search" }
          })
          .pipe(
            Stream.filterMap((event) => (event._tag === "BlockStop" ? Option.some(event.block) : Option.none())),
            Stream.runCollect,
            Effect.mapError((error) => new ToolError({ reason: `The web search failed: ${error.message}` }))
          )
        const { results, searchCount } = resultsOf([...blocks])
        return {
          data: {
            query: input.query,
            results,
            durationSeconds: (Date.now() - started) / 1000,
            searchCount
          } satisfies WebSearchOutput
        }
      }),
    mapResult: (output) => resultText(output),
    renderUse: (input) => JSON.stringify(input.query),
    renderResult: (output) => {
      const links = output.results.flatMap((r) => (typeof r === "string" ? [] : r.content))
      return [
        `${output.searchCount} search${output.searchCount === 1 ? "" : "es"} in ${output.durationSeconds.toFixed(1)} s`,
        ...links.map((l) => `${l.title} — ${l.url}`)
      ].join("\n")
    }
  })

/** Adds WebSearch to the pool of a session that runs on Claude. */
export const register = (client: ModelClientService): Effect.Effect<AnyTool, never, ToolRegistry> =>
  Effect.gen(function*() {
    const tool = makeWebSearchTool(client)
    yield* (yield* ToolRegistry).setSource(WEB_SEARCH_SOURCE, [tool])
    return tool
  })
