/**
 * The permission rule language, shared by every stage that reads rules:
 * how a rule is written (`Tool` / `Tool(specifier)`), which tools its tool-name part covers, the
 * hosts of `WebFetch(domain:…)` rules, and which rules Claude Code accepts but never uses.
 */
import type { PermissionRule, RuleBehavior, RuleSource } from "./Permission.js"

// ---------------------------------------------------------------------------------------------
// The grammar `Tool` / `Tool(specifier)`
// ---------------------------------------------------------------------------------------------

/** Legacy tool names, mapped before matching rules and hook matchers. */
export const LEGACY_TOOL_NAMES: Readonly<Record<string, string>> = {
  Task: "Agent",
  KillShell: "TaskStop",
  BashOutputTool: "TaskOutput",
  AgentOutputTool: "TaskOutput",
  BashOutput: "TaskOutput"
}

export const canonicalToolName = (name: string): string => LEGACY_TOOL_NAMES[name] ?? name

export interface ParsedRuleText {
  readonly toolName: string
  readonly content: string | undefined
}

const isEscaped = (text: string, index: number): boolean => {
  let backslashes = 0
  for (let i = index - 1; i >= 0 && text[i] === "\\"; i--) backslashes++
  return backslashes % 2 === 1
}

/** Splits a rule into tool name and unescaped specifier; `Bash(*)` and `Bash()` mean the whole tool. */
export const parseRuleText = (raw: string): ParsedRuleText => {
  const text = raw.trim()
  let open = -1
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(" && !isEscaped(text, i)) {
      open = i
      break
    }
  }
  let close = -1
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ")" && !isEscaped(text, i)) {
      close = i
      break
    }
  }
  if (open <= 0 || close === -1 || close !== text.length - 1 || close < open) {
    return { toolName: canonicalToolName(text), content: undefined }
  }
  const toolName = canonicalToolName(text.slice(0, open))
  const specifier = text.slice(open + 1, close).replace(/\\([()\\])/g, "$1")
  if (specifier === "" || specifier === "*") return { toolName, content: undefined }
  // `WebFetch(domain:*)` is the whole tool
  if (toolName === "WebFetch" && /^domain:\s*\*$/.test(specifier.trim())) return { toolName, content: undefined }
  return { toolName, content: specifier }
}

export const makeRule = (
  raw: string,
  behavior: RuleBehavior,
  source: RuleSource,
  root: string,
  file?: string
): PermissionRule => {
  const { toolName, content } = parseRuleText(raw)
  return file === undefined
    ? { raw: raw.trim(), toolName, content, behavior, source, root }
    : { raw: raw.trim(), toolName, content, behavior, source, root, file }
}

/** Writes a rule back as text, escaping parentheses in the specifier. */
export const formatRule = (toolName: string, content?: string): string =>
  content === undefined ? toolName : `${toolName}(${content.replace(/([()\\])/g, "\\$1")})`

// ---------------------------------------------------------------------------------------------
// A rule's tool-name part against a tool (tool-name globs, MCP server and tool names)
// ---------------------------------------------------------------------------------------------

/** Allow rules may glob only after a literal `mcp__<server>__` prefix. */
export const ALLOW_GLOB_PREFIX = /^mcp__[A-Za-z0-9-][A-Za-z0-9_-]*?__/

const globToRegExp = (glob: string): RegExp =>
  new RegExp(`^${glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`)

/**
 * Does a rule naming `ruleTool` cover the tool `toolName`? Deny and ask rules may use globs for
 * the whole name; allow rules only after a literal `mcp__<server>__` prefix. `mcp__server`
 * covers every tool of that server.
 */
export const matchesToolName = (ruleTool: string, toolName: string, behavior: RuleBehavior): boolean => {
  const rule = canonicalToolName(ruleTool)
  const name = canonicalToolName(toolName)
  if (rule === name) return true
  if (rule.startsWith("mcp__") && !rule.includes("*")) {
    const parts = rule.split("__")
    if (parts.length === 2 && name.startsWith(`${rule}__`)) return true
    return false
  }
  if (!rule.includes("*")) return false
  if (behavior === "allow" && !ALLOW_GLOB_PREFIX.test(rule.split("*")[0] ?? "")) return false
  return globToRegExp(rule).test(name)
}

