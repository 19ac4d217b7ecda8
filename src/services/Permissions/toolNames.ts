/**
 * Matching a rule's tool-name part against a tool (claude-code-spec §1.3 tool-name globs, §1.9
 * MCP names).
 */
import type { RuleBehavior } from "../../Permission.js"
import { canonicalToolName } from "./ruleGrammar.js"
import { ALLOW_GLOB_PREFIX } from "./ruleValidation.js"

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
