/**
 * Content rules that are not paths or shell commands: parameter rules,
 * Agent types and Skill names.
 */
import type { AnyTool } from "../../Tool.js"
import { PARAMETER_RULE, PRIMARY_FIELDS } from "../../PermissionRules.js"
import type { PermissionRule } from "../../Permission.js"

const wildcard = (value: string): RegExp =>
  new RegExp(`^${value.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*")}$`)

/**
 * A deny/ask rule `Tool(param:value)` against the input: the field must be a top-level scalar,
 * present, not the tool's primary field; `*` is a wildcard, anything else exact.
 */
export const parameterRuleMatches = (rule: PermissionRule, tool: AnyTool, input: unknown): boolean => {
  if (rule.behavior === "allow" || rule.content === undefined) return false
  const match = PARAMETER_RULE.exec(rule.content)
  if (match === null) return false
  const [, field, value] = match as unknown as [string, string, string]
  if (PRIMARY_FIELDS[tool.name] === field) return false
  if (input === null || typeof input !== "object" || Array.isArray(input)) return false
  if (!Object.prototype.hasOwnProperty.call(input, field)) return false
  const actual = (input as Record<string, unknown>)[field]
  if (actual === null || actual === undefined || typeof actual === "object" || typeof actual === "function") {
    return false
  }
  return wildcard(value).test(String(actual))
}

/** `Agent(<type>)`: exact agent type. */
export const agentRuleMatches = (rule: PermissionRule, agentType: string): boolean => rule.content === agentType

/**
 * `Skill(name)` exact, `Skill(name *)` / `Skill(name:*)` with any arguments. Deny and ask rules
 * also match the name whatever the arguments.
 */
export const skillRuleMatches = (rule: PermissionRule, name: string, args: string | undefined): boolean => {
  const content = rule.content
  if (content === undefined) return false
  const invocation = args === undefined || args.trim() === "" ? name : `${name} ${args.trim()}`
  const prefix = content.endsWith(":*")
    ? content.slice(0, -2)
    : content.endsWith(" *")
    ? content.slice(0, -2)
    : undefined
  if (prefix !== undefined && !prefix.includes("*")) return invocation === prefix || invocation.startsWith(`${prefix} `)
  if (content.includes("*")) {
    const optionalTail = content.endsWith(" *") && content.indexOf("*") === content.length - 1
    return wildcard(content).test(invocation) || (optionalTail && invocation === content.slice(0, -2))
  }
  if (invocation === content) return true
  return rule.behavior !== "allow" && name === content
}
