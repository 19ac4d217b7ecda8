/**
 * The handler `if` field: one permission rule that must match the call for the hook to run.
 * It is a filter, not a permission: whenever the call cannot be judged
 * (an unparseable command, a specifier this module does not understand) the hook runs.
 */
import { Effect } from "effect"
import ignore from "ignore"
import * as os from "node:os"
import * as path from "node:path"
import { inputJsonSchema, type AnyTool } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import type { PermissionSubject } from "../../Permission.js"
import { canonicalToolName, parseRuleText, matchesToolName } from "../../PermissionRules.js"
import type { ShellAnalyzerService } from "../ShellAnalyzer.js"
import { bashCandidates, bashRuleMatches } from "./bashSubcommands.js"

const PRIMARY_FIELDS = new Set(["command", "file_path", "path", "notebook_path", "url"])

/** Rule tool names that cover a whole family of tools through their permission subject. */
const coversSubject = (ruleTool: string, subject: PermissionSubject): boolean =>
  (ruleTool === "Bash" && subject.kind === "bash") ||
  (ruleTool === "Edit" && subject.kind === "write") ||
  (ruleTool === "Read" && subject.kind === "read")

const subjectOf = (tool: AnyTool, input: unknown, session: SessionContext): PermissionSubject => {
  try {
    return tool.permissionSubject(input, session)
  } catch {
    return { kind: "none" }
  }
}

const schemaFields = new WeakMap<AnyTool, ReadonlySet<string>>()
const inputFieldsOf = (tool: AnyTool): ReadonlySet<string> => {
  let fields = schemaFields.get(tool)
  if (fields === undefined) {
    try {
      const properties = inputJsonSchema(tool).properties
      fields = new Set(typeof properties === "object" && properties !== null ? Object.keys(properties) : [])
    } catch {
      fields = new Set()
    }
    schemaFields.set(tool, fields)
  }
  return fields
}

/** Does the `if` rule match this call? */
export const ifMatches = (
  shell: ShellAnalyzerService,
  rule: string,
  tool: AnyTool,
  input: unknown,
  session: SessionContext
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const parsed = parseRuleText(rule)
    const subject = subjectOf(tool, input, session)
    const named = [tool.name, ...tool.aliases].some((n) =>
      matchesToolName(parsed.toolName, canonicalToolName(n), "deny")
    )
    if (!named && !coversSubject(parsed.toolName, subject)) return false
    const content = parsed.content
    if (content === undefined) return true

    const param = /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([\s\S]*)$/.exec(content)
    if (param !== null && !PRIMARY_FIELDS.has(param[1]!) && inputFieldsOf(tool).has(param[1]!)) {
      const value = typeof input === "object" && input !== null
        ? (input as Record<string, unknown>)[param[1]!]
        : undefined
      if (value === undefined || value === null || typeof value === "object") return false
      return wildcardRegExp(param[2]!.trim()).test(String(value))
    }

    switch (subject.kind) {
      case "bash": {
        // The parsed command as deny rules see it; the command texts as well, so that nothing matches less than before.
        if ((yield* bashRuleMatches(shell, content, subject.command)) === true) return true
        const candidates = yield* bashCandidates(shell, subject.command)
        if (candidates === undefined) return true
        return candidates.some((c) => bashPatternMatches(content, c))
      }
      case "read":
      case "write":
        return pathPatternMatches(content, subject.path, session)
      case "url":
        return content.startsWith("domain:") ? domainMatches(content.slice("domain:".length).trim(), subject.url) : true
      case "agent":
        return content === subject.agentType
      case "skill": {
        const call = subject.args === undefined || subject.args === ""
          ? subject.name
          : `${subject.name} ${subject.args}`
        return bashPatternMatches(content, call)
      }
      case "none":
        return true
    }
  })

const collapse = (text: string) => text.replace(/[ \t]+/g, " ").trim()

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\*]/g, "\\$&")

/** `*` is any run of characters, `\*` a literal star. */
const wildcardRegExp = (pattern: string, optionalTail = false): RegExp => {
  const parts: Array<string> = []
  let literal = ""
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\" && pattern[i + 1] === "*") {
      literal += "*"
      i++
    } else if (pattern[i] === "*") {
      parts.push(escapeRegExp(literal))
      literal = ""
    } else literal += pattern[i]
  }
  parts.push(escapeRegExp(literal))
  let source = parts.join(".*")
  if (optionalTail && source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
  return new RegExp(`^${source}$`, "s")
}

const unescapedStars = (pattern: string) => {
  let n = 0
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\" && pattern[i + 1] === "*") i++
    else if (pattern[i] === "*") n++
  }
  return n
}

/** Claude Code's three Bash specifier kinds: legacy `prefix:*`, wildcard, exact. */
export const bashPatternMatches = (specifier: string, command: string): boolean => {
  const spec = collapse(specifier)
  const cmd = collapse(command)
  if (spec.endsWith(":*") && !spec.endsWith("\\:*")) {
    const prefix = spec.slice(0, -2).trimEnd()
    return cmd === prefix || cmd.startsWith(`${prefix} `)
  }
  const stars = unescapedStars(spec)
  if (stars > 0) return wildcardRegExp(spec, stars === 1 && spec.endsWith(" *")).test(cmd)
  return cmd === spec.replace(/\\\*/g, "*")
}

/** gitignore-style path patterns with the four anchors of path rules (`//`, `~/`, `/`, relative). */
export const pathPatternMatches = (pattern: string, absolutePath: string, session: SessionContext): boolean => {
  let base: string
  let glob: string
  if (pattern.startsWith("//")) {
    base = "/"
    glob = pattern.slice(1)
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    base = os.homedir()
    glob = pattern === "~" ? "**" : pattern.slice(1)
  } else if (pattern.startsWith("/")) {
    base = session.projectDir
    glob = pattern
  } else {
    base = session.cwd
    glob = pattern.startsWith("./") ? pattern.slice(1) : pattern
  }
  const relative = path.relative(base, absolutePath)
  if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return false
  }
  try {
    return ignore().add(glob).ignores(relative.split(path.sep).join("/"))
  } catch {
    return true // a pattern `ignore` cannot handle: let the hook run
  }
}

/** `WebFetch(domain:…)`: case-insensitive, trailing dot ignored, `*.x` any depth, other `*` one label. */
export const domainMatches = (pattern: string, url: string): boolean => {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, "")
  } catch {
    return true
  }
  const p = pattern.toLowerCase().replace(/\.$/, "")
  if (p === "*") return true
  if (p.startsWith("*.")) return host.endsWith(p.slice(1))
  const labels = p.split(".").map((label) => (label === "*" ? "[^.]+" : escapeRegExp(label)))
  return new RegExp(`^${labels.join("\\.")}$`).test(host)
}
