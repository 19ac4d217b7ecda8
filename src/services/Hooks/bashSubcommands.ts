/**
 * The command texts a Bash `if` pattern is checked against: every
 * subcommand, also inside `$( )`, backticks and `<( )`, with leading `VAR=` assignments and
 * transparent wrappers stripped. `undefined` means "cannot tell", and the hook then runs (the
 * fail-open of Claude Code's `if`).
 *
 * The ShellAnalyzer service is used when its parser works; otherwise (the parser cannot load, or
 * the analysis takes too long) a small quote-aware splitter below. Either way the whole command
 * text is also a candidate, so a splitting mistake can only make a hook run more often, never less.
 */
import { Effect } from "effect"
import {
  compileBashPattern,
  strictMatchesCommand,
  type ShellAnalyzerService,
  type CommandAnalysis,
  type SimpleCommand
} from "../ShellAnalyzer.js"

export const MAX_COMMAND_LENGTH = 10_000

/** The analyzer's view, or undefined when its parser cannot be used (then the splitter decides). */
const runAnalyzer = (shell: ShellAnalyzerService, command: string): Effect.Effect<CommandAnalysis | undefined> =>
  Effect.suspend(() => shell.unavailable).pipe(
    Effect.flatMap((unavailable) => (unavailable === undefined ? shell.analyze(command) : Effect.succeed(undefined))),
    Effect.timeoutOption("2 seconds"),
    Effect.map((o) => (o._tag === "Some" ? o.value : undefined)),
    Effect.catchAllCause(() => Effect.succeed(undefined))
  )

const staticArgv = (c: SimpleCommand): string | undefined =>
  c.argv.every((w) => typeof w === "string") ? (c.argv as ReadonlyArray<string>).join(" ") : undefined

/**
 * Does a Bash `if` specifier match the command the way a deny rule would (options between a
 * program and its subcommand skipped, equivalent option spellings alike, wrappers and nested
 * shells looked into, a possible match counting)? undefined when the analyzer cannot tell.
 */
export const bashRuleMatches = (
  shell: ShellAnalyzerService,
  specifier: string,
  command: string
): Effect.Effect<boolean | undefined> =>
  Effect.gen(function*() {
    if (command.length > MAX_COMMAND_LENGTH || command.includes("\0")) return undefined
    const analysis = yield* runAnalyzer(shell, command)
    if (analysis === undefined || analysis.kind === "tooComplex") return undefined
    const pattern = compileBashPattern(specifier)
    return analysis.commands.some((c) => strictMatchesCommand(pattern, c) !== "none")
  })

/** Candidate texts for a Bash `if` pattern, or undefined when the command cannot be analysed. */
export const bashCandidates = (
  shell: ShellAnalyzerService,
  command: string
): Effect.Effect<ReadonlyArray<string> | undefined> =>
  Effect.gen(function*() {
    if (command.length > MAX_COMMAND_LENGTH || command.includes("\0")) return undefined
    const analysis = yield* runAnalyzer(shell, command)
    if (analysis !== undefined) {
      if (analysis.kind === "tooComplex") return undefined
      const out = new Set<string>([command.trim()])
      for (const c of analysis.commands) {
        const argv = staticArgv(c)
        if (argv !== undefined) { for (const t of stripWrappers(argv)) out.add(t) }
        for (const t of stripWrappers(c.text)) out.add(t)
      }
      return Array.from(out)
    }
    const segments = splitCommand(command)
    if (segments === undefined) return undefined
    const out = new Set<string>([command.trim()])
    for (const segment of segments) for (const t of stripWrappers(segment)) out.add(t)
    return Array.from(out)
  })

// ---------------------------------------------------------------------------------------------
// Fallback splitter

class Unparseable extends Error {}

interface Scan {
  readonly end: number
  readonly segments: ReadonlyArray<string>
}

/**
 * Splits at `;`, `&`, `|`, `&&`, `||`, `|&` and newlines outside quotes, and collects what is
 * inside `$( )`, backticks, `<( )`, `>( )` and `( )` as further segments. Here-documents,
 * unbalanced quotes or parentheses make the command unparseable.
 */
export const splitCommand = (command: string): ReadonlyArray<string> | undefined => {
  try {
    const result = scan(command, 0, undefined)
    if (result.end !== command.length) return undefined
    return result.segments.map((s) => s.trim()).filter((s) => s !== "")
  } catch (e) {
    if (e instanceof Unparseable) return undefined
    throw e
  }
}

