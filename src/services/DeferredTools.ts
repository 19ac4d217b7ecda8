/**
 * What the agent loop sends each turn when tool search is on:
 * the API definitions of the tools not deferred plus the deferred tools the conversation loaded
 * with ToolSearch, the tools whose prompts belong in the system prompt, and the system-prompt
 * section that lists the deferred tools by name.
 *
 * The names list goes in the system prompt and lists every deferred tool, loaded or not, so the
 * system prompt stays the same from turn to turn (prompt cache); a loaded tool's prompt text was in
 * its ToolSearch result, and its definition joins the `tools` of the request.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { ModelMessage } from "./ModelClient.js"
import { apiSchemaOf, ToolRegistry, type ApiToolDefinition } from "./ToolRegistry.js"
import type { AnyTool } from "../Tool.js"
import { splitPool, TOOL_SEARCH_NAME, type PoolSplit } from "./DeferredTools/deferral.js"
import { loadedToolNames } from "./DeferredTools/loadedTools.js"
import { contextTokens, toolSearchMode } from "./DeferredTools/mode.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface TurnTools {
  readonly split: PoolSplit
  /** The request's `tools`, in pool order: tools not deferred, then (in place) loaded deferred ones. */
  readonly apiTools: ReadonlyArray<ApiToolDefinition>
  /** The tools whose `prompt` goes in the system prompt (the same every turn). */
  readonly promptTools: ReadonlyArray<AnyTool>
  /** Every deferred tool's name, loaded or not. */
  readonly deferredNames: ReadonlyArray<string>
  /** The deferred tools loaded by ToolSearch so far. */
  readonly loadedNames: ReadonlyArray<string>
  /** The system-prompt section naming the deferred tools; undefined when nothing is deferred. */
  readonly systemPromptSection: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DeferredToolsService {
  /** The tools of the next request, given the conversation so far. */
  readonly forTurn: (messages: ReadonlyArray<ModelMessage>) => Effect.Effect<TurnTools>
}

/**
 * @since 0.1.0
 * @category services
 */
export class DeferredTools extends Context.Tag("toolgate/DeferredTools")<DeferredTools, DeferredToolsService>() {}

/**
 * @since 0.1.0
 * @category utils
 */
export const deferredToolsSection = (names: ReadonlyArray<string>): string =>
  [
    "# Deferred tools",
    `The tools below are available, but their definitions are not loaded, so you cannot call them yet. Load the ones you need with ${TOOL_SEARCH_NAME} (query "select:<name>,<name>" for exact names, or keywords); from your next message on they are in your tool list.`,
    "<available-deferred-tools>",
    ...names,
    "</available-deferred-tools>"
  ].join("\n")

/**
 * Pure: the turn's tools from the pool split and the names the conversation loaded.
 *
 * @since 0.1.0
 * @category utils
 */
export const planTurn = (tools: ReadonlyArray<AnyTool>, split: PoolSplit, loaded: ReadonlySet<string>): TurnTools => {
  const deferred = new Set(split.deferred)
  const loadedDeferred = split.deferred.filter((tool) => loaded.has(tool.name))
  const sent = new Set<AnyTool>([...split.loaded, ...loadedDeferred])
  const deferredNames = split.deferred.map((tool) => tool.name)
  return {
    split,
    apiTools: tools.filter((tool) => sent.has(tool)).map(apiSchemaOf),
    promptTools: tools.filter((tool) => sent.has(tool) && !deferred.has(tool)),
    deferredNames,
    loadedNames: loadedDeferred.map((tool) => tool.name),
    systemPromptSection: deferredNames.length === 0 ? undefined : deferredToolsSection(deferredNames)
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const forTurn = Effect.fn("DeferredTools.forTurn")(function*(messages: ReadonlyArray<ModelMessage>) {
    const pool = yield* registry.pool
    const split = splitPool(pool.tools, yield* toolSearchMode, yield* contextTokens)
    return planTurn(pool.tools, split, split.active ? loadedToolNames(messages) : new Set())
  })
  return DeferredTools.of({ forTurn })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<DeferredTools, never, ToolRegistry> = Layer.effect(DeferredTools, make)

/** What the ToolSearch tool needs: the deferral rule, the mode, and the texts of its results. */
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  splitPool,
  /**
   * @since 0.1.0
   * @category constants
   */
  TOOL_SEARCH_NAME,
  /**
   * @since 0.1.0
   * @category models
   */
  type PoolSplit
} from "./DeferredTools/deferral.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  contextTokens,
  /**
   * @since 0.1.0
   * @category utils
   */
  toolSearchMode
} from "./DeferredTools/mode.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  formatToolSearchResult,
  /**
   * @since 0.1.0
   * @category utils
   */
  summaryOf,
  /**
   * @since 0.1.0
   * @category utils
   */
  truncateDescription,
  /**
   * @since 0.1.0
   * @category models
   */
  type ToolSearchOutput
} from "./DeferredTools/resultText.js"
