/**
 * Resolving tree-sitter word nodes to the values bash passes:
 * unquote, unescape, decode `$'…'`, join concatenations; anything bash would expand becomes
 * Dynamic. Constructs the walker cannot vouch for are reported to the sink as "too complex".
 */
import type { SyntaxNode } from "./parser.js"
import type { Word } from "./types.js"
import { checkHygiene } from "./hygiene.js"
import { quotedHeredocText } from "./grammar/heredocText.js"

/** What the checks need to know about one argument besides its value. */
export interface WordFacts {
  readonly value: Word
  /** The source text of the argument. */
  readonly raw: string
  /** Contains an unquoted `*`, `?` or `[` (bash would glob it). */
  readonly unquotedGlob: boolean
  /** Starts with an unquoted `~` (bash would expand it). */
  readonly tilde: boolean
  /** Is a `<( )`/`>( )` pipe path. */
  readonly procSub: boolean
  /** A glob or a trailing slash directly after an expansion (`"$DIR"/*`, `$D/`): critical for rm. */
  readonly globAfterExpansion: boolean
  /** Any part came from quotes or escapes. */
  readonly quoted: boolean
}

/**
 * Where a word stands: an argument (split and globbed by bash), an assignment value or a `[[ ]]`
 * operand (neither split nor globbed, so a plain `$x` there is a value, not new words).
 */
export type WordMode = "argument" | "assignment" | "test"

export interface WordSink {
  /** Nothing in the command can change `$HOME`: it stands for the home directory, like `~`. */
  readonly homeStable: boolean
  complex(reason: string): void
  /**
   * A plain expansion (`$NAME`, `${NAME}`, `$( )`): too complex unless the only command it
   * reaches prints it (the walker decides once it knows the command).
   */
  expansion(reason: string, variable?: string): void
  /** tree-sitter and bash read the text differently: too complex, and the raw-text deny scan applies. */
  disagreement(reason: string): void
  /** A `$( )`, backtick or `<( )`/`>( )` inside a word: the walker analyses its body as commands. */
  substitution(node: SyntaxNode): void
  /** A construct Claude Code will not read before it runs: it asks, in these words. */
  concern(message: string): void
}

export const isDynamic = (word: Word): word is { readonly dynamic: true; readonly text: string } =>
  typeof word !== "string"

export const literalFacts = (value: string): WordFacts => ({
  value,
  raw: value,
  unquotedGlob: false,
  tilde: false,
  procSub: false,
  globAfterExpansion: false,
  quoted: false
})