const scan = (s: string, start: number, closer: ")" | "`" | undefined): Scan => {
  const segments: Array<string> = []
  let current = ""
  let i = start
  let single = false
  let double = false
  const flush = () => {
    segments.push(current)
    current = ""
  }
  const atWordStart = () => current === "" || /\s$/.test(current)
  while (i < s.length) {
    const ch = s[i]!
    if (single) {
      current += ch
      if (ch === "'") single = false
      i++
      continue
    }
    if (ch === "\\") {
      current += s.slice(i, i + 2)
      i += 2
      continue
    }
    if (ch === "`" && closer === "`" && !double) return finish(segments, current, i + 1)
    if (ch === "`") {
      const inner = scan(s, i + 1, "`")
      segments.push(...inner.segments)
      current += s.slice(i, inner.end)
      i = inner.end
      continue
    }
    if (ch === "$" && s[i + 1] === "(") {
      const inner = scan(s, i + 2, ")")
      segments.push(...inner.segments)
      current += s.slice(i, inner.end)
      i = inner.end
      continue
    }
    if (double) {
      current += ch
      if (ch === "\"") double = false
      i++
      continue
    }
    if (ch === "'") single = true
    if (ch === "\"") double = true
    if (ch === "'" || ch === "\"") {
      current += ch
      i++
      continue
    }
    if ((ch === "<" || ch === ">") && s[i + 1] === "(") {
      const inner = scan(s, i + 2, ")")
      segments.push(...inner.segments)
      current += s.slice(i, inner.end)
      i = inner.end
      continue
    }
    if (ch === "<" && s[i + 1] === "<" && s[i + 2] !== "<") throw new Unparseable() // here-document
    if (ch === "#" && atWordStart()) {
      while (i < s.length && s[i] !== "\n") i++
      continue
    }
    if (ch === "(") {
      // a subshell or group: its commands are segments of their own
      const inner = scan(s, i + 1, ")")
      flush()
      segments.push(...inner.segments)
      i = inner.end
      continue
    }
    if (ch === ")") {
      if (closer === ")") return finish(segments, current, i + 1)
      throw new Unparseable()
    }
    if (ch === "&" && (s[i - 1] === ">" || s[i - 1] === "<" || s[i + 1] === ">")) {
      current += ch // `2>&1`, `&>file`: a redirection, not a separator
      i++
      continue
    }
    if (ch === ";" || ch === "&" || ch === "|" || ch === "\n") {
      flush()
      i++
      continue
    }
    current += ch
    i++
  }
  if (single || double || closer !== undefined) throw new Unparseable()
  return finish(segments, current, i)
}

const finish = (segments: Array<string>, current: string, end: number): Scan => {
  segments.push(current)
  return { end, segments }
}

// ---------------------------------------------------------------------------------------------
// Leading assignments, keywords and transparent wrappers

interface Token {
  readonly text: string
  readonly start: number
}

/** Words of one simple command with their offsets; quotes stay in the text. */
const words = (segment: string): ReadonlyArray<Token> => {
  const out: Array<Token> = []
  let i = 0
  while (i < segment.length) {
    while (i < segment.length && /\s/.test(segment[i]!)) i++
    if (i >= segment.length) break
    const start = i
    let quote: string | undefined
    while (i < segment.length) {
      const ch = segment[i]!
      if (quote !== undefined) {
        if (ch === "\\" && quote === "\"") i++
        else if (ch === quote) quote = undefined
      } else if (ch === "\\") i++
      else if (ch === "'" || ch === "\"") quote = ch
      else if (/\s/.test(ch)) break
      i++
    }
    out.push({ text: segment.slice(start, i), start })
  }
  return out
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/
const KEYWORDS = new Set([
  "{",
  "}",
  "!",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "time",
  "case",
  "esac"
])
const PLAIN_WRAPPERS = new Set(["nohup", "builtin", "noglob", "time"])

/** The number of leading words a transparent wrapper takes, or 0 when `w[i]` is not one. */
const wrapperLength = (w: ReadonlyArray<Token>, i: number): number => {
  const name = w[i]!.text
  const next = w[i + 1]?.text
  if (PLAIN_WRAPPERS.has(name)) return 1
  if (name === "command") return next === "-v" || next === "-V" ? 0 : next === "-p" ? 2 : 1
  if (name === "xargs") return next === undefined || next.startsWith("-") ? 0 : 1
  if (name === "nice") return next === "-n" ? 3 : next !== undefined && /^-\d+$/.test(next) ? 2 : 1
  if (name === "timeout") {
    let j = i + 1
    while (w[j] !== undefined && w[j]!.text.startsWith("-")) {
      j += /^(-s|-k|--signal|--kill-after)$/.test(w[j]!.text)
        ? 2
        : 1
    }
    return w[j] === undefined ? 0 : j + 1 - i
  }
  if (name === "stdbuf") {
    let j = i + 1
    while (w[j] !== undefined && w[j]!.text.startsWith("-")) j += /^-[ioe]$/.test(w[j]!.text) ? 2 : 1
    return j - i
  }
  if (name === "env") {
    let j = i + 1
    while (w[j] !== undefined && (ASSIGNMENT.test(w[j]!.text) || /^-[iu0]$|^--ignore-environment$/.test(w[j]!.text))) {
      j += w[j]!.text === "-u" ? 2 : 1
    }
    return j - i
  }
  return 0
}

/** The segment from its first real word, then again after each transparent wrapper. */
export const stripWrappers = (segment: string): ReadonlyArray<string> => {
  const w = words(segment.trim())
  const text = segment.trim()
  const out: Array<string> = []
  let i = 0
  const skipPrefix = () => {
    while (i < w.length && (ASSIGNMENT.test(w[i]!.text) || KEYWORDS.has(w[i]!.text))) i++
  }
  skipPrefix()
  for (let guard = 0; i < w.length && guard < 16; guard++) {
    out.push(text.slice(w[i]!.start).trim())
    const n = wrapperLength(w, i)
    if (n === 0) break
    i += n
    skipPrefix()
  }
  return out.filter((t) => t !== "")
}
