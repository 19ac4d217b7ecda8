/**
 * `WebFetch(domain:<host>)` rules (claude-code-spec §1.8): the URL's hostname, compared
 * case-insensitively with a trailing `.` ignored on both sides. `*.example.com` matches any depth
 * of subdomain but not `example.com`; a bare `*` matches every host; a `*` anywhere else matches
 * within one label only.
 */

/** The hostname of a URL, lower-cased, without a trailing dot; undefined when it does not parse. */
export const urlHostname = (url: string): string | undefined => {
  try {
    const host = new URL(url).hostname.toLowerCase()
    const trimmed = host.endsWith(".") ? host.slice(0, -1) : host
    return trimmed === "" ? undefined : trimmed
  } catch {
    return undefined
  }
}

/** The host of a `domain:` specifier, or undefined when the specifier is not a domain rule. */
export const domainOfSpecifier = (content: string): string | undefined => {
  const match = /^domain:\s*(.+?)\s*$/i.exec(content)
  if (match === null) return undefined
  const host = match[1]!.toLowerCase()
  return host.endsWith(".") ? host.slice(0, -1) : host
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&")

export const domainMatches = (pattern: string, hostname: string): boolean => {
  if (pattern === "*") return true
  if (pattern.startsWith("*.")) {
    const suffix = pattern.slice(2)
    if (suffix.includes("*")) return new RegExp(`^(?:[^.]+\\.)+${suffix.split("*").map(escape).join("[^.]*")}$`).test(hostname)
    return hostname.endsWith(`.${suffix}`)
  }
  if (!pattern.includes("*")) return pattern === hostname
  return new RegExp(`^${pattern.split("*").map(escape).join("[^.]*")}$`).test(hostname)
}
