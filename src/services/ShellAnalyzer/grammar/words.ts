/**
 * Words as bash reads them, for the subset of the grammar that docs/shell-grammar.md writes
 * down: unquoted text with backslash escapes, '…', "…" (with `\$ \` \" \\`), $'…', `$NAME`,
 * `${NAME}`, special parameters and `$( … )`. Anything else a word could hold (backticks,
 * `$(( ))`, `${x…}` with an operator, `$"…"`, brace expansion, tilde expansion inside an
 * assignment) leaves the grammar.
 */
import { checkHygiene } from "../hygiene.js"
import type { Word } from "../types.js"
import { decodeAnsiC } from "../words.js"
import { outside, type Cursor } from "./cursor.js"
import { quotedHeredocText } from "./heredocText.js"

/** Where a word stands, which decides what bash does with it. */
export type WordPlace = "command" | "argument" | "redirect" | "for"

export interface ReadWord {
  readonly value: Word
  /** The source text. */
  readonly raw: string
  /** Unquoted literal text only (a candidate reserved word or here-document delimiter). */
  readonly plain: boolean
  /** `NAME=value` in command position: an assignment, not a word. */
  readonly assignment?: { readonly name: string; readonly value: Word }
}

const METACHARACTERS = new Set([" ", "\t", "\n", "|", "&", ";", "(", ")", "<", ">"])

/** Ends a word (or the end of the text). */
export const isDelimiter = (ch: string | undefined): boolean => ch === undefined || METACHARACTERS.has(ch)

