/**
 * Hook matchers: `*`, `""` or none match everything; a matcher made only
 * of letters, digits, `_`, `-`, space, `,` and `|` is an exact name or a list; anything else is an
 * unanchored JavaScript RegExp (an invalid one matches nothing). Legacy tool names count on both
 * sides (`Task` matches `Agent`).
 */
import { LEGACY_TOOL_NAMES, canonicalToolName } from "../../PermissionRules.js"

const EXACT_LIST = /^[A-Za-z0-9_\- ,|]+$/

/** The tool's name, its canonical name and every legacy alias of it. */
const namesOf = (toolName: string): ReadonlyArray<string> => {
  const canonical = canonicalToolName(toolName)
  const legacy = Object.keys(LEGACY_TOOL_NAMES).filter((name) => LEGACY_TOOL_NAMES[name] === canonical)
  return Array.from(new Set([toolName, canonical, ...legacy]))
}

const regexCache = new Map<string, RegExp | null>()

const compile = (matcher: string): RegExp | null => {
  let compiled = regexCache.get(matcher)
  if (compiled === undefined) {
    try {
      compiled = new RegExp(matcher)
    } catch {
      compiled = null
    }
    if (regexCache.size > 1000) regexCache.clear()
    regexCache.set(matcher, compiled)
  }
  return compiled
}

export const matcherMatches = (matcher: string | undefined, toolName: string): boolean => {
  if (matcher === undefined || matcher === "" || matcher === "*") return true
  if (EXACT_LIST.test(matcher)) {
    const canonical = canonicalToolName(toolName)
    return matcher
      .split(/[|,]/)
      .map((part) => part.trim())
      .some((part) => part !== "" && (part === toolName || canonicalToolName(part) === canonical))
  }
  const regex = compile(matcher)
  if (regex === null) return false
  return namesOf(toolName).some((name) => {
    regex.lastIndex = 0
    return regex.test(name)
  })
}