// ---------------------------------------------------------------------------------------------
// `WebFetch(domain:<host>)` rules: the URL's hostname, compared case-insensitively with a
// trailing `.` ignored on both sides. `*.example.com` matches any depth of subdomain but not
// `example.com`; a bare `*` matches every host; a `*` anywhere else matches within one label only.
// ---------------------------------------------------------------------------------------------

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
    if (suffix.includes("*")) {
      return new RegExp(`^(?:[^.]+\\.)+${suffix.split("*").map(escape).join("[^.]*")}$`).test(hostname)
    }
    return hostname.endsWith(`.${suffix}`)
  }
  if (!pattern.includes("*")) return pattern === hostname
  return new RegExp(`^${pattern.split("*").map(escape).join("[^.]*")}$`).test(hostname)
}

// ---------------------------------------------------------------------------------------------
// Rules Claude Code accepts in a settings file but never uses, each skipped with a warning: empty
// rules, allow rules with a tool-name glob other than after a literal `mcp__<server>__`, path rules
// written for Write/NotebookEdit/Glob/MultiEdit, and parameter rules on a tool's primary field.
// ---------------------------------------------------------------------------------------------

/** Tools whose path-specifier rules are never consulted (use `Edit(...)` / `Read(...)`). */
export const UNCONSULTED_PATH_RULE_TOOLS: ReadonlySet<string> = new Set(["Write", "NotebookEdit", "Glob", "MultiEdit"])

/** The field a tool's own specifier applies to; `Tool(field:value)` on it is not a parameter rule. */
export const PRIMARY_FIELDS: Readonly<Record<string, string>> = {
  Bash: "command",
  PowerShell: "command",
  Monitor: "command",
  Read: "file_path",
  Edit: "file_path",
  Write: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "path",
  Grep: "path",
  LSP: "file_path",
  WebFetch: "url"
}

/** `param:value` (whitespace around `:` ignored); the name must look like an input field. */
export const PARAMETER_RULE = /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*([\s\S]*?)\s*$/

export interface RuleCheck {
  readonly usable: boolean
  readonly warning?: string
  /**
   * For a deny or ask rule that cannot be parsed: a whole-tool ask rule for the tool it names
   * (every tool when no name can be told), so that the rule fails closed instead of vanishing.
   */
  readonly fallback?: PermissionRule
  /** The fallback is the rule itself, written for the tool whose rules cover it (`Write(x)` as `Edit(x)`). */
  readonly applied?: boolean
}

const where = (rule: PermissionRule): string => `${rule.source}${rule.file === undefined ? "" : ` (${rule.file})`}`

/** The tool a malformed rule names: the text before its first parenthesis, when it looks like a tool name. */
const namedTool = (rule: PermissionRule): string | undefined => {
  const name = rule.raw.split(/[()]/)[0]!.trim()
  return /^[A-Za-z0-9_*-]+$/.test(name) ? name : undefined
}

/** A deny or ask rule that cannot be parsed makes the tool it names ask; an allow rule is only dropped. */
const unparsable = (rule: PermissionRule, why: string, toolName: string | undefined = namedTool(rule)): RuleCheck => {
  const prefix = `Permission rule '${rule.raw}' from ${where(rule)} ${why}`
  if (rule.behavior === "allow") return { usable: false, warning: `${prefix}; it is ignored` }
  const fallback: PermissionRule = { ...rule, toolName: toolName ?? "*", content: undefined, behavior: "ask" }
  return {
    usable: false,
    fallback,
    warning: `${prefix}; as a ${rule.behavior} rule it fails closed: ${
      toolName === undefined ? "every tool" : toolName
    } now always asks`
  }
}

