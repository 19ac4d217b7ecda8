/**
 * Bash rule matching: legacy `prefix:*`, wildcard
 * and exact specifiers; strict matching for deny/ask, lenient-for-safety matching for allow.
 */
import type { PermissionRule } from "../../Permission.js"
import type { SimpleCommand, Word } from "./types.js"
import type { Unit } from "./units.js"
import { commandKey } from "./wrappers.js"
import { memoByUnit } from "./memo.js"
import { optionAwareMatch } from "./options/rules.js"
import type { WordFacts } from "./words.js"

export type BashPattern =
  | { readonly kind: "any" }
  | { readonly kind: "prefix"; readonly prefix: string; readonly tokens: ReadonlyArray<string> }
  | {
    readonly kind: "wildcard"
    readonly regex: RegExp
    readonly literalTokens: ReadonlyArray<string>
    readonly rest: RegExp | undefined
  }
  | { readonly kind: "exact"; readonly text: string; readonly tokens: ReadonlyArray<string> }

/** Runs of spaces and tabs count as one space (≥ 2.1.98), in rules and commands alike. */
export const collapseWhitespace = (text: string): string => text.replace(/[ \t]+/g, " ").trim()

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/** Splits a specifier into literal and `*` parts (`\*` is a literal star). */
const wildcardParts = (spec: string): Array<string | null> => {
  const parts: Array<string | null> = []
  let literal = ""
  for (let i = 0; i < spec.length; i++) {
    const ch = spec[i]!
    if (ch === "\\" && (spec[i + 1] === "*" || spec[i + 1] === "\\")) {
      literal += spec[i + 1]
      i++
    } else if (ch === "*") {
      parts.push(literal, null)
      literal = ""
    } else {
      literal += ch
    }
  }
  parts.push(literal)
  return parts.filter((p) => p !== "")
}

const hasUnescapedStar = (spec: string): boolean => wildcardParts(spec).includes(null)

/** The regex of a wildcard specifier: `*` → `.*`; a single trailing ` *` is optional. */
const compileWildcard = (spec: string): RegExp => {
  const parts = wildcardParts(spec)
  const stars = parts.filter((p) => p === null).length
  const last = parts[parts.length - 1]
  const beforeLast = parts[parts.length - 2]
  if (stars === 1 && last === null && typeof beforeLast === "string" && beforeLast.endsWith(" ")) {
    const head = parts.slice(0, -2).map((p) => (p === null ? ".*" : escapeRegExp(p))).join("")
    return new RegExp(`^${head}${escapeRegExp(beforeLast.slice(0, -1))}(?: .*)?$`, "s")
  }
  return new RegExp(`^${parts.map((p) => (p === null ? ".*" : escapeRegExp(p))).join("")}$`, "s")
}

const unescapeStars = (spec: string): string => spec.replace(/\\([*\\])/g, "$1")

const patternCache = new Map<string, BashPattern>()

/** Compiles the specifier of a Bash rule (undefined content: the whole tool). */
export const compileBashPattern = (content: string | undefined): BashPattern => {
  if (content === undefined) return { kind: "any" }
  const cached = patternCache.get(content)
  if (cached !== undefined) return cached
  const spec = collapseWhitespace(content)
  let pattern: BashPattern
  if (spec === "*" || spec === "") pattern = { kind: "any" }
  else if (spec.endsWith(":*") && !hasUnescapedStar(spec.slice(0, -2))) {
    const prefix = unescapeStars(spec.slice(0, -2)).trim()
    pattern = { kind: "prefix", prefix, tokens: prefix.split(" ") }
  } else if (hasUnescapedStar(spec)) {
    const tokens = spec.split(" ")
    const literalTokens: Array<string> = []
    let i = 0
    while (i < tokens.length && !hasUnescapedStar(tokens[i]!)) literalTokens.push(unescapeStars(tokens[i++]!))
    const restSpec = tokens.slice(i).join(" ")
    pattern = {
      kind: "wildcard",
      regex: compileWildcard(spec),
      literalTokens,
      rest: restSpec === "" ? undefined : restSpec === "*" ? /^.*$/s : compileWildcard(restSpec)
    }
  } else {
    const text = unescapeStars(spec)
    pattern = { kind: "exact", text, tokens: text.split(" ") }
  }
  if (patternCache.size > 1000) patternCache.clear()
  patternCache.set(content, pattern)
  return pattern
}

/** Matches a whole command string (deny/ask on the full text, or a simple candidate string). */
export const matchesText = (pattern: BashPattern, text: string): boolean =>
  matchesNormalized(pattern, collapseWhitespace(text))

