/**
 * The grammar reader: reads a command the way bash reads it, for the constructs written down in
 * docs/shell-grammar.md, and says "outside the grammar" for anything else. It is the second,
 * independent reading of every command: the analyzer approves nothing this reader does not read
 * the same way as the tree-sitter walk.
 */
import { isDangerousVariable } from "../guards.js"
import { MAX_COMMAND_LENGTH } from "../parser.js"
import type { Word } from "../types.js"
import { Cursor, outside } from "./cursor.js"
import { OutsideGrammar, type GrammarReading, type ReadCommand, type ReadRedirect } from "./reading.js"
import { isDelimiter, WordReader } from "./words.js"

interface Stop {
  /** Reserved words that end the list. */
  readonly words: ReadonlySet<string>
  /** A `)` ends the list. */
  readonly paren: boolean
}

const stop = (words: ReadonlyArray<string>, paren = false): Stop => ({ words: new Set(words), paren })
const TOP = stop([])
const PAREN = stop([], true)
const BRACE = stop(["}"])
const THEN = stop(["then"])
const BRANCH = stop(["elif", "else", "fi"])
const FI = stop(["fi"])
const DO = stop(["do"])
const DONE = stop(["done"])

/** Reserved words the grammar has no place for, wherever they stand as a command. */
const UNSUPPORTED_KEYWORDS = new Set([
  "case",
  "esac",
  "select",
  "function",
  "coproc",
  "[[",
  "]]",
  "then",
  "elif",
  "else",
  "fi",
  "do",
  "done",
  "}",
  "!"
])

/** Nesting limit for groups, subshells and substitutions. */
const MAX_DEPTH = 16

interface PendingHeredoc {
  readonly delimiter: string
  readonly stripTabs: boolean
  readonly expands: boolean
}

const HEREDOC_DELIMITER = /^[A-Za-z0-9_.-]+$/
/** Names toolgate's own shell plumbing uses. */
const RUNTIME_NAME = /^(?:__toolgate|TOOLGATE_)/i

class Reader {
  readonly cursor: Cursor
  readonly words: WordReader
  readonly commands: Array<ReadCommand> = []
  private pending: Array<PendingHeredoc> = []
  private depth = 0

  constructor(text: string, homeStable: boolean) {
    this.cursor = new Cursor(text)
    this.words = new WordReader(this.cursor, () => this.nestedList(), homeStable)
  }

  program(): void {
    this.list(TOP)
    if (!this.cursor.atEnd()) outside(`unexpected '${this.cursor.peek()}'`)
    if (this.pending.length > 0) outside("a here-document without its body")
  }

  /** Blanks and a comment; with `newlines`, line breaks too (each one reads pending here-document bodies). */
  private gap(newlines: boolean): void {
    const c = this.cursor
    for (;;) {
      const ch = c.peek()
      if (ch === " " || ch === "\t") c.next()
      else if (ch === "#") {
        while (c.text[c.pos] !== undefined && c.text[c.pos] !== "\n") c.pos++
      } else if (ch === "\n" && newlines) this.newline()
      else return
    }
  }

  private newline(): void {
    this.cursor.next()
    this.readHeredocBodies()
  }

  /** The next word when it is unquoted literal text followed by a delimiter (a reserved word candidate). */
  private peekPlainWord(): string | undefined {
    const c = this.cursor
    const saved = c.pos
    let word = ""
    try {
      for (;;) {
        const ch = c.peek()
        if (isDelimiter(ch)) return word === "" ? undefined : word
        if (ch === "'" || ch === "\"" || ch === "\\" || ch === "$" || ch === "`") return undefined
        word += ch
        c.next()
      }
    } finally {
      c.pos = saved
    }
  }

  private takeWord(expected: string): void {
    this.gap(true)
    if (this.peekPlainWord() !== expected) outside(`'${expected}' expected`)
    for (let i = 0; i < expected.length; i++) this.cursor.next()
  }

