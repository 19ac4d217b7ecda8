/**
 * One `mcpServers` entry (claude-code-spec §5.1): its shape, checked field by field, with
 * `${VAR}` / `${VAR:-default}` expanded in `command`, `args`, `env`, `url` and `headers`.
 * A bad entry is an error naming the file and the server; it never stops the other entries.
 */
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

/** Names Claude Code keeps for itself; entries with these names are skipped (spec §5.1). */
export const RESERVED_SERVER_NAMES: ReadonlyArray<string> = ["workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser"]

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

/** Checks and expands one entry. `label` names it in messages, e.g. `/repo/.mcp.json: server "db"`. */
export const parseServerEntry = (raw: unknown, env: Environment): EntryResult => {
  if (!isRecord(raw)) return { _tag: "Invalid", reason: `must be an object, got ${kindOf(raw)}`, type: undefined }
  const type = raw.type === undefined ? "stdio" : raw.type
  if (typeof type !== "string") return { _tag: "Invalid", reason: `field "type" must be a string, got ${kindOf(type)}`, type: undefined }
  const warnings: Array<string> = []
  const missing = new Set<string>()
  const expand = (text: string, field: string) => {
    if (hiddenWhitespace(text)) warnings.push(`field "${field}" has leading, trailing or invisible whitespace: ${JSON.stringify(text)}`)
    return expandVariables(text, env, (name) => missing.add(name))
  }
  const finish = (config: McpServerConfig): EntryResult => {
    for (const name of missing) warnings.push(`\${${name}} is not set and has no default; it was left as written`)
    return { _tag: "Ok", config, warnings }
  }

  let timeout: number | undefined
  if (raw.timeout !== undefined) {
    if (typeof raw.timeout !== "number" || !Number.isFinite(raw.timeout)) {
      return { _tag: "Invalid", reason: `field "timeout" must be a number of milliseconds, got ${kindOf(raw.timeout)}`, type }
    }
    if (raw.timeout >= 1000) timeout = Math.floor(raw.timeout)
    else warnings.push(`field "timeout" (${raw.timeout}) is under 1000 ms and is ignored`)
  }
  if (raw.alwaysLoad !== undefined && typeof raw.alwaysLoad !== "boolean") {
    return { _tag: "Invalid", reason: `field "alwaysLoad" must be a boolean, got ${kindOf(raw.alwaysLoad)}`, type }
  }
  const alwaysLoad = raw.alwaysLoad === true
  if (raw.headersHelper !== undefined) warnings.push(`field "headersHelper" is not supported by toolgate and is ignored`)
  if (raw.oauth !== undefined) warnings.push(`field "oauth" is not supported by toolgate (no OAuth flow); it is ignored`)

  const stringMap = (field: string): Record<string, string> | string => {
    const value = raw[field]
    if (value === undefined) return {}
    if (!isRecord(value)) return `field "${field}" must be an object of strings, got ${kindOf(value)}`
    const out: Record<string, string> = {}
    for (const [key, v] of Object.entries(value)) {
      if (typeof v !== "string") return `field "${field}.${key}" must be a string, got ${kindOf(v)}`
      out[key] = expand(v, `${field}.${key}`)
    }
    return out
  }

  switch (type) {
    case "stdio": {
      if (raw.command === undefined) {
        return {
          _tag: "Invalid",
          reason: raw.url !== undefined ? `has a "url" but no "type": set "type" to "http" or "sse" (a missing type means stdio, which needs "command")` : `field "command" is missing`,
          type
        }
      }
      if (typeof raw.command !== "string" || raw.command.trim() === "") {
        return { _tag: "Invalid", reason: `field "command" must be a non-empty string, got ${typeof raw.command === "string" ? "an empty string" : kindOf(raw.command)}`, type }
      }
      const args: Array<string> = []
      if (raw.args !== undefined) {
        if (!Array.isArray(raw.args)) return { _tag: "Invalid", reason: `field "args" must be an array of strings, got ${kindOf(raw.args)}`, type }
        for (const [i, arg] of raw.args.entries()) {
          if (typeof arg !== "string") return { _tag: "Invalid", reason: `field "args[${i}]" must be a string, got ${kindOf(arg)}`, type }
          args.push(expand(arg, `args[${i}]`))
        }
      }
      const envMap = stringMap("env")
      if (typeof envMap === "string") return { _tag: "Invalid", reason: envMap, type }
      return finish({ type: "stdio", command: expand(raw.command, "command"), args, env: envMap, timeout, alwaysLoad })
    }
    case "http":
    case "sse": {
      if (typeof raw.url !== "string" || raw.url.trim() === "") {
        return { _tag: "Invalid", reason: raw.url === undefined ? `field "url" is missing` : `field "url" must be a non-empty string, got ${kindOf(raw.url)}`, type }
      }
      const url = expand(raw.url, "url")
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        return { _tag: "Invalid", reason: `field "url" is not a valid URL: ${JSON.stringify(url)}`, type }
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
        return { _tag: "Invalid", reason: `field "url" must be an http or https URL, got ${JSON.stringify(url)}`, type }
      }
      const headers = stringMap("headers")
      if (typeof headers === "string") return { _tag: "Invalid", reason: headers, type }
      return finish({ type, url, headers, timeout, alwaysLoad })
    }
    case "ws":
      return { _tag: "Invalid", reason: `type "ws" (WebSocket) is not supported by toolgate; use "http" (Streamable HTTP) or "sse"`, type }
    default:
      return { _tag: "Invalid", reason: `unknown type ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`, type }
  }
}