const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[@*#?$!\-0-9]/
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Reads words; `nested` reads the commands of a `$( … )` up to and including its `)`. */
export class WordReader {
  constructor(
    private readonly cursor: Cursor,
    private readonly nested: () => void,
    private readonly homeStable: boolean
  ) {}

  read(place: WordPlace): ReadWord {
    const c = this.cursor
    const start = c.pos
    let value = ""
    let dynamic = false
    let plain = true
    // Unquoted characters as they are, quoted ones as `_`, expansions as `$`.
    let shape = ""
    let assignment: { name: string; valueStart: number } | undefined

    const literal = (text: string, quoted: boolean) => {
      value += text
      shape += quoted ? "_".repeat(text.length) : text
    }
    const expansion = () => {
      dynamic = true
      plain = false
      shape += "$"
    }

    for (;;) {
      const ch = c.peek()
      if (isDelimiter(ch)) break
      if (place === "command" && assignment === undefined && ch === "=" && NAME.test(shape) && shape === value) {
        c.next()
        assignment = { name: value, valueStart: value.length + 1 }
        literal("=", false)
        continue
      }
      if (
        place === "command" && assignment === undefined && ch === "+" && c.peekSecond() === "=" && NAME.test(shape) &&
        shape === value
      ) {
        outside("an appending assignment")
      }
      if (
        place === "command" && assignment === undefined && ch === "[" && NAME.test(shape) && shape === value &&
        value.length > 0
      ) {
        outside("an array assignment")
      }
      switch (ch) {
        case "\\": {
          c.next()
          plain = false
          const escaped = c.rawNext()
          literal(escaped ?? "\\", true)
          break
        }
        case "'": {
          c.next()
          plain = false
          literal(this.singleQuoted(), true)
          break
        }
        case "\"": {
          c.next()
          plain = false
          this.doubleQuoted(
            (text) => literal(text, true),
            () => expansion(),
            () => {
              if (value === "" && shape === "" && this.homeStable) {
                literal("~", false)
                return true
              }
              return false
            }
          )
          break
        }
        case "$": {
          c.next()
          const home = value === "" && shape === "" && this.homeStable
          const kind = this.dollar(false, home)
          if (kind === "literal") literal("$", false)
          else if (kind === "home") literal("~", false)
          else if (kind === "ansiC") {
            plain = false
            literal(this.ansiC(), true)
          } else expansion()
          break
        }
        case "`":
          outside("backticks")
          break
        default:
          c.next()
          literal(ch!, false)
      }
    }

    const raw = c.text.slice(start, c.pos)
    if (raw.length === 0) outside("an empty word")
    // `~user`, `~+`, `~-` expand to other directories; only `~` and `~/…` are read as written.
    if (shape.startsWith("~") && shape.length > 1 && shape[1] !== "/" && assignment === undefined) {
      outside("a tilde expansion other than ~ and ~/")
    }
    checkBraces(shape)
    if (assignment !== undefined) {
      const valueShape = shape.slice(assignment.valueStart)
      if (valueShape.startsWith("~") || valueShape.includes(":~")) outside("a tilde in an assignment")
      const assigned = value.slice(assignment.valueStart)
      return {
        value: dynamic ? { dynamic: true, text: raw } : value,
        raw,
        plain: false,
        assignment: { name: assignment.name, value: dynamic ? { dynamic: true, text: raw } : assigned }
      }
    }
    // bash expands `~` after `=` and `:` in any word that looks like an assignment.
    if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(shape) && /[=:]~/.test(shape)) outside("a tilde after '=' in an argument")
    // `<(` or `>(` right after text joins a process substitution to the word.
    const after = c.peek()
    if ((after === "<" || after === ">") && c.peekSecond() === "(") outside("a process substitution joined to a word")
    if ((after === "<" || after === ">") && /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(shape)) {
      outside("a redirection to a named file descriptor")
    }
    return { value: dynamic ? { dynamic: true, text: raw } : value, raw, plain }
  }

  private singleQuoted(): string {
    const c = this.cursor
    let text = ""
    for (;;) {
      const ch = c.rawNext()
      if (ch === undefined) outside("an unterminated quote")
      if (ch === "'") return text
      text += ch
    }
  }

  /**
   * The inside of "…" (the opening quote taken). `home` is asked whether a leading `$HOME`
   * stands for the home directory.
   */
  doubleQuoted(literal: (text: string) => void, expansion: () => void, home: () => boolean): void {
    const c = this.cursor
    let first = true
    for (;;) {
      const ch = c.peek()
      if (ch === undefined) outside("an unterminated string")
      if (ch === "\"") {
        c.next()
        return
      }
      if (ch === "\\") {
        c.next()
        const escaped = c.rawNext()
        if (escaped === undefined) outside("an unterminated string")
        literal(escaped === "$" || escaped === "`" || escaped === "\"" || escaped === "\\" ? escaped! : "\\" + escaped)
      } else if (ch === "$") {
        const printed = quotedHeredocText(c.text, c.pos)
        if (printed !== undefined) {
          c.pos = printed.end
          literal(printed.value)
          first = false
          continue
        }
        c.next()
        const kind = this.dollar(true, first)
        if (kind === "literal") literal("$")
        else if (kind === "home") {
          if (!home()) expansion()
        } else expansion()
      } else if (ch === "`") {
        outside("backticks")
      } else {
        c.next()
        literal(ch!)
      }
      first = false
    }
  }

  /**
   * After a `$`: what it starts. `home` says whether a plain `$HOME` here may stand for the home
   * directory (it is the first thing in the word).
   */
  private dollar(inQuotes: boolean, home: boolean): "literal" | "home" | "ansiC" | "expansion" {
    const c = this.cursor
    const ch = c.peek()
    if (ch === "(") {
      if (c.peekSecond() === "(") {
        this.literalArithmetic()
        return "expansion"
      }
      c.next()
      this.nested()
      return "expansion"
    }
    if (ch === "{") {
      c.next()
      let name = ""
      const first = c.next()
      if (first !== undefined && NAME_START.test(first)) {
        name = first
        while (NAME_CHAR.test(c.peek() ?? "")) name += c.next()
      } else if (first !== undefined && SPECIAL_PARAMETER.test(first)) {
        name = first
      }
      if (name === "" || c.next() !== "}") outside("a parameter expansion with an operator")
      return "expansion"
    }
    if (ch === "'") {
      if (inQuotes) return "literal"
      c.next()
      return "ansiC"
    }
    if (ch === "\"") {
      if (inQuotes) return "literal"
      return outside("a $\"…\" string")
    }
    if (ch === "[") return outside("arithmetic expansion")
    if (ch !== undefined && NAME_START.test(ch)) {
      let name = ""
      while (NAME_CHAR.test(c.peek() ?? "")) name += c.next()
      return home && name === "HOME" ? "home" : "expansion"
    }
    if (ch !== undefined && SPECIAL_PARAMETER.test(ch)) {
      c.next()
      return "expansion"
    }
    return "literal"
  }

  /**
   * `$(( … ))` (after the `$`) whose operands are all number literals: evaluating it runs nothing.
   * Anything else in it (a name, a `$`, a quote) leaves the grammar.
   */
  private literalArithmetic(): void {
    const c = this.cursor
    const rest = c.text.slice(c.pos)
    const match = /^\(\(([0-9 \t+\-*/%()]*)\)\)/.exec(rest)
    if (match === null || /\(\(|\)\)/.test(match[1]!)) outside("arithmetic expansion")
    c.pos += match![0].length
  }

  /** The body of $'…' (after the quote), decoded as bash does. */
  private ansiC(): string {
    const c = this.cursor
    let body = ""
    for (;;) {
      const ch = c.rawNext()
      if (ch === undefined) outside("an unterminated $'…' string")
      if (ch === "'") break
      if (ch === "\\") {
        const escaped = c.rawNext()
        if (escaped === undefined || escaped === "\n") outside("a line break escaped inside $'…'")
        body += "\\" + escaped
        continue
      }
      body += ch
    }
    const decoded = decodeAnsiC(body)
    if (decoded === undefined) outside("an undecodable $'…' string")
    if (checkHygiene(decoded!.replace(/[\t\n]/g, " ")) !== undefined) {
      outside("a $'…' string that decodes to control characters")
    }
    return decoded!
  }
}

/** Brace expansion: an unquoted `{…}` holding an unquoted `,` or `..` (bash would expand it). */
const checkBraces = (shape: string): void => {
  for (let open = shape.indexOf("{"); open !== -1; open = shape.indexOf("{", open + 1)) {
    const close = shape.indexOf("}", open + 1)
    if (close === -1) return
    const inside = shape.slice(open + 1, close)
    if (inside.includes(",") || inside.includes("..") || inside.includes("{")) outside("brace expansion")
  }
}