  private atStop(s: Stop): boolean {
    const ch = this.cursor.peek()
    if (ch === undefined) return true
    if (ch === ")") return s.paren || outside("an unmatched ')'")
    const word = this.peekPlainWord()
    return word !== undefined && s.words.has(word)
  }

  private list(s: Stop): void {
    let count = 0
    for (;;) {
      this.gap(true)
      if (this.atStop(s)) break
      this.andOr()
      count++
      this.gap(false)
      const c = this.cursor
      const ch = c.peek()
      if (ch === ";") {
        const second = c.peekSecond()
        if (second === ";" || second === "&") outside("case syntax")
        c.next()
        continue
      }
      if (ch === "&") {
        c.next()
        continue
      }
      if (ch === "\n") continue
      if (this.atStop(s)) break
      outside(`unexpected '${ch}'`)
    }
    if (count === 0) outside("an empty command list")
  }

  private andOr(): void {
    this.pipeline()
    for (;;) {
      this.gap(false)
      if (this.cursor.eat("&&") || this.cursor.eat("||")) {
        this.gap(true)
        this.pipeline()
        continue
      }
      return
    }
  }

  private pipeline(): void {
    const c = this.cursor
    this.gap(false)
    if (this.peekPlainWord() === "!") {
      c.next()
      this.gap(false)
    }
    this.command()
    for (;;) {
      this.gap(false)
      if (c.peek() === "|" && c.peekSecond() !== "|") {
        c.next()
        if (c.peek() === "&") c.next()
        this.gap(true)
        this.command()
        continue
      }
      return
    }
  }

  private command(): void {
    const c = this.cursor
    this.gap(false)
    if (c.peek() === "(") {
      if (c.peekSecond() === "(") outside("an arithmetic command")
      c.next()
      this.nestedList()
      this.compoundRedirects()
      return
    }
    const word = this.peekPlainWord()
    switch (word) {
      case "{":
        c.next()
        this.enter()
        this.list(BRACE)
        this.takeWord("}")
        this.leave()
        return this.compoundRedirects()
      case "if":
        this.skipWord(word)
        this.enter()
        this.list(THEN)
        this.takeWord("then")
        this.list(BRANCH)
        for (;;) {
          const next = this.peekPlainWord()
          if (next === "elif") {
            this.skipWord(next)
            this.list(THEN)
            this.takeWord("then")
            this.list(BRANCH)
          } else if (next === "else") {
            this.skipWord(next)
            this.list(FI)
            this.takeWord("fi")
            break
          } else {
            this.takeWord("fi")
            break
          }
        }
        this.leave()
        return this.compoundRedirects()
      case "while":
      case "until":
        this.skipWord(word)
        this.enter()
        this.list(DO)
        this.takeWord("do")
        this.list(DONE)
        this.takeWord("done")
        this.leave()
        return this.compoundRedirects()
      case "for":
        return this.forLoop()
    }
    if (word !== undefined && UNSUPPORTED_KEYWORDS.has(word)) outside(`the shell keyword '${word}'`)
    if (word === "time") this.checkTime()
    this.simple()
  }

  /**
   * `time` is a keyword: its options are read from the raw text (`-p`, `--`), so `time -\p` runs a
   * program named `-p`. It is read as a command word here (the walk checks the command after it);
   * only plain `-p` and `--` may follow it as options.
   */
  private checkTime(): void {
    const c = this.cursor
    const saved = c.pos
    try {
      this.skipWord("time")
      for (;;) {
        this.gap(false)
        const next = c.peek()
        if (next !== "-" && next !== "\\" && next !== "'" && next !== "\"" && next !== "$") return
        const plain = this.peekPlainWord()
        if (plain === "-p" || plain === "--") {
          this.skipWord(plain)
          continue
        }
        const word = this.words.read("argument")
        if (typeof word.value !== "string" || word.value.startsWith("-")) {
          outside("an option of the time keyword that is not a plain -p")
        }
        return
      }
    } finally {
      c.pos = saved
    }
  }

