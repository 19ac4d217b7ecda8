/**
 * GNU sed 4.9, read as sed reads it: the options (options/tables/gnu.ts), the scripts of `-e`
 * pieces joined with newlines or the first operand, and each command of the script with its
 * argument syntax (compile.c): addresses, `{}` blocks, labels to `;` or a blank, `a`/`i`/`c` text
 * to the end of the line where a backslash escapes the next character (so `\\` at the end does not
 * continue the text, `\` does), `r`/`R`/`w`/`W` file names and `e` commands to the end of the
 * line, `s` with bracket expressions and its flags (`e`, `w FILE`), `y`. The scanner finds the
 * commands that run programs or touch files; anything it does not
 * understand is unknown, which callers treat as unsafe.
 */
import { parseArgs } from "./options/parse.js"
import * as T from "./options/tables/gnu.js"
import type { WordFacts } from "./words.js"

export interface SedScriptFacts {
  /** `e` command or `s///e` flag. */
  readonly exec: boolean
  /** `w`/`W` command or `s///w` flag. */
  readonly write: boolean
  /** `r`/`R` command. */
  readonly read: boolean
  readonly unknown: boolean
}

/** Commands without an argument. */
const SIMPLE = new Set(["=", "d", "D", "F", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z"])
/** Commands with an optional number. */
const NUMBERED = new Set(["l", "q", "Q"])
const BLANK = /[ \t\v\f\r]/

class Scanner {
  i = 0
  /** Open `{` blocks. */
  depth = 0
  exec = false
  write = false
  read = false
  constructor(
    readonly s: string,
    /** Whether `[…]` in a regex hides the delimiter (GNU does; scanning both ways catches any mismatch). */
    readonly brackets: boolean
  ) {}

  private at(): string | undefined {
    return this.s[this.i]
  }
  private digit(): boolean {
    const c = this.at()
    return c !== undefined && c >= "0" && c <= "9"
  }
  private blank(): boolean {
    const c = this.at()
    return c !== undefined && BLANK.test(c)
  }
  private blanks(): void {
    while (this.blank()) this.i++
  }
  private toEndOfLine(): void {
    while (this.at() !== undefined && this.at() !== "\n") this.i++
  }
  /** After a command: blanks, then `;`, `}`, `#`, a newline or the end. */
  private endOfCommand(): boolean {
    this.blanks()
    const c = this.at()
    if (c === undefined || c === "\n" || c === ";") {
      if (c !== undefined) this.i++
      return true
    }
    return c === "}" || c === "#"
  }
  /** A bracket expression starting at `[` (inside a regex); false when it does not close on this line. */
  private bracket(): boolean {
    this.i++
    if (this.at() === "^") this.i++
    if (this.at() === "]") this.i++
    while (this.at() !== undefined && this.at() !== "\n") {
      if (
        this.at() === "[" && (this.s[this.i + 1] === ":" || this.s[this.i + 1] === "=" || this.s[this.i + 1] === ".")
      ) {
        const close = this.s.indexOf(`${this.s[this.i + 1]}]`, this.i + 2)
        if (close === -1 || this.s.slice(this.i, close).includes("\n")) return false
        this.i = close + 2
        continue
      }
      if (this.at() === "]") {
        this.i++
        return true
      }
      this.i++
    }
    return false
  }
  /** Reads up to the unescaped delimiter (the delimiter is already consumed); false if it is missing. */
  private delimited(delim: string, regex: boolean): boolean {
    while (this.at() !== undefined) {
      const c = this.at()
      if (c === "\\") {
        if (this.s[this.i + 1] === undefined) return false
        this.i += 2
        continue
      }
      if (c === delim) {
        this.i++
        return true
      }
      if (c === "\n" && regex) return false
      if (c === "[" && regex && this.brackets) {
        if (!this.bracket()) return false
        continue
      }
      this.i++
    }
    return false
  }
  private address(): boolean {
    const c = this.at()
    if (c === undefined) return true
    if (/[0-9]/.test(c)) {
      while (this.digit()) this.i++
      if (this.at() === "~") {
        this.i++
        while (this.digit()) this.i++
      }
      return true
    }
    if (c === "$") {
      this.i++
      return true
    }
    if (c === "/" || c === "\\") {
      let delim = "/"
      if (c === "\\") {
        delim = this.s[this.i + 1] ?? ""
        if (delim === "" || delim === "\n" || delim === "\\") return false
        this.i += 2
      } else this.i++
      if (!this.delimited(delim, true)) return false
      while (this.at() === "I" || this.at() === "M") this.i++
      return true
    }
    return true
  }
  /** `a`, `i`, `c`: the text, as read_text reads it. */
  private text(): void {
    this.blanks()
    if (this.at() === "\\") {
      this.i++
      // `a\` then a newline: the text starts on the next line; `a\text`: the first character is taken as is.
      if (this.at() !== undefined) this.i++
    }
    while (this.at() !== undefined && this.at() !== "\n") {
      if (this.at() === "\\") {
        this.i += 2
        continue
      }
      this.i++
    }
  }
  private label(): string {
    this.blanks()
    const start = this.i
    while (this.at() !== undefined && this.at() !== "\n" && this.at() !== ";" && !this.blank()) this.i++
    return this.s.slice(start, this.i)
  }

  private substitute(): boolean {
    const delim = this.at()
    if (delim === undefined || delim === "\n" || delim === "\\") return false
    this.i++
    if (!this.delimited(delim, true) || !this.delimited(delim, false)) return false
    for (let flag = this.at(); flag !== undefined; flag = this.at()) {
      if (/[gpiImM0-9]/.test(flag)) {
        this.i++
        continue
      }
      if (flag === "e") {
        this.exec = true
        this.i++
        continue
      }
      if (flag === "w") {
        this.write = true
        this.toEndOfLine()
        return true
      }
      break
    }
    return this.endOfCommand()
  }

  /** Scans the whole script; false when some part is not understood. */
  scan(): boolean {
    while (this.i < this.s.length) {
      const c0 = this.at()!
      if (c0 === ";" || c0 === "\n" || BLANK.test(c0)) {
        this.i++
        continue
      }
      if (c0 === "#") {
        this.toEndOfLine()
        continue
      }
      if (c0 === "}") {
        this.i++
        if (--this.depth < 0 || !this.endOfCommand()) return false
        continue
      }
      const addressStart = this.i
      if (!this.address()) return false
      let addressed = this.i > addressStart
      this.blanks()
      if (addressed && this.at() === ",") {
        this.i++
        this.blanks()
        if (this.at() === "+" || this.at() === "~") {
          this.i++
          if (!this.digit()) return false
          while (this.digit()) this.i++
        } else {
          const second = this.i
          if (!this.address() || this.i === second) return false
        }
        this.blanks()
      }
      if (this.at() === "!") {
        this.i++
        this.blanks()
        addressed = true
      }
      const cmd = this.at()
      if (cmd === undefined) return false
      this.i++
      if (cmd === "{") {
        this.depth++
        continue
      }
      if (SIMPLE.has(cmd)) {
        if (!this.endOfCommand()) return false
        continue
      }
      if (NUMBERED.has(cmd)) {
        this.blanks()
        while (this.digit()) this.i++
        if (!this.endOfCommand()) return false
        continue
      }
      switch (cmd) {
        case "s":
          if (!this.substitute()) return false
          continue
        case "y": {
          const delim = this.at()
          if (delim === undefined || delim === "\n" || delim === "\\") return false
          this.i++
          if (!this.delimited(delim, false) || !this.delimited(delim, false) || !this.endOfCommand()) return false
          continue
        }
        case "a":
        case "i":
        case "c":
          this.text()
          continue
        case ":":
          if (addressed || this.label().length === 0 || !this.endOfCommand()) return false
          continue
        case "b":
        case "t":
        case "T":
        case "v":
          this.label()
          if (!this.endOfCommand()) return false
          continue
        case "e":
          this.exec = true
          this.toEndOfLine()
          continue
        case "w":
        case "W":
          this.write = true
          this.toEndOfLine()
          continue
        case "r":
        case "R":
          this.read = true
          this.toEndOfLine()
          continue
        default:
          return false
      }
    }
    return this.depth === 0
  }
}

const scanOnce = (script: string, brackets: boolean): SedScriptFacts => {
  const scanner = new Scanner(script, brackets)
  const understood = scanner.scan()
  return { exec: scanner.exec, write: scanner.write, read: scanner.read, unknown: !understood }
}

/** What a sed script does (both readings of bracket expressions must agree that it is harmless). */
export const scanSedScript = (script: string): SedScriptFacts => {
  const gnu = scanOnce(script, true)
  if (!script.includes("[")) return gnu
  const plain = scanOnce(script, false)
  return {
    exec: gnu.exec || plain.exec,
    write: gnu.write || plain.write,
    read: gnu.read || plain.read,
    unknown: gnu.unknown || plain.unknown
  }
}

export interface SedInvocation {
  /** The script sed runs: `-e` pieces joined with newlines, or the first operand. */
  readonly script: string
  /** The script was given with `-e`/`--expression`. */
  readonly expressions: boolean
  /** `-n`/`--quiet`/`--silent`: sed prints only what the script asks for. */
  readonly quiet: boolean
  /** Files scripts come from (`-f`). */
  readonly scriptFiles: ReadonlyArray<WordFacts>
  /** Operands that are input files (edited in place with `-i`). */
  readonly files: ReadonlyArray<WordFacts>
  readonly inPlace: boolean
  readonly sandbox: boolean
  /** Why the arguments cannot be read exactly (unknown option, no script, a dynamic word). */
  readonly problem?: string
}

/** Splits a sed command's words (words[0] is sed) into its script, files and modes. */
export const parseSedArgs = (words: ReadonlyArray<WordFacts>): SedInvocation => {
  const parsed = parseArgs(T.sed, words)
  const pieces: Array<string> = []
  const scriptFiles: Array<WordFacts> = []
  let problem = parsed.problem
  let inPlace = false
  let sandbox = false
  for (const use of parsed.uses) {
    if (use.spec.id === "--expression") {
      if (use.value === undefined || typeof use.value.value !== "string") {
        problem ??= "a sed script only known at run time"
      } else pieces.push(use.value.value)
    } else if (use.spec.id === "--file" && use.value !== undefined) scriptFiles.push(use.value)
    else if (use.spec.id === "--in-place") inPlace = true
    else if (use.spec.id === "--sandbox") sandbox = true
  }
  let files = parsed.operands
  if (pieces.length === 0 && scriptFiles.length === 0) {
    const first = files[0]
    if (first === undefined) problem ??= "sed without a script"
    else if (typeof first.value !== "string") problem ??= "a sed script only known at run time"
    else pieces.push(first.value)
    files = files.slice(1)
  }
  if (parsed.dynamic) problem ??= "sed with arguments only known at run time"
  return {
    script: pieces.join("\n"),
    expressions: parsed.uses.some((use) => use.spec.id === "--expression"),
    quiet: parsed.uses.some((use) => use.spec.id === "--quiet"),
    scriptFiles,
    files,
    inPlace,
    sandbox,
    ...(problem === undefined ? {} : { problem })
  }
}