/** Marks the place of an expansion in the flattened text (for the "glob after a variable" check). */
const EXPANSION_MARK = "\u0001"
const GLOB_CHARS = /[*?[]/
// `{a,b}` and `{1..3}` in unquoted text (quoted and escaped characters are masked out).
const BRACE_EXPANSION = /\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}/
const GLOB_AFTER_EXPANSION = new RegExp(`${EXPANSION_MARK}(?:/*$|/*[*?[])`)
// After an unescaped `$`, these start an expansion; anything else leaves the `$` literal.
const EXPANSION_START = /[A-Za-z0-9_{([@*#?!$\-'"]/

class Builder {
  value = ""
  dynamic = false
  /** The text with quoted/escaped characters masked as `_`, expansions as `$`. */
  shape = ""
  /** The text with expansions as EXPANSION_MARK. */
  flat = ""
  unquotedGlob = false
  tilde = false
  procSub = false
  quoted = false
  /** Expansions seen, for the "only a simple quoted expansion" rules of callers. */
  expansions = 0

  literal(text: string, quoted: boolean): void {
    if (text.length === 0) return
    if (!quoted && this.shape.length === 0 && text[0] === "~") this.tilde = true
    this.value += text
    this.flat += text
    if (quoted) {
      this.quoted = true
      this.shape += "_".repeat(text.length)
    } else {
      this.shape += text
      if (GLOB_CHARS.test(text)) this.unquotedGlob = true
    }
  }

  /** `$HOME` at the start of a word: the home directory, exactly as a leading `~`. */
  home(): void {
    this.tilde = true
    this.value += "~"
    this.flat += "~"
    this.shape += "~"
  }

  expansion(): void {
    this.dynamic = true
    this.expansions++
    this.shape += "$"
    this.flat += EXPANSION_MARK
  }
}

/** Where bash ends a `$'…'` string: the first quote not escaped by a backslash. */
const ansiCEnd = (text: string): number => {
  for (let i = 2; i < text.length; i++) {
    if (text[i] === "\\") i++
    else if (text[i] === "'") return i
  }
  return -1
}

// Characters that end or quote a word: inside a parsed word they mean the parser and bash disagree.
const WORD_BREAKERS = /[ \t\n'";&|<>()]/

/** `\x` → `x`, `\⏎` → nothing; an unescaped `$`/backtick the parser did not turn into a node is reported. */
const addUnquotedWordText = (text: string, b: Builder, sink: WordSink): void => {
  let run = ""
  const flush = () => {
    b.literal(run, false)
    run = ""
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === "\\") {
      flush()
      const next = text[i + 1]
      if (next === undefined) {
        b.literal("\\", true)
      } else if (next !== "\n") {
        b.literal(next, true)
      }
      i++
    } else if (ch === "`") {
      sink.disagreement("a backtick the parser left inside a word")
      run += ch
    } else if (ch === "$" && i + 1 < text.length && EXPANSION_START.test(text[i + 1]!)) {
      sink.disagreement("an expansion the parser left inside a word")
      run += ch
    } else if (WORD_BREAKERS.test(ch)) {
      sink.disagreement("a quote or operator the parser left inside a word")
      run += ch
    } else {
      run += ch
    }
  }
  flush()
}

/** Double-quoted text: only `\$ \` \" \\ \⏎` are escapes. */
const addDoubleQuotedText = (text: string, b: Builder, sink: WordSink): void => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === "\\") {
      const next = text[i + 1]
      if (next === "$" || next === "`" || next === "\"" || next === "\\") {
        out += next
        i++
        continue
      }
      if (next === "\n") {
        i++
        continue
      }
      out += ch
    } else if (ch === "`") {
      sink.disagreement("a backtick the parser left inside a string")
      out += ch
    } else if (
      ch === "$" && i + 1 < text.length && EXPANSION_START.test(text[i + 1]!) && text[i + 1] !== "'" &&
      text[i + 1] !== "\""
    ) {
      sink.disagreement("an expansion the parser left inside a string")
      out += ch
    } else {
      out += ch
    }
  }
  b.literal(out, true)
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\u0007",
  b: "\b",
  e: "\u001b",
  E: "\u001b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\u000b",
  "\\": "\\",
  "'": "'",
  "\"": "\"",
  "?": "?"
}

/** Decodes the body of `$'…'` as bash does (a NUL ends the value). Undefined: not decodable. */
export const decodeAnsiC = (body: string): string | undefined => {
  let out = ""
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!
    if (ch !== "\\") {
      out += ch
      continue
    }
    const next = body[i + 1]
    if (next === undefined) {
      out += "\\"
      break
    }
    const simple = SIMPLE_ESCAPES[next]
    if (simple !== undefined) {
      out += simple
      i++
      continue
    }
    let match: RegExpExecArray | null
    const rest = body.slice(i + 1)
    if ((match = /^[0-7]{1,3}/.exec(rest)) !== null) {
      out += String.fromCharCode(parseInt(match[0], 8) & 0xff)
      i += match[0].length
    } else if ((match = /^x([0-9A-Fa-f]{1,2})/.exec(rest)) !== null) {
      out += String.fromCharCode(parseInt(match[1]!, 16))
      i += match[0].length
    } else if (
      (match = /^u([0-9A-Fa-f]{1,4})/.exec(rest)) !== null || (match = /^U([0-9A-Fa-f]{1,8})/.exec(rest)) !== null
    ) {
      const code = parseInt(match[1]!, 16)
      // Beyond ASCII the result depends on the locale bash runs in (C: the escape stays as text).
      if (code > 0x7f) return undefined
      out += String.fromCodePoint(code)
      i += match[0].length
    } else if (next === "c" && body[i + 2] !== undefined) {
      out += String.fromCharCode(body[i + 2]!.charCodeAt(0) & 0x1f)
      i += 2
    } else {
      out += "\\" + next
      i++
    }
  }
  const nul = out.indexOf("\u0000")
  return nul === -1 ? out : out.slice(0, nul)
}