export const checkRule = (rule: PermissionRule): RuleCheck => {
  const skip = (why: string): RuleCheck => ({
    usable: false,
    warning: `Permission rule '${rule.raw}' from ${where(rule)} ${why}; it is ignored`
  })
  if (rule.raw === "" || rule.toolName === "") return skip("is empty")
  if (/[\s()]/.test(rule.toolName)) return unparsable(rule, "cannot be parsed (expected Tool or Tool(specifier))")
  if (rule.toolName.includes("*")) {
    if (rule.content !== undefined) return unparsable(rule, "combines a tool-name glob with a specifier", rule.toolName)
    if (rule.behavior === "allow" && !ALLOW_GLOB_PREFIX.test(rule.toolName.split("*")[0] ?? "")) {
      return skip("uses a tool-name glob in an allow rule (only mcp__<server>__… globs are allowed)")
    }
  }
  if (rule.content !== undefined && UNCONSULTED_PATH_RULE_TOOLS.has(rule.toolName)) {
    const use = rule.toolName === "Glob" ? "Read" : "Edit"
    if (rule.behavior === "allow") {
      return skip(`is a ${rule.toolName}(...) path rule, which is never consulted (use ${use}(...))`)
    }
    // Claude Code ignores it; dropping a deny or ask rule would allow what the person meant to forbid.
    return {
      usable: false,
      fallback: { ...rule, toolName: use },
      applied: true,
      warning: `Permission rule '${rule.raw}' from ${
        where(rule)
      } is a ${rule.toolName}(...) path rule, which Claude Code never consults; toolgate applies it as ${use}(${rule.content})`
    }
  }
  if (rule.content !== undefined && rule.behavior !== "allow") {
    const primary = PRIMARY_FIELDS[rule.toolName]
    const param = PARAMETER_RULE.exec(rule.content)
    if (primary !== undefined && param !== null && param[1] === primary && !isLegacyPrefix(rule)) {
      return skip(`matches the primary field "${primary}" of ${rule.toolName}, which parameter rules cannot match`)
    }
  }
  if (
    rule.toolName === "WebFetch" && rule.content !== undefined && domainOfSpecifier(rule.content) === undefined &&
    !PARAMETER_RULE.test(rule.content)
  ) {
    return unparsable(rule, "cannot be parsed (WebFetch rules are written WebFetch(domain:host))")
  }
  return { usable: true }
}

/** `Bash(command:*)` is the legacy prefix rule for a command named `command`, not a parameter rule. */
const isLegacyPrefix = (rule: PermissionRule): boolean =>
  rule.content !== undefined && /:\*$/.test(rule.content) &&
  (rule.toolName === "Bash" || rule.toolName === "PowerShell" || rule.toolName === "Monitor")

/** Splits rules into the usable ones and warnings for the rest. */
export const partitionRules = (
  rules: ReadonlyArray<PermissionRule>
): { readonly usable: ReadonlyArray<PermissionRule>; readonly warnings: ReadonlyArray<string> } => {
  const usable: Array<PermissionRule> = []
  const warnings: Array<string> = []
  for (const rule of rules) {
    const check = checkRule(rule)
    if (check.usable) usable.push(rule)
    if (check.fallback !== undefined) usable.push(check.fallback)
    if (check.warning !== undefined) warnings.push(check.warning)
  }
  return { usable, warnings }
}

/**
 * Deny/ask rules naming a tool that is not in the pool (names with `_` or `*` exempt), for a
 * start-up warning. The caller knows the pool.
 */
export const unknownToolWarnings = (
  rules: ReadonlyArray<PermissionRule>,
  knownToolNames: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const known = new Set(knownToolNames)
  return rules
    .filter((r) =>
      r.behavior !== "allow" && !known.has(r.toolName) && !r.toolName.includes("_") && !r.toolName.includes("*")
    )
    .map((r) => `Permission rule '${r.raw}' from ${where(r)} names an unknown tool ${r.toolName}`)
}
