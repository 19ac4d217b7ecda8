/**
 * The tool pool the model sees: enabled built-ins minus tools removed by whole-tool deny rules,
 * plus external tools (MCP servers, custom tools). Built-ins win name clashes; each partition is
 * sorted by name so the tool list (and the prompt cache) is stable. API schemas are computed
 * once per tool.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { ApiToolDefinition } from "../Messages.js"
import type { AnyTool, Tool } from "../Tool.js"
import { inputJsonSchema } from "../Tool.js"
import { canonicalToolName, matchesToolName } from "../PermissionRules.js"
import type { PermissionRule } from "../Permission.js"
import { Settings } from "./Settings.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ApiToolDefinition
} from "../Messages.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolPool {
  /** Built-ins sorted by name, then external tools sorted by name. */
  readonly tools: ReadonlyArray<AnyTool>
  /** By name, alias or legacy name. */
  readonly lookup: (name: string) => AnyTool | undefined
  readonly apiSchemas: ReadonlyArray<ApiToolDefinition>
  /** Tools taken out of the pool, and why (for `toolgate tools`); `hint` is what the model reads when it calls one anyway. */
  readonly removed: ReadonlyArray<{ readonly name: string; readonly reason: string; readonly hint?: string }>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolRegistryService {
  readonly pool: Effect.Effect<ToolPool>
  /** Replaces the tools of one external source (e.g. `mcp:github`); an empty list removes it. */
  readonly setSource: (source: string, tools: ReadonlyArray<AnyTool>) => Effect.Effect<void>
  /**
   * Keeps a tool out of this session's pool (a tool that needs a person when nobody can answer):
   * a call to it gets "No such tool available: <name>. <hint>". An undefined hint gives it back.
   */
  readonly withhold: (name: string, hint: string | undefined) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category services
 */
export class ToolRegistry extends Context.Tag("toolgate/ToolRegistry")<ToolRegistry, ToolRegistryService>() {}

/**
 * The built-in tools a runtime starts with (a Layer so users can add or replace tools).
 *
 * @since 0.1.0
 * @category services
 */
export class BuiltinTools extends Context.Tag("toolgate/BuiltinTools")<BuiltinTools, ReadonlyArray<AnyTool>>() {}

const apiSchemaCache = new WeakMap<AnyTool, ApiToolDefinition>()

/**
 * The API definition of a tool, computed once per tool value.
 *
 * @since 0.1.0
 * @category utils
 */
export const apiSchemaOf = (tool: AnyTool): ApiToolDefinition => {
  const cached = apiSchemaCache.get(tool)
  if (cached) return cached
  const definition = { name: tool.name, description: tool.description, input_schema: inputJsonSchema(tool) }
  apiSchemaCache.set(tool, definition)
  return definition
}

const byName = (a: AnyTool, b: AnyTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * Builds a pool snapshot from enabled built-ins, external tools and the deny rules.
 *
 * @since 0.1.0
 * @category constructors
 */
export const buildPool = (
  builtins: ReadonlyArray<AnyTool>,
  external: ReadonlyArray<AnyTool>,
  rules: ReadonlyArray<PermissionRule>,
  withheld: ReadonlyMap<string, string> = new Map()
): ToolPool => {
  const removed: Array<{ name: string; reason: string; hint?: string }> = []
  const denyRule = (tool: AnyTool) =>
    rules.find((r) =>
      r.behavior === "deny" && r.content === undefined && matchesToolName(r.toolName, tool.name, "deny")
    )
  const seen = new Set<string>()
  const keep = (tool: AnyTool, partition: "built-in" | "external"): boolean => {
    const hint = withheld.get(tool.name)
    if (hint !== undefined) {
      removed.push({ name: tool.name, reason: hint, hint })
      return false
    }
    if (seen.has(tool.name)) {
      removed.push({
        name: tool.name,
        reason: partition === "external" ? "a built-in tool has this name" : "duplicate name"
      })
      return false
    }
    const rule = denyRule(tool)
    if (rule) {
      removed.push({ name: tool.name, reason: `denied by rule '${rule.raw}' from ${rule.source}` })
      return false
    }
    seen.add(tool.name)
    return true
  }
  const tools = [
    ...[...builtins].sort(byName).filter((t) => keep(t, "built-in")),
    ...[...external].sort(byName).filter((t) => keep(t, "external"))
  ]
  // withheld names with no tool behind them still answer with their hint
  for (const [name, hint] of withheld) {
    if (!removed.some((r) => r.name === name)) removed.push({ name, reason: hint, hint })
  }
  return poolOf(tools, removed)
}

/**
 * A pool of these tools, in this order: lookup by name, alias or legacy name; API schemas on first use.
 *
 * @since 0.1.0
 * @category utils
 */
export const poolOf = (tools: ReadonlyArray<AnyTool>, removed: ToolPool["removed"]): ToolPool => {
  const index = new Map<string, AnyTool>()
  for (const tool of tools) index.set(tool.name, tool)
  for (const tool of tools) for (const alias of tool.aliases) if (!index.has(alias)) index.set(alias, tool)
  let apiSchemas: ReadonlyArray<ApiToolDefinition> | undefined
  return {
    tools,
    lookup: (name) => index.get(name) ?? index.get(canonicalToolName(name)),
    get apiSchemas() {
      apiSchemas ??= tools.map(apiSchemaOf)
      return apiSchemas
    },
    removed
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const settings = yield* Settings
  const candidates = yield* BuiltinTools
  const enabled: Array<AnyTool> = []
  for (const tool of candidates) if (yield* tool.isEnabled) enabled.push(tool)
  // Plain variables, written only inside Effect.sync: the pool is read for every call, and three
  // Ref reads in a generator cost more than the lookup and the decode together.
  let sources: ReadonlyMap<string, ReadonlyArray<AnyTool>> = new Map()
  // The pool is rebuilt only when the external sources or the rules change.
  let withheld: ReadonlyMap<string, string> = new Map()
  let cache:
    | {
      readonly external: ReadonlyMap<string, ReadonlyArray<AnyTool>>
      readonly rules: ReadonlyArray<PermissionRule>
      readonly withheld: ReadonlyMap<string, string>
      readonly pool: ToolPool
    }
    | undefined

  const pool = Effect.map(settings.current, ({ rules }) => {
    const external = sources
    const held = withheld
    if (cache !== undefined && cache.external === external && cache.rules === rules && cache.withheld === held) {
      return cache.pool
    }
    const built = buildPool(enabled, Array.from(external.values()).flat(), rules, held)
    cache = { external, rules, withheld: held, pool: built }
    return built
  })

  const withhold = (name: string, hint: string | undefined) =>
    Effect.sync(() => {
      const next = new Map(withheld)
      if (hint === undefined) next.delete(name)
      else next.set(name, hint)
      withheld = next
    })

  const setSource = (source: string, tools: ReadonlyArray<AnyTool>) =>
    Effect.sync(() => {
      const next = new Map(sources)
      if (tools.length === 0) next.delete(source)
      else next.set(source, tools)
      sources = next
    }).pipe(Effect.withSpan("ToolRegistry.setSource"))

  return ToolRegistry.of({ pool, setSource, withhold })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ToolRegistry, never, Settings | BuiltinTools> = Layer.effect(ToolRegistry, make)

/**
 * The pool's built-ins. A tool's requirements are met at each call by the runtime (`Runtime.layer`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerBuiltins = (tools: ReadonlyArray<Tool<any, any, any>>): Layer.Layer<BuiltinTools> =>
  Layer.succeed(BuiltinTools, tools as ReadonlyArray<AnyTool>)
