/**
 * ripgrep patterns (Rust regex syntax) as JS regular expressions, for the JS fallback. The common
 * differences are bridged: `(?P<name>…)`, leading inline flags `(?i)`/`(?s)`/`(?m)`, POSIX
 * classes such as `[[:digit:]]`. Like ripgrep, a pattern that can match a line break is refused
 * unless multiline is on, and `^`/`$` match at line boundaries.
 */
const NEWLINE_NOT_ALLOWED = `the literal '"\\n"' is not allowed in a regex

Consider enabling multiline mode with the --multiline flag (or -U for short).
When multiline mode is enabled, new line characters can be matched.`

const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f"
}

export interface RegexOptions {
  readonly caseInsensitive: boolean
  readonly multiline: boolean
}

/** A global RegExp for the pattern; throws an Error with ripgrep-like text when it cannot be used. */
export const compileSearchRegex = (pattern: string, options: RegexOptions): RegExp => {
  if (!options.multiline && mentionsNewline(pattern)) throw new Error(NEWLINE_NOT_ALLOWED)
  let source = pattern.replace(/\(\?P</g, "(?<").replace(
    /\[:([a-z]+):\]/g,
    (whole, name: string) => POSIX_CLASSES[name] ?? whole
  )
  const flags = new Set(["g"])
  if (options.caseInsensitive) flags.add("i")
  if (options.multiline) {
    flags.add("m")
    flags.add("s")
  }
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(source)
  if (inline !== null) {
    for (const flag of inline[1]!) {
      if (flag === "i" || flag === "m" || flag === "s") flags.add(flag)
      else throw new Error(`regex parse error: the inline flag (?${flag}) is not supported without ripgrep`)
    }
    source = source.slice(inline[0].length)
  }
  const base = [...flags].join("")
  try {
    return new RegExp(source, `${base}u`)
  } catch {
    try {
      return new RegExp(source, base)
    } catch (error) {
      throw new Error(`regex parse error: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

/** A literal line break, or a `\n` escape that is not itself an escaped backslash. */
const mentionsNewline = (pattern: string): boolean => {
  if (pattern.includes("\n")) return true
  for (let i = 0; i < pattern.length - 1; i++) {
    if (pattern[i] !== "\\") continue
    if (pattern[i + 1] === "n") return true
    i++
  }
  return false
}
