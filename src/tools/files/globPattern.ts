/**
 * Gitignore-style globs as ripgrep reads them, for `.gitignore`/`.ignore` files and for `--glob`
 * overrides (the JS fallback must select exactly the files ripgrep selects):
 * a leading `!` flips the rule, a leading `/` anchors it, a trailing `/` limits it to directories,
 * a glob without `/` matches at any depth, `*` and `?` never match `/`, `**` spans directories,
 * `{a,b}` alternates and `[...]` is a character class. The last matching rule wins.
 */
export type Verdict = "ignore" | "whitelist"

interface Rule {
  readonly regex: RegExp
  /** In gitignore terms: a `!` rule re-includes what earlier rules excluded. */
  readonly negated: boolean
  readonly dirOnly: boolean
}

export interface GlobMatcher {
  /** The gitignore verdict for a path relative to the matcher's directory (`/` separators). */
  readonly match: (relativePath: string, isDir: boolean) => Verdict | undefined
  /** Rules without a leading `!`. */
  readonly plainRules: number
}

export const compileGitignore = (lines: ReadonlyArray<string>, caseInsensitive = false): GlobMatcher => {
  const rules = lines.flatMap((line) => {
    const rule = parseLine(line, caseInsensitive)
    return rule === undefined ? [] : [rule]
  })
  return {
    plainRules: rules.filter((r) => !r.negated).length,
    match: (relativePath, isDir) => {
      for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i]!
        if (rule.dirOnly && !isDir) continue
        if (rule.regex.test(relativePath)) return rule.negated ? "whitelist" : "ignore"
      }
      return undefined
    }
  }
}

/**
 * `--glob` overrides: a plain glob whitelists, `!glob` ignores; once any plain glob is given,
 * files that match none are ignored (directories are still entered).
 */
export const compileOverrides = (globs: ReadonlyArray<string>): GlobMatcher => {
  const gitignore = compileGitignore(globs)
  return {
    plainRules: gitignore.plainRules,
    match: (relativePath, isDir) => {
      const verdict = gitignore.match(relativePath, isDir)
      if (verdict === "ignore") return "whitelist"
      if (verdict === "whitelist") return "ignore"
      return gitignore.plainRules > 0 && !isDir ? "ignore" : undefined
    }
  }
}

/** A glob matched against a whole string (file names for `--type`). */
export const compileNameGlob = (glob: string): RegExp => new RegExp(`^${globToRegex(glob)}$`)

const parseLine = (raw: string, caseInsensitive: boolean): Rule | undefined => {
  if (raw.startsWith("#")) return undefined
  let line = raw.endsWith("\\ ") ? raw : raw.replace(/\s+$/, "")
  if (line === "") return undefined
  let negated = false
  let anchored = false
  if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1)
    anchored = line.startsWith("/")
  } else {
    if (line.startsWith("!")) {
      negated = true
      line = line.slice(1)
    }
    if (line.startsWith("/")) {
      anchored = true
      line = line.slice(1)
    }
  }
  let dirOnly = false
  if (line.endsWith("/")) {
    dirOnly = true
    line = line.slice(0, -1)
  }
  if (line === "") return undefined
  let glob = line
  if (!anchored && !glob.includes("/") && !glob.startsWith("**/")) glob = `**/${glob}`
  if (glob.endsWith("/**")) glob = `${glob}/*`
  return { regex: new RegExp(`^${globToRegex(glob)}$`, caseInsensitive ? "i" : ""), negated, dirOnly }
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/

const globToRegex = (glob: string): string => {
  let out = ""
  let inBraces = 0
  let i = 0
  if (glob === "**") return ".*"
  while (i < glob.length) {
    const c = glob[i]!
    if (c === "*" && glob[i + 1] === "*") {
      const atStart = i === 0
      const prevSlash = i > 0 && glob[i - 1] === "/"
      const nextSlash = glob[i + 2] === "/"
      const atEnd = i + 2 === glob.length
      if (atStart && nextSlash) {
        out += "(?:.*/)?"
        i += 3
        continue
      }
      if (prevSlash && nextSlash) {
        // "/**/": the slash before is already written
        out += "(?:.*/)?"
        i += 3
        continue
      }
      if (prevSlash && atEnd) {
        out += ".*"
        i += 2
        continue
      }
      out += "[^/]*"
      i += 2
      continue
    }
    if (c === "*") {
      out += "[^/]*"
      i++
      continue
    }
    if (c === "?") {
      out += "[^/]"
      i++
      continue
    }
    if (c === "[") {
      const end = classEnd(glob, i)
      if (end === -1) {
        out += "\\["
        i++
        continue
      }
      let body = glob.slice(i + 1, end)
      let negate = false
      if (body.startsWith("!") || body.startsWith("^")) {
        negate = true
        body = body.slice(1)
      }
      out += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`
      i = end + 1
      continue
    }
    if (c === "{") {
      inBraces++
      out += "(?:"
      i++
      continue
    }
    if (c === "}" && inBraces > 0) {
      inBraces--
      out += ")"
      i++
      continue
    }
    if (c === "," && inBraces > 0) {
      out += "|"
      i++
      continue
    }
    if (c === "\\" && i + 1 < glob.length) {
      out += escapeChar(glob[i + 1]!)
      i += 2
      continue
    }
    out += escapeChar(c)
    i++
  }
  return out
}

/** Index of the `]` closing the class opened at `start`; a `]` right after `[` or `[!` is literal. */
const classEnd = (glob: string, start: number): number => {
  let j = start + 1
  if (glob[j] === "!" || glob[j] === "^") j++
  if (glob[j] === "]") j++
  for (; j < glob.length; j++) if (glob[j] === "]") return j
  return -1
}

const escapeChar = (c: string): string => (REGEX_SPECIAL.test(c) ? `\\${c}` : c)

/**
 * The `glob` parameter of Grep as Claude Code splits it: on whitespace, and on commas outside
 * patterns that use braces.
 */
export const splitGlobParameter = (glob: string): ReadonlyArray<string> =>
  glob
    .split(/\s+/)
    .filter((part) => part !== "")
    .flatMap((part) => (part.includes("{") && part.includes("}") ? [part] : part.split(",").filter((p) => p !== "")))

/**
 * Splits an absolute glob into the directory before its first wildcard and the rest
 * (`/a/b/**\/*.ts` → `/a/b` + `**\/*.ts`); a glob without wildcards splits at its last `/`.
 */
export const splitAbsoluteGlob = (pattern: string): { readonly base: string; readonly rest: string } => {
  const wildcard = pattern.search(/[*?[{]/)
  if (wildcard === -1) {
    const slash = pattern.lastIndexOf("/")
    return { base: slash <= 0 ? "/" : pattern.slice(0, slash), rest: pattern.slice(slash + 1) }
  }
  const slash = pattern.lastIndexOf("/", wildcard)
  return { base: slash <= 0 ? "/" : pattern.slice(0, slash), rest: pattern.slice(slash + 1) }
}
