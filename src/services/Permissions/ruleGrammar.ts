/**
 * The permission rule grammar `Tool` / `Tool(specifier)` (claude-code-spec §1.3).
 */
import type { PermissionRule, RuleBehavior, RuleSource } from "../../Permission.js"

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
  // `WebFetch(domain:*)` is the whole tool (spec §1.3)
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