  private skipWord(word: string): void {
    for (let i = 0; i < word.length; i++) this.cursor.next()
  }

  private forLoop(): void {
    const c = this.cursor
    this.skipWord("for")
    this.gap(false)
    const name = this.peekPlainWord()
    if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      outside("a for loop without a plain variable name")
    }
    this.checkVariable(name!)
    this.skipWord(name!)
    this.gap(false)
    if (this.peekPlainWord() !== "in") outside("a for loop without 'in'")
    this.skipWord("in")
    for (;;) {
      this.gap(false)
      const ch = c.peek()
      if (ch === ";") {
        c.next()
        break
      }
      if (ch === "\n") {
        this.newline()
        break
      }
      if (isDelimiter(ch)) outside("unexpected text in a for loop's word list")
      this.words.read("for")
    }
    this.enter()
    this.takeWord("do")
    this.list(DONE)
    this.takeWord("done")
    this.leave()
    this.compoundRedirects()
  }

  private checkVariable(name: string): void {
    if (RUNTIME_NAME.test(name)) outside(`the variable ${name}, which toolgate's shell uses`)
    if (isDangerousVariable(name)) outside(`a loop over the variable ${name}`)
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) outside("commands nested too deeply")
  }

  private leave(): void {
    this.depth--
  }

  /** The commands of `( … )`, `$( … )` or `<( … )` after the `(`, and the `)`. */
  nestedList(): void {
    if (this.pending.length > 0) outside("a nested command on a line with a pending here-document")
    this.enter()
    this.list(PAREN)
    if (this.pending.length > 0) outside("a here-document left open inside a nested command")
    if (!this.cursor.eat(")")) outside("an unterminated nested command")
    this.leave()
  }

  private compoundRedirects(): void {
    const redirects: Array<ReadRedirect> = []
    for (;;) {
      this.gap(false)
      if (!this.atRedirect()) break
      redirects.push(this.redirect())
    }
    if (redirects.length > 0) this.commands.push({ argv: [], env: [], redirects })
  }

  private simple(): void {
    const c = this.cursor
    const argv: Array<Word> = []
    const env: Array<{ readonly name: string; readonly value: Word }> = []
    const redirects: Array<ReadRedirect> = []
    for (;;) {
      this.gap(false)
      if (this.atRedirect()) {
        redirects.push(this.redirect())
        continue
      }
      const ch = c.peek()
      if (ch === "<" && c.peekSecond() === "(") {
        if (argv.length === 0) outside("a process substitution as the command name")
        c.next()
        c.next()
        this.nestedList()
        if (!isDelimiter(c.peek())) outside("text joined to a process substitution")
        argv.push({ dynamic: true, text: "<(…)" })
        continue
      }
      if (ch === "(") outside(argv.length > 0 ? "a function definition" : "a misplaced '('")
      if (isDelimiter(ch)) break
      if (argv.length === 0) {
        const plain = this.peekPlainWord()
        if (
          plain !== undefined &&
          (UNSUPPORTED_KEYWORDS.has(plain) || plain === "{" || plain === "if" || plain === "while" ||
            plain === "until" || plain === "for")
        ) {
          outside(`the shell keyword '${plain}' after an assignment or redirection`)
        }
      }
      const word = this.words.read(argv.length === 0 ? "command" : "argument")
      if (word.assignment !== undefined) {
        if (RUNTIME_NAME.test(word.assignment.name)) {
          outside(`the variable ${word.assignment.name}, which toolgate's shell uses`)
        }
        env.push(word.assignment)
        continue
      }
      argv.push(word.value)
    }
    if (argv.length === 0 && env.length === 0 && redirects.length === 0) outside("an empty command")
    this.commands.push({ argv, env, redirects })
  }

  /** A redirection operator comes next (`<(` is a process substitution, not a redirection). */
  private atRedirect(): boolean {
    const c = this.cursor
    const saved = c.pos
    try {
      while (/[0-9]/.test(c.peek() ?? "")) c.next()
      const ch = c.peek()
      if (ch === ">") return c.peekSecond() !== "(" || outside("an output process substitution")
      if (ch === "<") return c.peekSecond() !== "(" || c.pos !== saved
      if (ch === "&" && c.pos === saved) return c.peekSecond() === ">"
      return false
    } finally {
      c.pos = saved
    }
  }

  private redirect(): ReadRedirect {
    const c = this.cursor
    let digits = ""
    while (/[0-9]/.test(c.peek() ?? "")) digits += c.next()
    const fd = digits === "" ? undefined : Number(digits)
    const op = ["&>>", "&>", ">>", ">|", ">&", ">", "<<<", "<<-", "<<", "<&", "<>", "<"].find((o) =>
      (fd === undefined || !o.startsWith("&")) && c.eat(o)
    )
    if (op === undefined) return outside("an unknown redirection")
    this.gap(false)
    const at = fd === undefined ? {} : { fd }
    if (op === "<<" || op === "<<-") {
      this.heredocDelimiter(op === "<<-")
      return { op: "<<", ...at, target: "<here-document>" }
    }
    if (isDelimiter(c.peek())) outside("a redirection without a target")
    const target = this.words.read("redirect")
    if (op === ">&" || op === "<&") {
      // bash removes quotes from a `>&file` target a second time (`>&'\t'` writes `t`): only descriptors.
      const dup = typeof target.value === "string" && /^(?:[0-9]+|-)$/.test(target.value)
      if (!dup) outside("a redirection to a file descriptor that is not a number")
    }
    return { op, ...at, target: target.value }
  }

  private heredocDelimiter(stripTabs: boolean): void {
    const c = this.cursor
    const ch = c.peek()
    let delimiter = ""
    let expands = false
    if (ch === "'" || ch === "\"") {
      c.next()
      for (;;) {
        const next = c.rawNext()
        if (next === undefined) outside("an unterminated here-document delimiter")
        if (next === ch) break
        delimiter += next
      }
    } else {
      if (ch === "\\") {
        c.next()
        delimiter += c.rawNext() ?? ""
      } else expands = true
      while (!isDelimiter(c.peek())) delimiter += c.next()
    }
    if (!HEREDOC_DELIMITER.test(delimiter) || !isDelimiter(c.peek())) {
      outside("a here-document delimiter that is not a plain word")
    }
    this.pending.push({ delimiter, stripTabs, expands })
  }

  /** After a line break: the bodies of the here-documents started on that line, in order. */
  private readHeredocBodies(): void {
    const c = this.cursor
    for (const heredoc of this.pending) {
      for (;;) {
        const start = c.pos
        let end = c.text.indexOf("\n", start)
        const last = end === -1
        if (last) end = c.text.length
        const line = c.text.slice(start, end)
        c.pos = last ? end : end + 1
        const compared = heredoc.stripTabs ? line.replace(/^\t+/, "") : line
        if (compared === heredoc.delimiter) break
        // bash also ends a here-document at its delimiter followed by `)` inside `$( )`.
        if (compared.startsWith(heredoc.delimiter)) outside("a here-document line that starts with its delimiter")
        if (heredoc.expands && /[\\$`]/.test(line)) outside("expansions in an unquoted here-document")
        if (last) outside("a here-document without its delimiter line")
      }
    }
    this.pending = []
  }
}

/** Reads a command as bash would, or says why it is outside the grammar. */
export const readCommand = (text: string, homeStable: boolean): GrammarReading => {
  if (text.length > MAX_COMMAND_LENGTH) return { ok: false, reason: "the command is too long" }
  if (/__toolgate/i.test(text)) return { ok: false, reason: "a name toolgate's shell uses" }
  const reader = new Reader(text, homeStable)
  try {
    reader.program()
    return { ok: true, commands: reader.commands }
  } catch (error) {
    if (error instanceof OutsideGrammar) return { ok: false, reason: error.reason }
    if (error instanceof RangeError) return { ok: false, reason: "commands nested too deeply" }
    throw error
  }
}