/** Variables whose quoted value Claude Code takes as known: the home directory. */
const TRUSTED_QUOTED_VARIABLES: ReadonlySet<string> = new Set(["HOME"])

/** `$HOME` written plainly (not `${HOME}`). */
const isHome = (node: SyntaxNode): boolean => node.type === "simple_expansion" && node.text === "$HOME"

/**
 * Could the command change `$HOME` before using it? (An assignment, export, read, unset… naming
 * it, or code it cannot see: a sourced file, eval.)
 */
export const mayChangeHome = (command: string): boolean =>
  /\bHOME\s*\+?=|\b(?:export|declare|typeset|local|readonly|unset|read|mapfile|readarray|printf|let|getopts|for|select)\b[^\n;&|]*\bHOME\b/
    .test(command) ||
  /\b(?:source|eval)\b|(?:^|[;&|(){}!\n]\s*)\.\s/.test(command)

/** Only `$NAME`, `${NAME}` and special parameters are simple; operators (`${x@P}`, `${!x}`, `${x:-$(…)}`) are not. */
const isSimpleExpansion = (node: SyntaxNode): boolean => {
  if (node.type === "simple_expansion") return true
  if (node.type !== "expansion") return false
  if (node.namedChildCount !== 1) return false
  const inner = node.namedChild(0)
  return inner !== null && (inner.type === "variable_name" || inner.type === "special_variable_name") &&
    node.text === "${" + inner.text + "}"
}

/** The name a simple expansion reads (`$X`, `${X}`, `$1`, `$@`). */
const variableOf = (node: SyntaxNode): string => node.text.replace(/^\$\{?|\}$/g, "")

