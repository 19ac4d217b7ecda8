/**
 * What WebFetch may fetch, decided before any connection: a well-formed http(s) URL without
 * credentials, upgraded to https except for loopback hosts, and never a loopback or
 * private-network host unless an allow rule names that exact host (`WebFetch(domain:127.0.0.1)`).
 * Wildcard domain rules (`WebFetch(domain:*)`, `*.corp`) and whole-tool rules do not open internal
 * hosts: the user has to name the host. The same policy is applied again to the addresses a host
 * name resolves to, at connection time (see guardedLookup.ts).
 */
import type { PermissionRule } from "../../Permission.js"
import { domainOfSpecifier } from "../../PermissionRules.js"
import { classifyAddress, describeClass, isInternal, isLocalhostName, type AddressClass } from "./addresses.js"

export const WEB_FETCH_TOOL_NAME = "WebFetch"
export const MAX_URL_LENGTH = 2000

/** Host names compared the way domain rules compare them: lower case, no trailing dot, no brackets. */
export const normalizeHost = (host: string): string => {
  let h = host.trim().toLowerCase()
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1)
  while (h.endsWith(".")) h = h.slice(0, -1)
  return h
}

export interface InternalAccess {
  /** True when an allow rule names this host exactly. */
  readonly allows: (host: string) => boolean
  readonly hosts: ReadonlyArray<string>
}

/** The hosts named by explicit `WebFetch(domain:<host>)` allow rules (no wildcards). */
export const internalAccessFrom = (rules: ReadonlyArray<PermissionRule>): InternalAccess => {
  const hosts = new Set<string>()
  for (const rule of rules) {
    if (rule.behavior !== "allow" || rule.toolName !== WEB_FETCH_TOOL_NAME || rule.content === undefined) continue
    const domain = domainOfSpecifier(rule.content)
    if (domain === undefined || domain.includes("*")) continue
    hosts.add(normalizeHost(domain))
  }
  return { allows: (host) => hosts.has(normalizeHost(host)), hosts: [...hosts] }
}

export const NO_INTERNAL_ACCESS: InternalAccess = { allows: () => false, hosts: [] }

/** The class of a host as written in the URL, without DNS: an IP literal or a localhost name. */
export const literalClass = (host: string): AddressClass | undefined => {
  const h = normalizeHost(host)
  if (isLocalhostName(h)) return "loopback"
  return classifyAddress(h)
}

export const internalRefusal = (url: string, host: string, kind: AddressClass, resolvedTo?: string): string =>
  `WebFetch refused ${url}: ${
    resolvedTo === undefined
      ? `${host} is ${describeClass(kind)}`
      : `${host} resolves to ${resolvedTo}, ${describeClass(kind)}`
  }. ` +
  `Fetching from loopback or private-network hosts needs an allow rule naming the host, e.g. WebFetch(domain:${host}).`

/** Claude Code 2.1.332 never fetches a host name without a dot (localhost, an intranet name, an IPv6 literal). */
export const DOTLESS_HOST =
  "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use Bash with curl instead."

export type UrlCheck =
  | { readonly ok: true; readonly url: URL; readonly host: string; readonly upgraded: boolean }
  | { readonly ok: false; readonly reason: string }

/**
 * Checks a URL the model gave, and the URL of every hop: scheme, credentials, length, and an
 * internal host literal. Host names are resolved and checked later, when connecting.
 */
export const checkUrl = (text: string, access: InternalAccess): UrlCheck => {
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, reason: `The URL is too long (${text.length} characters; the maximum is ${MAX_URL_LENGTH}).` }
  }
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return {
      ok: false,
      reason: `Invalid URL: ${JSON.stringify(text)}. WebFetch needs a fully-formed http:// or https:// URL.`
    }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      reason: `WebFetch only fetches http:// and https:// URLs; ${
        JSON.stringify(url.protocol.slice(0, -1))
      } URLs are refused.`
    }
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: "WebFetch refuses URLs that carry a user name or password; remove the credentials from the URL."
    }
  }
  const host = normalizeHost(url.hostname)
  if (host === "") return { ok: false, reason: `Invalid URL: ${JSON.stringify(text)} has no host.` }
  const kind = literalClass(host)
  if (kind !== undefined && isInternal(kind) && !access.allows(host)) {
    return { ok: false, reason: internalRefusal(url.href, host, kind) }
  }
  const loopback = kind === "loopback"
  if (url.protocol === "http:" && !loopback) {
    const upgraded = new URL(url.href)
    upgraded.protocol = "https:"
    return { ok: true, url: upgraded, host, upgraded: true }
  }
  return { ok: true, url, host, upgraded: false }
}