const matchesNormalized = (pattern: BashPattern, command: string): boolean => {
  switch (pattern.kind) {
    case "any":
      return true
    case "prefix":
      return command === pattern.prefix || command.startsWith(pattern.prefix + " ")
    case "wildcard":
      return pattern.regex.test(command)
    case "exact":
      return command === pattern.text
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering units as text
// ---------------------------------------------------------------------------------------------

/** Stands for a value only known at run time; only a `*` can match it. */
const DYNAMIC_MARK = "\u0000"

const SAFE_WORD = /^[A-Za-z0-9_\-+=.,:/@%^~]+$/

/** A word as it appears in the text allow rules are matched against: quoted when it needs quotes. */
export const renderWord = (word: Word): string => {
  if (typeof word !== "string") return DYNAMIC_MARK + word.text
  if (SAFE_WORD.test(word)) return word
  return `'${word.replace(/'/g, `'\\''`)}'`
}

export const renderArgv = (argv: ReadonlyArray<Word>): string => argv.map(renderWord).join(" ")

/** A unit's source text and rendered argv, whitespace-collapsed, and its env prefix text. */
const unitTexts = memoByUnit((unit: Unit) => ({
  text: collapseWhitespace(unit.text),
  rendered: collapseWhitespace(renderArgv(unit.argv)),
  env: unit.envFacts.map((e) => e.raw).join(" ")
}))

// ---------------------------------------------------------------------------------------------
// Allow: lenient for safety (argv[0] exact, only safe env stripped, never across units)
// ---------------------------------------------------------------------------------------------

/** Variables that may precede a command without changing what an allow rule approves. */
export const SAFE_ENV_VARS: ReadonlySet<string> = new Set([
  "GOEXPERIMENT",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "GO111MODULE",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "NODE_ENV",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
  "PYTEST_DEBUG",
  "ANTHROPIC_API_KEY",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_TIME",
  "CHARSET",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "TZ",
  "LS_COLORS",
  "LSCOLORS",
  "GREP_COLOR",
  "GREP_COLORS",
  "GCC_COLORS",
  "TIME_STYLE",
  "BLOCK_SIZE",
  "BLOCKSIZE",
  "COLUMNS",
  "LINES",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "CI",
  "DEBIAN_FRONTEND",
  "GIT_TERMINAL_PROMPT"
])

export const hasOnlySafeEnv = (unit: Unit): boolean => unit.env.every((e) => SAFE_ENV_VARS.has(e.name))

const stringArgv = (argv: ReadonlyArray<Word>): ReadonlyArray<string> | undefined => {
  const out: Array<string> = []
  for (const w of argv) {
    if (typeof w !== "string") return undefined
    out.push(w)
  }
  return out
}

/**
 * Does an allow rule approve this unit by itself? `withEnv` also tries the text with the
 * environment prefix, for rules that spell it out (`Bash(FOO=1 npm test)`).
 */
export const allowMatchesUnit = (pattern: BashPattern, unit: Unit, withEnv = false): boolean => {
  if (pattern.kind === "any") return unit.exactRuleOnly === undefined
  if (unit.exactRuleOnly !== undefined && pattern.kind !== "exact") return false
  const texts = unitTexts(unit)
  const candidate = withEnv && texts.env.length > 0 ? `${texts.env} ${texts.rendered}` : texts.rendered
  switch (pattern.kind) {
    case "prefix": {
      if (withEnv) return matchesText(pattern, candidate)
      // Token by token: `Bash(git status:*)` approves argv ["git","status",…], never ["git status"].
      if (unit.argv.length < pattern.tokens.length) return false
      for (let i = 0; i < pattern.tokens.length; i++) if (unit.argv[i] !== pattern.tokens[i]) return false
      return true
    }
    case "wildcard":
      return pattern.regex.test(candidate)
    case "exact": {
      if (candidate === pattern.text) return true
      if (withEnv) return false
      // The command as written, or its words joined without quotes (`Bash(make \*)` is `make '*'`).
      if (unit.envFacts.length === 0 && texts.text === pattern.text) return true
      const plain = stringArgv(unit.argv)
      return plain !== undefined && plain.every((w) => !/\s/.test(w)) && plain.join(" ") === pattern.text
    }
  }
}

/** How many leading literal tokens a rule names (how far into a wrapper's argv it reaches). */
export const literalReach = (pattern: BashPattern): number => {
  switch (pattern.kind) {
    case "any":
      return 0
    case "prefix":
      return pattern.tokens.length
    case "wildcard":
      return pattern.literalTokens.length
    case "exact":
      return Number.POSITIVE_INFINITY
  }
}

// ---------------------------------------------------------------------------------------------
// Deny / ask: strict (basename, case-folded, options skipped, wrappers unwrapped)
// ---------------------------------------------------------------------------------------------

export type StrictMatch = "match" | "possible" | "none"

const isOption = (word: Word): boolean => typeof word === "string" && word.length > 1 && word.startsWith("-")

/**
 * Finds rule token `token` in `argv` from `from`, skipping options and one value after each
 * option. Returns the index after the match, "possible" when a dynamic word is in the way.
 */
const findToken = (argv: ReadonlyArray<Word>, from: number, token: string): number | "possible" | undefined => {
  if (token.startsWith("-") && !token.startsWith("--") && token.length > 1) {
    // A short-option cluster in a rule (`rm -rf`) matches the same letters in any grouping.
    const wanted = new Set(token.slice(1))
    let j = from
    let last = -1
    while (j < argv.length && isOption(argv[j]!)) {
      const word = argv[j] as string
      if (!word.startsWith("--")) { for (const ch of word.slice(1)) wanted.delete(ch) }
      else if (word === token) wanted.clear()
      last = j
      j++
      if (wanted.size === 0) return last + 1
    }
    return j < argv.length && typeof argv[j] !== "string" ? "possible" : undefined
  }
  let j = from
  let valueAllowed = false
  while (j < argv.length) {
    const word = argv[j]!
    if (typeof word !== "string") return "possible"
    if (word === token || (token.startsWith("--") && word.startsWith(token + "="))) return j + 1
    if (isOption(word)) {
      valueAllowed = !word.includes("=")
      j++
      continue
    }
    if (valueAllowed) {
      valueAllowed = false
      j++
      continue
    }
    return undefined
  }
  return undefined
}

const matchTokens = (
  argv: ReadonlyArray<Word>,
  tokens: ReadonlyArray<string>,
  requireEnd: boolean
): { result: StrictMatch; next: number } => {
  const first = argv[0]
  if (first === undefined) return { result: "none", next: 0 }
  if (typeof first !== "string") return { result: "possible", next: 0 }
  if (commandKey(first) !== commandKey(tokens[0]!)) return { result: "none", next: 0 }
  let pos = 1
  for (let k = 1; k < tokens.length; k++) {
    const found = findToken(argv, pos, tokens[k]!)
    if (found === undefined) return { result: "none", next: pos }
    if (found === "possible") return { result: "possible", next: pos }
    pos = found
  }
  if (requireEnd && pos < argv.length) {
    return argv.slice(pos).some((w) => typeof w !== "string")
      ? { result: "possible", next: pos }
      : { result: "none", next: pos }
  }
  return { result: "match", next: pos }
}

/** The better of two readings: as written, and with the program's options and subcommands resolved. */
const stronger = (
  a: StrictMatch,
  b: StrictMatch | undefined
): StrictMatch => (a === "match" || b === "match"
  ? "match"
  : a === "possible" || b === "possible"
  ? "possible"
  : "none")

const strictOnArgv = (
  pattern: BashPattern,
  argv: ReadonlyArray<Word>,
  words?: ReadonlyArray<WordFacts>
): StrictMatch => {
  switch (pattern.kind) {
    case "any":
      return "match"
    case "prefix":
    case "exact": {
      const exact = pattern.kind === "exact"
      const written = matchTokens(argv, pattern.tokens, exact).result
      return written === "match" ? written : stronger(written, optionAwareMatch(pattern.tokens, exact, argv, words))
    }
    case "wildcard": {
      if (pattern.literalTokens.length === 0) {
        // `Bash(*rm*)`: only the text form can tell.
        const key = typeof argv[0] === "string" ? commandKey(argv[0]) : ""
        const text = [key, ...argv.slice(1).map((w) => (typeof w === "string" ? w : DYNAMIC_MARK))].join(" ")
        return pattern.regex.test(text) ? "match" : argv.some((w) => typeof w !== "string") ? "possible" : "none"
      }
      const { result, next } = matchTokens(argv, pattern.literalTokens, false)
      if (result !== "match") return result
      if (pattern.rest === undefined) return next === argv.length ? "match" : "none"
      const rest = argv.slice(next)
      const restText = rest.map((w) => (typeof w === "string" ? w : DYNAMIC_MARK)).join(" ")
      if (pattern.rest.test(restText)) return "match"
      return rest.some((w) => typeof w !== "string") ? "possible" : "none"
    }
  }
}

/** Programs that run the rest of their arguments as a command; deny/ask also look past them. */
const COMMAND_RUNNERS = new Set([
  "strace",
  "ltrace",
  "chroot",
  "unshare",
  "nsenter",
  "runuser",
  "systemd-run",
  "taskset",
  "chrt",
  "numactl",
  "caffeinate",
  "firejail",
  "proxychains",
  "proxychains4",
  "torsocks",
  "pkexec",
  "dbus-launch",
  "catchsegv",
  "valgrind",
  "npx",
  "bunx",
  "pnpx",
  "ssh",
  "docker",
  "podman",
  "kubectl",
  "devbox",
  "direnv",
  "mise",
  "asdf",
  "nix-shell",
  "uv",
  "poetry",
  "pipenv",
  "script",
  "parallel",
  "dtach",
  "tmux",
  "screen"
])

/**
 * Strict matching of a deny/ask rule against one unit: "match", "possible" (a dynamic word could
 * make it match: ask), or "none".
 */
export const strictMatchesUnit = (pattern: BashPattern, unit: Unit): StrictMatch => strictMatch(pattern, unit)

const strictMatch = (pattern: BashPattern, unit: Unit): StrictMatch => {
  if (unit.argv.length === 0) return "none"
  let result = strictOnArgv(pattern, unit.argv, unit.words)
  if (result === "match") return result
  // The text forms catch rules written with quotes or odd spacing.
  const texts = unitTexts(unit)
  if (matchesNormalized(pattern, texts.text) || matchesNormalized(pattern, texts.rendered)) return "match"
  const argv = stringArgv(unit.argv) ?? unit.argv
  const key = typeof argv[0] === "string" ? commandKey(argv[0]) : ""
  if (COMMAND_RUNNERS.has(key)) {
    for (let i = 1; i < argv.length; i++) {
      const word = argv[i]!
      if (typeof word === "string" && word.startsWith("-")) continue
      const inner = strictOnArgv(pattern, argv.slice(i))
      if (inner === "match") return "match"
      if (inner === "possible") result = "possible"
    }
  }
  return result
}

const isUnit = (command: SimpleCommand): command is Unit =>
  "words" in command && "envFacts" in command && "role" in command

/**
 * Strict matching of a rule against a simple command from a CommandAnalysis (hook `if`
 * filters): the analyzer's units are matched as deny rules match them.
 */
export const strictMatchesCommand = (pattern: BashPattern, command: SimpleCommand): StrictMatch => {
  if (isUnit(command)) return strictMatchesUnit(pattern, command)
  if (command.argv.length === 0) return "none"
  const result = strictOnArgv(pattern, command.argv)
  if (
    result === "match" || matchesNormalized(pattern, collapseWhitespace(command.text)) ||
    matchesNormalized(pattern, collapseWhitespace(renderArgv(command.argv)))
  ) return "match"
  return result
}

/** The leading literal tokens of a rule (for the raw-text deny scan). */
export const ruleHeadTokens = (pattern: BashPattern): ReadonlyArray<string> => {
  switch (pattern.kind) {
    case "any":
      return []
    case "prefix":
      return pattern.tokens
    case "exact":
      return pattern.tokens
    case "wildcard":
      return pattern.literalTokens
  }
}

/**
 * The conservative deny scan over raw text, for when parsing aborted:
 * the rule's literal tokens appear, in order, among the quote-stripped tokens of the text.
 */
export const rawTextMayMatch = (pattern: BashPattern, rawTokens: ReadonlyArray<string>): boolean => {
  if (pattern.kind === "any") return true
  const head = ruleHeadTokens(pattern)
  if (head.length === 0) return pattern.kind === "wildcard" && pattern.regex.test(rawTokens.join(" "))
  const first = commandKey(head[0]!)
  for (let i = 0; i < rawTokens.length; i++) {
    if (commandKey(rawTokens[i]!) !== first) continue
    let k = 1
    for (let j = i + 1; j < rawTokens.length && k < head.length; j++) if (rawTokens[j] === head[k]) k++
    if (k >= head.length) return true
  }
  return false
}

/** Splits raw text into quote- and escape-stripped tokens, on blanks, controls and shell metacharacters. */
export const rawTokens = (text: string): ReadonlyArray<string> =>
  text
    .replace(/['"\\]/g, "")
    .split(/[\s\u0000-\u001f\u007f;&|()<>{}`$,=\u00a0\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]+/u)
    .filter((t) => t.length > 0)

export type CompiledRule = { readonly rule: PermissionRule; readonly pattern: BashPattern }

export const compileRules = (rules: ReadonlyArray<PermissionRule>): ReadonlyArray<CompiledRule> =>
  rules.filter((r) => r.toolName === "Bash").map((rule) => ({ rule, pattern: compileBashPattern(rule.content) }))
