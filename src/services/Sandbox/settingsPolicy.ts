/**
 * What the settings profile lets a command do, as Claude Code derives it: write in the working
 * directories and in `sandbox.filesystem.allowWrite` and Edit allow rules, never where Edit deny
 * rules and `denyWrite` say; read everything but what Read deny rules and `denyRead` cover (with
 * `allowRead` taking some of it back); reach the hosts of `sandbox.network.allowedDomains` and of
 * WebFetch(domain:…) allow rules, never those of `deniedDomains` and WebFetch deny rules.
 */
import * as path from "node:path"
import type { PermissionRule } from "../../Permission.js"
import type { SandboxSettings } from "../Settings.js"

export interface PolicyContext {
  readonly settings: SandboxSettings
  readonly rules: ReadonlyArray<PermissionRule>
  readonly home: string
  /** Where relative rules and settings paths are anchored. */
  readonly cwd: string
  readonly workingDirectories: ReadonlyArray<string>
}

const expandHome = (entry: string, home: string): string =>
  entry === "~" ? home : entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry

/** A settings path: `~` expanded, relative ones under the cwd. */
const settingsPath = (entry: string, context: PolicyContext): string => {
  const expanded = expandHome(entry, context.home)
  return path.isAbsolute(expanded) ? expanded : path.join(context.cwd, expanded)
}

/**
 * A path rule's specifier as a path or pattern for the sandbox:
 * `//p` the root, `~/p` home, `/p` the rule's settings root, anything else the cwd; a bare name
 * (`.env`) matches at any depth there.
 */
export const rulePath = (rule: PermissionRule, context: PolicyContext): string | undefined => {
  const spec = rule.content
  if (spec === undefined || spec === "") return undefined
  if (spec.startsWith("//")) return spec.slice(1)
  if (spec === "~" || spec.startsWith("~/")) return expandHome(spec, context.home)
  if (spec.startsWith("/")) return path.join(rule.root, spec)
  const relative = spec.startsWith("./") ? spec.slice(2) : spec
  const inner = relative.replace(/\/+$/, "")
  if (inner === "") return undefined
  return !inner.includes("/") ? path.join(context.cwd, "**", relative) : path.join(context.cwd, relative)
}

const rulePaths = (
  context: PolicyContext,
  tools: ReadonlyArray<string>,
  behavior: PermissionRule["behavior"]
): ReadonlyArray<string> =>
  context.rules.flatMap((
    r
  ) => (r.behavior === behavior && tools.includes(r.toolName)
    ? [rulePath(r, context)].filter((p): p is string => p !== undefined)
    : [])
  )

const EDIT_TOOLS = ["Edit", "Write", "MultiEdit", "NotebookEdit"]

const unique = (entries: ReadonlyArray<string>): Array<string> => [...new Set(entries)]

export interface FilesystemPolicy {
  readonly allowWrite: ReadonlyArray<string>
  readonly denyWrite: ReadonlyArray<string>
  readonly denyRead: ReadonlyArray<string>
  readonly allowRead: ReadonlyArray<string>
}

export const filesystemPolicy = (context: PolicyContext): FilesystemPolicy => {
  const fs = context.settings.filesystem
  return {
    allowWrite: unique([
      ...context.workingDirectories,
      ...fs.allowWrite.map((p) => settingsPath(p, context)),
      ...rulePaths(context, EDIT_TOOLS, "allow")
    ]),
    denyWrite: unique([
      ...fs.denyWrite.map((p) => settingsPath(p, context)),
      ...rulePaths(context, EDIT_TOOLS, "deny")
    ]),
    denyRead: unique([...fs.denyRead.map((p) => settingsPath(p, context)), ...rulePaths(context, ["Read"], "deny")]),
    allowRead: unique(fs.allowRead.map((p) => settingsPath(p, context)))
  }
}

const domainOf = (rule: PermissionRule): string | undefined =>
  rule.toolName === "WebFetch" && rule.content?.startsWith("domain:") === true
    ? rule.content.slice("domain:".length).trim() || undefined
    : undefined

const domains = (context: PolicyContext, behavior: PermissionRule["behavior"]) =>
  context.rules.flatMap((r) => {
    if (r.behavior !== behavior) return []
    const domain = domainOf(r)
    return domain === undefined ? [] : [domain]
  })

export interface NetworkPolicy {
  readonly allowedDomains: ReadonlyArray<string>
  readonly deniedDomains: ReadonlyArray<string>
}

export const networkPolicy = (context: PolicyContext): NetworkPolicy => ({
  allowedDomains: unique([...context.settings.network.allowedDomains, ...domains(context, "allow")]),
  deniedDomains: unique([...context.settings.network.deniedDomains, ...domains(context, "deny")])
})
