/**
 * What "always allow" would save for an ask: a directory rule for paths, a domain rule for
 * WebFetch, the tool name for MCP and other whole tools. Never a rule broader than the
 * directory asked about, never the filesystem root or the home directory as a whole.
 * (Bash suggestions come from the shell analyzer.)
 */
import * as path from "node:path"
import { isWithin } from "../../internal/expandPath.js"
import { formatRule } from "../../PermissionRules.js"
import type { RuleSuggestion } from "../../Permission.js"

/** Characters with a meaning in gitignore patterns; a path holding them gets no suggestion. */
const PATTERN_SPECIAL = /[*?[\]\\!#]|^\s|\s$/

/**
 * `Read(...)`/`Edit(...)` for the directory holding `target` (or `target` itself when it is a
 * directory): `/dir/**` when inside the launch directory (anchored at the local settings root),
 * `//abs/dir/**` otherwise.
 */
export const pathRuleSuggestion = (
  toolName: "Read" | "Edit",
  target: string,
  targetIsDirectory: boolean,
  launchCwd: string,
  home: string
): ReadonlyArray<RuleSuggestion> => {
  const dir = targetIsDirectory ? target : path.dirname(target)
  const root = path.parse(dir).root
  const tooBroad = dir === root || dir === home || isWithin(home, dir)
  const subject = tooBroad && !targetIsDirectory ? target : dir
  if (tooBroad && targetIsDirectory) return []
  const suffix = subject === dir ? "/**" : ""
  const inside = isWithin(subject, launchCwd)
  const relative = inside ? path.relative(launchCwd, subject).split(path.sep).join("/") : ""
  if (PATTERN_SPECIAL.test(relative) || PATTERN_SPECIAL.test(subject)) return []
  const specifier = inside
    ? (relative === "" ? "/**" : `/${relative}${suffix}`)
    : `/${subject.split(path.sep).join("/")}${suffix}`
  return [{ rule: formatRule(toolName, specifier), behavior: "allow" }]
}

export const domainSuggestion = (hostname: string): ReadonlyArray<RuleSuggestion> => [
  { rule: `WebFetch(domain:${hostname})`, behavior: "allow" }
]

export const wholeToolSuggestion = (
  toolName: string
): ReadonlyArray<RuleSuggestion> => [{ rule: toolName, behavior: "allow" }]
