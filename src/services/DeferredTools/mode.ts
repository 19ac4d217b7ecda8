/**
 * Whether tool search is on, and how (`ENABLE_TOOL_SEARCH` and "Tool
 * search"):
 * - unset / `true`: deferrable tools (MCP tools, built-ins with `shouldDefer`) are always deferred;
 * - `auto` / `auto:N`: deferred only while their definitions take at least N% (default 10) of the
 *   context window (a budget in tokens, estimated as characters / 4);
 * - `false`: nothing is deferred.
 * It is off whatever the value when `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` is set, and off by
 * default when `ANTHROPIC_BASE_URL` points to a host that is not Anthropic's (a proxy may not
 * support it); an explicit `true` / `auto` / `auto:N` turns it on for such a host (that is how
 * tests against a local server on 127.0.0.1 use it).
 */
import { Config, Effect, Option } from "effect"

export type ToolSearchMode =
  | { readonly _tag: "Off"; readonly reason: string }
  | { readonly _tag: "Always" }
  | { readonly _tag: "Auto"; readonly percent: number }

export const DEFAULT_AUTO_PERCENT = 10
/** The context window the `auto` threshold is a share of, in tokens. */
export const DEFAULT_CONTEXT_TOKENS = 200_000

export interface ToolSearchEnvironment {
  readonly enableToolSearch?: string | undefined
  readonly baseUrl?: string | undefined
  readonly disableExperimentalBetas?: string | undefined
}

const TRUE = new Set(["1", "true", "yes", "on"])
const FALSE = new Set(["0", "false", "no", "off"])

type Requested = { readonly _tag: "Default" } | { readonly _tag: "Off" } | { readonly _tag: "Always" } | {
  readonly _tag: "Auto"
  readonly percent: number
}

/** An unknown value counts as unset (the default), not as an error. */
const parseRequested = (raw: string | undefined): Requested => {
  const value = raw?.trim().toLowerCase() ?? ""
  if (value === "") return { _tag: "Default" }
  if (TRUE.has(value)) return { _tag: "Always" }
  if (FALSE.has(value)) return { _tag: "Off" }
  if (value === "auto") return { _tag: "Auto", percent: DEFAULT_AUTO_PERCENT }
  const auto = /^auto:\s*(\d+(?:\.\d+)?)$/.exec(value)
  if (auto !== null) {
    const percent = Number(auto[1])
    return { _tag: "Auto", percent: percent <= 100 ? percent : DEFAULT_AUTO_PERCENT }
  }
  return { _tag: "Default" }
}

/** Anthropic's own API: `anthropic.com` and its subdomains, over HTTPS. */
export const isFirstPartyBaseUrl = (raw: string): boolean => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  const host = url.hostname.toLowerCase()
  return url.protocol === "https:" && (host === "anthropic.com" || host.endsWith(".anthropic.com"))
}

const isSet = (raw: string | undefined) =>
  raw !== undefined && raw.trim() !== "" && !FALSE.has(raw.trim().toLowerCase())

export const resolveMode = (env: ToolSearchEnvironment): ToolSearchMode => {
  if (isSet(env.disableExperimentalBetas)) {
    return { _tag: "Off", reason: "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS is set" }
  }
  const requested = parseRequested(env.enableToolSearch)
  switch (requested._tag) {
    case "Off":
      return { _tag: "Off", reason: "ENABLE_TOOL_SEARCH is false" }
    case "Always":
    case "Auto":
      return requested
    case "Default": {
      const baseUrl = env.baseUrl?.trim() ?? ""
      if (baseUrl !== "" && !isFirstPartyBaseUrl(baseUrl)) {
        return {
          _tag: "Off",
          reason:
            `ANTHROPIC_BASE_URL (${baseUrl}) is not Anthropic's API; set ENABLE_TOOL_SEARCH=true to use tool search with it`
        }
      }
      return { _tag: "Always" }
    }
  }
}

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.getOrUndefined),
    Config.orElse(() => Config.succeed(undefined))
  )

/** The mode from the environment (through Config, so tests can give their own provider). */
export const toolSearchMode: Effect.Effect<ToolSearchMode> = Effect.gen(function*() {
  return resolveMode({
    enableToolSearch: yield* optionalString("ENABLE_TOOL_SEARCH"),
    baseUrl: yield* optionalString("ANTHROPIC_BASE_URL"),
    disableExperimentalBetas: yield* optionalString("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS")
  })
}).pipe(Effect.orElseSucceed((): ToolSearchMode => ({ _tag: "Off", reason: "the environment could not be read" })))

/** `TOOLGATE_CONTEXT_TOKENS`: the context window the `auto` threshold refers to (default 200000). */
export const contextTokens: Effect.Effect<number> = Config.integer("TOOLGATE_CONTEXT_TOKENS").pipe(
  Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(DEFAULT_CONTEXT_TOKENS),
  Effect.orElseSucceed(() => DEFAULT_CONTEXT_TOKENS)
)