/** `$(( ))` or `$[ ]`: Claude Code reads only the first form, with number literals alone. */
const arithmetic = (node: SyntaxNode, sink: WordSink): void => {
  if (isLiteralArithmetic(node) && !node.text.startsWith("$[")) return
  const operand = node.text.startsWith("$[") ? "$[" : firstNonLiteral(node) ?? node.text
  sink.concern(
    /^(?:\$\(|`)/.test(operand)
      ? "A nested command in this command can't be checked before it runs"
      : `Arithmetic expansion references variable or non-literal: ${operand}`
  )
  if (!isLiteralArithmetic(node)) sink.complex("arithmetic with variables or substitutions")
}

/** The first operand of an arithmetic expression that is not a number literal. */
const firstNonLiteral = (node: SyntaxNode): string | undefined => {
  for (let i = 0; i < node.namedChildCount; i++) {
    const child = node.namedChild(i)!
    if (child.type === "number" && child.namedChildCount === 0) continue
    if (
      child.namedChildCount === 0 || child.type === "simple_expansion" || child.type === "expansion" ||
      child.type === "command_substitution"
    ) {
      return child.text
    }
    const inner = firstNonLiteral(child)
    if (inner !== undefined) return inner
  }
  return undefined
}

/** Arithmetic whose only operands are number literals: evaluating it runs nothing. */
const isLiteralArithmetic = (node: SyntaxNode): boolean => {
  for (let i = 0; i < node.namedChildCount; i++) {
    const child = node.namedChild(i)!
    switch (child.type) {
      case "number":
        if (child.namedChildCount > 0) return false
        break
      case "binary_expression":
      case "unary_expression":
      case "parenthesized_expression":
      case "ternary_expression":
        if (!isLiteralArithmetic(child)) return false
        break
      default:
        return false
    }
  }
  return true
}

const addString = (node: SyntaxNode, b: Builder, sink: WordSink, source: string): void => {
  // Walk the children by position so that text tree-sitter left between them is not lost.
  let pos = node.startIndex + 1
  const end = node.endIndex - 1
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!
    if (!child.isNamed) continue
    if (child.startIndex > pos) addDoubleQuotedText(source.slice(pos, child.startIndex), b, sink)
    switch (child.type) {
      case "string_content":
        addDoubleQuotedText(child.text, b, sink)
        break
      case "simple_expansion":
      case "expansion":
        if (isHome(child) && sink.homeStable && b.shape.length === 0) {
          b.home()
          break
        }
        // Only $HOME and $PWD are vouched for inside quotes (as Claude Code does); braces never.
        if (!isSimpleExpansion(child)) sink.complex(`the expansion ${child.text} inside a string`)
        else if (child.type === "expansion" || !TRUSTED_QUOTED_VARIABLES.has(child.text.slice(1))) {
          sink.expansion(`the expansion ${child.text} inside a string`, variableOf(child))
        }
        b.expansion()
        break
      case "command_substitution": {
        const printed = quotedHeredocText(child.text, 0)
        if (printed !== undefined && printed.end === child.text.length) {
          b.literal(printed.value, true)
          break
        }
        if (child.text.startsWith("`") && child.text.slice(1, -1).includes("\\")) {
          sink.complex("a backslash inside backticks")
        }
        sink.expansion("a command substitution inside a string")
        sink.substitution(child)
        b.expansion()
        break
      }
      case "arithmetic_expansion":
        arithmetic(child, sink)
        b.expansion()
        break
      default:
        sink.complex(`unsupported ${child.type} inside a string`)
        b.expansion()
    }
    pos = child.endIndex
  }
  if (end > pos) addDoubleQuotedText(source.slice(pos, end), b, sink)
  if (!node.text.endsWith("\"") || node.text.length < 2) sink.complex("an unterminated string")
}

const addPart = (node: SyntaxNode, b: Builder, sink: WordSink, source: string, mode: WordMode): void => {
  switch (node.type) {
    case "word":
    case "extglob_pattern":
    case "regex":
    case "test_operator":
    case "variable_name":
    case "special_variable_name":
    case "file_descriptor":
    case "heredoc_start":
      addUnquotedWordText(node.text, b, sink)
      return
    case "number":
      if (node.namedChildCount > 0) {
        sink.complex("an expansion inside a number")
        b.expansion()
      } else {
        addUnquotedWordText(node.text, b, sink)
      }
      return
    case "raw_string": {
      const text = node.text
      if (text.length < 2 || !text.endsWith("'")) sink.complex("an unterminated string")
      b.literal(text.slice(1, -1), true)
      return
    }
    case "string":
      addString(node, b, sink, source)
      return
    case "translated_string": {
      const inner = node.namedChild(0)
      if (inner === null || inner.type !== "string") {
        sink.complex("an unsupported $\"…\" string")
        b.expansion()
      } else {
        addString(inner, b, sink, source)
      }
      return
    }
    case "ansi_c_string": {
      sink.concern("Text with escape codes in this command can't be checked before it runs")
      const text = node.text
      if (text.length < 3 || ansiCEnd(text) !== text.length - 1) {
        // tree-sitter reads `$'\\'` as an escaped quote and runs on into the next words.
        sink.disagreement("a $'…' string the parser misread")
        b.expansion()
        return
      }
      const decoded = decodeAnsiC(text.slice(2, -1))
      if (decoded === undefined) {
        sink.complex("an undecodable $'…' string")
        b.expansion()
        return
      }
      const bad = checkHygiene(decoded.replace(/[\t\n]/g, " "))
      if (bad !== undefined) sink.complex(`a $'…' string that decodes to ${bad.replace(/^the command contains /, "")}`)
      b.literal(decoded, true)
      return
    }
    case "concatenation": {
      let pos = node.startIndex
      for (let i = 0; i < node.childCount; i++) {
        const child = node.child(i)!
        if (child.startIndex !== pos) sink.disagreement("text the parser skipped inside a word")
        pos = child.endIndex
        if (!child.isNamed) {
          addLooseToken(child, node.child(i + 1), b, sink)
          continue
        }
        addPart(child, b, sink, source, mode)
      }
      return
    }
    case "simple_expansion":
    case "expansion":
      if (isHome(node) && sink.homeStable && b.shape.length === 0) {
        b.home()
        return
      }
      if (!isSimpleExpansion(node)) sink.complex(`the expansion ${node.text}`)
      else if (mode === "argument") sink.expansion(`the unquoted expansion ${node.text}`, variableOf(node))
      b.expansion()
      return
    case "command_substitution":
      if (mode === "argument") sink.expansion("an unquoted command substitution")
      if (node.text.startsWith("`") && node.text.slice(1, -1).includes("\\")) {
        sink.complex("a backslash inside backticks")
      }
      sink.substitution(node)
      b.expansion()
      return
    case "process_substitution":
      sink.concern("A command used as a file in this command can't be checked before it runs")
      sink.substitution(node)
      b.expansion()
      b.procSub = true
      return
    case "arithmetic_expansion":
      arithmetic(node, sink)
      b.expansion()
      return
    case "brace_expression":
      sink.concern("A brace pattern in this command can't be checked before it runs")
      sink.complex("brace expansion")
      b.expansion()
      return
    default:
      sink.complex(`unsupported ${node.type} in a word`)
      b.expansion()
      return
  }
}

