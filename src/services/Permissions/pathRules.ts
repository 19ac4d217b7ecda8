/**
 * Read and Edit path rules: gitignore patterns, evaluated with the
 * `ignore` package, anchored by their first characters:
 *   `//p` filesystem root · `~/p` home · `/p` the rule's settings root · `p`, `./p` the cwd.
 * Asymmetries: a relative single-segment directory pattern (`src/**`) as deny/ask matches a
 * `src` directory at any depth, as allow only `<cwd>/src`; bare names (`.env`) match at any
 * depth (gitignore semantics). Deny/ask patterns compare case-insensitively (over-blocking is
 * harmless); allow patterns only on case-insensitive volumes.
 */
import ignore, { type Ignore } from "ignore"
import * as path from "node:path"
import { isWithin } from "../../internal/expandPath.js"
import type { PermissionRule } from "../../Permission.js"

export interface PathRuleAnchors {
  readonly home: string
  /** Anchors of relative patterns: for allow rules only the first (the launch directory). */
  readonly cwds: ReadonlyArray<string>
}

interface Anchored {
  /** Absolute directories the pattern is relative to. */
  readonly roots: ReadonlyArray<string>
  readonly pattern: string
}

/** Splits a rule's specifier into the directories it is anchored at and a gitignore pattern. */
export const anchorPattern = (rule: PermissionRule, anchors: PathRuleAnchors): Anchored | undefined => {
  const spec = rule.content
  if (spec === undefined) return undefined
  if (spec.startsWith("//")) return { roots: [path.parse(process.cwd()).root], pattern: spec.slice(1) }
  if (spec === "~") return { roots: [anchors.home], pattern: "**" }
  if (spec.startsWith("~/")) return { roots: [anchors.home], pattern: spec.slice(1) }
  if (spec.startsWith("/")) return { roots: [rule.root], pattern: spec }
  const relative = spec.startsWith("./") ? spec.slice(2) : spec
  if (relative === "") return undefined
  const roots = rule.behavior === "allow" ? anchors.cwds.slice(0, 1) : anchors.cwds
  // deny/ask: a single-segment directory pattern matches that directory at any depth
  const pattern = rule.behavior !== "allow" && /^[^/]+\/[^/]*\*[^/]*$/.test(relative) && !relative.startsWith("**/")
    ? `**/${relative}`
    : relative
  return { roots, pattern }
}

interface Compiled {
  readonly anchored: Anchored
  readonly folded: Ignore
  readonly exact: Ignore
}

const compiledCache = new WeakMap<PermissionRule, Map<string, Compiled | null>>()

const compile = (rule: PermissionRule, anchors: PathRuleAnchors): Compiled | undefined => {
  const key = `${anchors.home}\0${anchors.cwds.join("\0")}`
  let perRule = compiledCache.get(rule)
  if (perRule === undefined) {
    perRule = new Map()
    compiledCache.set(rule, perRule)
  }
  const cached = perRule.get(key)
  if (cached !== undefined) return cached ?? undefined
  const anchored = anchorPattern(rule, anchors)
  let compiled: Compiled | undefined
  if (anchored !== undefined) {
    // `dir/**` does not match `dir` itself in gitignore; its dir-only form makes it match the directory
    const patterns = anchored.pattern.endsWith("/**") && !/^[/*]*$/.test(anchored.pattern)
      ? [anchored.pattern, directoryForm(anchored.pattern)]
      : [anchored.pattern]
    compiled = {
      anchored,
      folded: ignore({ ignorecase: true }).add(patterns),
      exact: ignore({ ignorecase: false }).add(patterns)
    }
  }
  perRule.set(key, compiled ?? null)
  return compiled
}

/** `x/**` → `x/` (the directory itself), keeping the anchoring a middle slash gave `x/**`. */
const directoryForm = (pattern: string): string => {
  const dir = pattern.slice(0, -2)
  return dir.slice(0, -1).includes("/") ? dir : `/${dir}`
}

/** Pattern made only of `*` and `/`: it covers its root directory itself too. */
const coversRoot = (pattern: string): boolean => /^[/*]+$/.test(pattern) && pattern.includes("*")

export interface MatchOptions {
  readonly isDirectory: boolean
  /** Fold case: always for deny/ask; for allow only on a case-insensitive volume. */
  readonly foldCase: boolean
}

/** Does `rule` match the absolute path `candidate`? Errors count as a match for deny/ask only. */
export const pathRuleMatches = (
  rule: PermissionRule,
  candidate: string,
  anchors: PathRuleAnchors,
  options: MatchOptions
): boolean => {
  const compiled = compile(rule, anchors)
  if (compiled === undefined) return false
  const matcher = options.foldCase ? compiled.folded : compiled.exact
  for (const root of compiled.anchored.roots) {
    const inside = options.foldCase ? isWithin(candidate.toLowerCase(), root.toLowerCase()) : isWithin(candidate, root)
    if (!inside) continue
    const rel = path.relative(
      options.foldCase ? root.toLowerCase() : root,
      options.foldCase ? candidate.toLowerCase() : candidate
    )
    if (rel === "") {
      if (coversRoot(compiled.anchored.pattern)) return true
      continue
    }
    const posixRel = rel.split(path.sep).join("/")
    try {
      if (matcher.ignores(posixRel)) return true
      if (options.isDirectory && matcher.ignores(`${posixRel}/`)) return true
    } catch {
      if (rule.behavior !== "allow") return true
    }
  }
  return false
}
