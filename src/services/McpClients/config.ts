/**
 * One `mcpServers` entry: its shape, decoded with a Schema per transport, with
 * `${VAR}` / `${VAR:-default}` expanded in `command`, `args`, `env`, `url` and `headers`.
 * A bad entry is an error naming the file and the server; it never stops the other entries.
 */
import { Either, Schema } from "effect"
import { formatDocumentIssue } from "../../internal/formatIssues.js"
import { isRecord, kindOf } from "../../internal/json.js"

export type McpScope = "local" | "project" | "user" | "dynamic"

export type McpTransportType = "stdio" | "http" | "sse"

interface CommonConfig {
  /** Per-call timeout in ms (values under 1000 are ignored, as Claude Code does). */
  readonly timeout: number | undefined
  /** Keep this server's tools loaded (never deferred to ToolSearch). */
  readonly alwaysLoad: boolean
}

export interface StdioServerConfig extends CommonConfig {
  readonly type: "stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

export interface RemoteServerConfig extends CommonConfig {
  readonly type: "http" | "sse"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export type McpServerConfig = StdioServerConfig | RemoteServerConfig

/** Names Claude Code keeps for itself; entries with these names are skipped. */
export const RESERVED_SERVER_NAMES: ReadonlyArray<string> = [
  "workspace",
  "claude-in-chrome",
  "computer-use",
  "Claude Preview",
  "Claude Browser"
]

export type Environment = Readonly<Record<string, string | undefined>>

/**
 * Expands `${VAR}` and `${VAR:-default}`. The default applies only when the variable is unset
 * (an empty value is kept); an unset variable without default stays literal and is reported.
 */
export const expandVariables = (text: string, env: Environment, missing: (name: string) => void): string =>
  text.replace(/\$\{([^}]+)\}/g, (match, inner: string) => {
    const split = inner.indexOf(":-")
    const name = split === -1 ? inner : inner.slice(0, split)
    const fallback = split === -1 ? undefined : inner.slice(split + 2)
    const value = env[name]
    if (value !== undefined) return value
    if (fallback !== undefined) return fallback
    missing(name)
    return match
  })

export type EntryResult =
  | { readonly _tag: "Ok"; readonly config: McpServerConfig; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "Invalid"; readonly reason: string; readonly type: string | undefined }

// Zero-width and other invisible characters, plus surrounding whitespace: warned about, not trimmed.
const HIDDEN = /[\u200B-\u200D\u2060\uFEFF\u00A0]/

const hiddenWhitespace = (value: string): boolean => value !== value.trim() || HIDDEN.test(value)

const NonEmptyString = Schema.String.pipe(
  Schema.filter((s) => s.trim() !== ""),
  Schema.annotations({ title: "a non-empty string" })
)
const StringMap = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
  title: "an object of strings"
})
const common = {
  timeout: Schema.optional(
    Schema.Number.pipe(Schema.finite(), Schema.annotations({ title: "a number of milliseconds" }))
  ),
  alwaysLoad: Schema.optional(Schema.Boolean)
}

/** The shape of a stdio entry (`type` absent or "stdio"). */
const StdioEntry = Schema.Struct({
  command: NonEmptyString,
  args: Schema.optional(Schema.Array(Schema.String).annotations({ title: "an array of strings" })),
  env: Schema.optional(StringMap),
  ...common
})

/** The shape of a remote entry (`type` "http" or "sse"). */
const RemoteEntry = Schema.Struct({
  url: NonEmptyString,
  headers: Schema.optional(StringMap),
  ...common
})

const decodeOptions = { errors: "first", onExcessProperty: "ignore" } as const
const decodeStdio = Schema.decodeUnknownEither(StdioEntry, decodeOptions)
const decodeRemote = Schema.decodeUnknownEither(RemoteEntry, decodeOptions)

/** Checks and expands one entry; a reason names the field inside the entry. */
export const parseServerEntry = (raw: unknown, env: Environment): EntryResult => {
  if (!isRecord(raw)) return { _tag: "Invalid", reason: `must be an object, got ${kindOf(raw)}`, type: undefined }
  const type = raw.type === undefined ? "stdio" : raw.type
  if (typeof type !== "string") {
    return { _tag: "Invalid", reason: `field "type" must be a string, got ${kindOf(type)}`, type: undefined }
  }
  const invalid = (reason: string): EntryResult => ({ _tag: "Invalid", reason, type })
  if (type === "ws") {
    return invalid(`type "ws" (WebSocket) is not supported by toolgate; use "http" (Streamable HTTP) or "sse"`)
  }
  if (type !== "stdio" && type !== "http" && type !== "sse") {
    return invalid(`unknown type ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`)
  }
  if (type === "stdio" && raw.command === undefined && raw.url !== undefined) {
    return invalid(
      `has a "url" but no "type": set "type" to "http" or "sse" (a missing type means stdio, which needs "command")`
    )
  }

  const warnings: Array<string> = []
  const missing = new Set<string>()
  const expand = (text: string, field: string) => {
    if (hiddenWhitespace(text)) {
      warnings.push(`field "${field}" has leading, trailing or invisible whitespace: ${JSON.stringify(text)}`)
    }
    return expandVariables(text, env, (name) => missing.add(name))
  }
  const expandMap = (map: Readonly<Record<string, string>> | undefined, field: string) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, expand(value, `${field}.${key}`)]))
  const finish = (config: McpServerConfig): EntryResult => {
    for (const name of missing) warnings.push(`\${${name}} is not set and has no default; it was left as written`)
    return { _tag: "Ok", config, warnings }
  }
  const commonOf = (entry: { readonly timeout?: number | undefined; readonly alwaysLoad?: boolean | undefined }) => {
    if (entry.timeout !== undefined && entry.timeout < 1000) {
      warnings.push(`field "timeout" (${entry.timeout}) is under 1000 ms and is ignored`)
    }
    if (raw.headersHelper !== undefined) {
      warnings.push(`field "headersHelper" is not supported by toolgate and is ignored`)
    }
    if (raw.oauth !== undefined) {
      warnings.push(`field "oauth" is not supported by toolgate (no OAuth flow); it is ignored`)
    }
    return {
      timeout: entry.timeout !== undefined && entry.timeout >= 1000 ? Math.floor(entry.timeout) : undefined,
      alwaysLoad: entry.alwaysLoad === true
    }
  }

  if (type === "stdio") {
    const decoded = decodeStdio(raw)
    if (Either.isLeft(decoded)) return invalid(formatDocumentIssue(decoded.left.issue))
    const entry = decoded.right
    const shared = commonOf(entry)
    const args = (entry.args ?? []).map((arg, i) => expand(arg, `args[${i}]`))
    const envMap = expandMap(entry.env, "env")
    return finish({ type: "stdio", command: expand(entry.command, "command"), args, env: envMap, ...shared })
  }
  const decoded = decodeRemote(raw)
  if (Either.isLeft(decoded)) return invalid(formatDocumentIssue(decoded.left.issue))
  const entry = decoded.right
  const shared = commonOf(entry)
  const url = expand(entry.url, "url")
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return invalid(`field "url" is not a valid URL: ${JSON.stringify(url)}`)
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return invalid(`field "url" must be an http or https URL, got ${JSON.stringify(url)}`)
  }
  return finish({ type, url, headers: expandMap(entry.headers, "headers"), ...shared })
}