/**
 * An anonymous `$` token among word parts. `$"…"` is a translated string (the `$` adds nothing);
 * its text may also be `\$` (an escaped dollar) or a lone `$`, both literal.
 */
const addLooseToken = (token: SyntaxNode, next: SyntaxNode | null, b: Builder, sink: WordSink): void => {
  if (token.type !== "$") {
    sink.complex(`an unexpected '${token.type}' in a word`)
    b.expansion()
    return
  }
  const text = token.text
  if (text === "$" && next !== null && next.type === "string" && next.startIndex === token.endIndex) return
  if (text === "$" || text === "\\$") addUnquotedWordText(text, b, sink)
  else {
    sink.complex(`an unexpected '${text}' in a word`)
    b.expansion()
  }
}

const finish = (b: Builder, raw: string, sink: WordSink): WordFacts => {
  if (BRACE_EXPANSION.test(b.shape)) {
    sink.concern("Brace expansion")
    sink.complex("brace expansion")
  }
  if (b.shape.includes("~[")) sink.complex("zsh ~[ syntax")
  return {
    value: b.dynamic ? { dynamic: true, text: raw } : b.value,
    raw,
    unquotedGlob: b.unquotedGlob,
    tilde: b.tilde,
    procSub: b.procSub,
    globAfterExpansion: b.dynamic && GLOB_AFTER_EXPANSION.test(b.flat),
    quoted: b.quoted
  }
}

/** Resolves one argument made of one node. */
export const resolveWord = (
  node: SyntaxNode,
  source: string,
  sink: WordSink,
  mode: WordMode = "argument"
): WordFacts => {
  const b = new Builder()
  addPart(node, b, sink, source, mode)
  return finish(b, node.text, sink)
}

/**
 * Resolves one bash word made of several sibling nodes that tree-sitter split but bash joins
 * (siblings separated only by `\⏎`, or a `$` + string pair).
 */
export const resolveJoinedWord = (
  nodes: ReadonlyArray<SyntaxNode>,
  source: string,
  sink: WordSink,
  mode: WordMode = "argument"
): WordFacts => {
  const b = new Builder()
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!
    if (!node.isNamed) {
      addLooseToken(node, nodes[i + 1] ?? null, b, sink)
      continue
    }
    addPart(node, b, sink, source, mode)
  }
  const first = nodes[0]!
  const last = nodes[nodes.length - 1]!
  return finish(b, source.slice(first.startIndex, last.endIndex), sink)
}
