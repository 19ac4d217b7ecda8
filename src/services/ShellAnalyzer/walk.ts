/**
 * Walks a tree-sitter-bash tree with an allowlist of node types into units,
 * patching the parser's gaps: words split at `\⏎`, `$"…"`, backticks in unquoted
 * here-documents, `time`/`coproc` (handled as wrappers). Anything not on the allowlist makes the
 * command too complex, but the walk goes on so that deny rules still see what is inside.
 */
import type { ParseResult, SyntaxNode } from "./parser.js"
import { disagreement } from "./grammar/agreement.js"
import { readCommand } from "./grammar/reader.js"
import { checkHygiene } from "./hygiene.js"
import type { Redirect, SimpleCommand, Word } from "./types.js"
import type { EnvFacts, ReadingConcern, Unit, UnitRole } from "./units.js"
import type { WordFacts, WordMode, WordSink } from "./words.js"
import { literalFacts, resolveJoinedWord, resolveWord } from "./words.js"
import { unwrap } from "./wrappers.js"

/** A redirect with the facts about its target. */
export interface RedirectFacts extends Redirect {
  readonly facts: WordFacts
}

/** Nesting limit for wrappers, nested shells and substitutions. */
const MAX_DEPTH = 12

/** The complex reason of a command (or part) that does not parse. */
export const SYNTAX_ERROR = "the command has a syntax error"

/** State shared by the walkers of one command (the top one and nested scripts). */
export interface WalkState {
  /** Parses the nested scripts (`bash -c`, `eval`) with the parser of the whole command. */
  readonly parse: (source: string) => ParseResult
  readonly units: Array<Unit>
  readonly reasons: Array<string>
  /** Expansions whose values only reach commands that print them (see Analysis.notes). */
  readonly notes: Array<string>
  order: number
  /** The wrapper unit the units being pushed run inside, if any. */
  parent: number | undefined
  /** A nested script failed to parse or had syntax errors: the raw deny scan applies. */
  rawScan: boolean
  /** Nothing in the command can change `$HOME` (see words.ts). */
  readonly homeStable: boolean
  /** >0 while walking the commands of a pipeline. */
  piped?: number
  /** See Analysis.concerns. */
  readonly concerns?: Array<ReadingConcern>
}

const STATEMENT_CONTAINERS = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "do_group",
  "else_clause",
  "elif_clause",
  "if_statement",
  "negated_command"
])
const ALLOWED_TOKENS = new Set([
  ";",
  "&",
  "&&",
  "||",
  "|",
  "|&",
  "\n",
  "(",
  ")",
  "{",
  "}",
  "if",
  "then",
  "fi",
  "elif",
  "else",
  "while",
  "until",
  "do",
  "done",
  "for",
  "select",
  "in",
  "case",
  "esac",
  ";;",
  ";&",
  ";;&",
  "!"
])
const REDIRECT_TYPES = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])
const COVERED_TYPES = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "compound_statement",
  "do_group",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "case_statement",
  "negated_command",
  "redirected_statement",
  "command",
  "declaration_command",
  "unset_command",
  "test_command",
  "variable_assignments"
])
// Blanks, newlines and line continuations only.
const BLANK_GAP = /^(?:[ \t\n]|\\\n)*$/
const ARITHMETIC_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])
const INTEGER = /^-?\d+$/

type Origin = SimpleCommand["origin"]

export class Walker implements WordSink {
  /** >0 while inside a construct that made the command too complex. */
  private complexRegion = 0
  /** Expansions met since the last unit was pushed; they belong to the next one. */
  private pendingExpansions: Array<{ readonly reason: string; readonly variable?: string }> = []

  get homeStable(): boolean {
    return this.state.homeStable
  }

  constructor(
    private readonly state: WalkState,
    private readonly source: string,
    private readonly origin: Origin,
    private readonly depth: number,
    inComplexRegion: boolean
  ) {
    if (inComplexRegion) this.complexRegion = 1
  }

  complex(reason: string): void {
    if (!this.state.reasons.includes(reason)) this.state.reasons.push(reason)
  }

  /** A construct Claude Code will not read before it runs (see Analysis.concerns), in its words. */
  concern(message: string, rank = 2): void {
    this.state.concerns?.push({ rank, message })
  }

  expansion(reason: string, variable?: string): void {
    this.pendingExpansions.push(variable === undefined ? { reason } : { reason, variable })
  }

  /**
   * The expansions met for a unit make the command too complex, even when the unit only prints
   * them (`echo $USER`): Claude Code asks about every value only known at run time but `$HOME`.
   */
  private settleExpansions(): void {
    for (const { reason } of this.pendingExpansions) this.complex(reason)
    this.pendingExpansions = []
  }

  /** Expansions no unit claimed make the command too complex. */
  finish(): void {
    for (const { reason } of this.pendingExpansions) this.complex(reason)
    this.pendingExpansions = []
  }

  disagreement(reason: string): void {
    this.complex(reason)
    this.state.rawScan = true
  }

  substitution(node: SyntaxNode): void {
    if (this.depth + 1 > MAX_DEPTH) {
      this.complex("commands nested too deeply")
      return
    }
    const text = node.text
    if (text.startsWith("`") && text.endsWith("`") && text.length >= 2 && text.slice(1, -1).includes("\\")) {
      // Inside backticks bash first removes the backslash before \\, \` and \$, then parses;
      // tree-sitter does not, so parse the body again the way bash sees it.
      this.complex("a backslash inside backticks")
      this.complexRegion++
      try {
        this.nestedScript(text.slice(1, -1).replace(/\\([\\`$])/g, "$1"), this.depth + 1, "substitution")
      } finally {
        this.complexRegion--
      }
      return
    }
    const inner = new Walker(this.state, this.source, "substitution", this.depth + 1, this.complexRegion > 0)
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.isMissing) inner.complex("an incomplete command substitution")
      if (!child.isNamed) continue
      if (child.type === "file_redirect") {
        // `$(< file)` reads the file.
        inner.pushUnit([], [], [inner.redirect(child)], child.text, "redirect-only")
        continue
      }
      inner.statement(child)
    }
    inner.finish()
  }

  /** Walks the root of a parsed program. */
  program(root: SyntaxNode): void {
    if (root.hasError) {
      this.complex(SYNTAX_ERROR)
      this.state.rawScan = true
    }
    this.statement(root)
    this.finish()
  }

  private withComplexRegion(reason: string, body: () => void): void {
    this.complex(reason)
    this.complexRegion++
    try {
      body()
    } finally {
      this.complexRegion--
    }
  }

  statement(node: SyntaxNode): void {
    if (node.isMissing) {
      this.complex("an incomplete command")
      return
    }
    const type = node.type
    if (COVERED_TYPES.has(type)) this.checkCovered(node)
    const construct = constructConcern(node)
    if (construct !== undefined) this.concern(construct)
    if (type === "pipeline") {
      this.state.piped = (this.state.piped ?? 0) + 1
      try {
        return this.children(node)
      } finally {
        this.state.piped--
      }
    }
    if (STATEMENT_CONTAINERS.has(type)) return this.children(node)
    switch (type) {
      case "command":
        return this.command(node, [])
      case "redirected_statement":
        return this.redirectedStatement(node)
      case "compound_statement":
        return node.child(0)?.type === "((" ? this.arithmeticCommand(node) : this.children(node)
      case "for_statement":
        return this.forStatement(node)
      case "while_statement":
        return this.whileStatement(node)
      case "case_statement":
        return this.caseStatement(node)
      case "variable_assignment":
        return this.assignmentStatement([node], node.text)
      case "variable_assignments": {
        const nodes: Array<SyntaxNode> = []
        for (let i = 0; i < node.namedChildCount; i++) nodes.push(node.namedChild(i)!)
        return this.assignmentStatement(nodes, node.text)
      }
      case "declaration_command":
      case "unset_command":
        return this.declaration(node)
      case "test_command":
        return this.testCommand(node)
      case "comment":
        return
      case "function_definition":
        return this.withComplexRegion("a function definition", () => this.anyChildren(node))
      case "c_style_for_statement":
        return this.withComplexRegion("a C-style for loop", () => this.anyChildren(node))
      case "ERROR":
        this.state.rawScan = true
        return this.withComplexRegion(SYNTAX_ERROR, () => this.anyChildren(node))
      default:
        return this.withComplexRegion(`unsupported shell syntax (${type})`, () => this.anyChildren(node))
    }
  }

  /**
   * Text between the children of a statement node must be blanks, newlines or `\⏎`: tree-sitter
   * silently drops some words bash keeps (a word that starts with an escaped blank, `\ x`).
   */
  private checkCovered(node: SyntaxNode): void {
    let pos = node.startIndex
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.startIndex > pos && !BLANK_GAP.test(this.source.slice(pos, child.startIndex))) {
        this.disagreement("text the parser skipped")
        return
      }
      if (child.endIndex > pos) pos = child.endIndex
    }
    if (node.endIndex > pos && !BLANK_GAP.test(this.source.slice(pos, node.endIndex))) {
      this.disagreement("text the parser skipped")
    }
  }

  /** Children of an allowlisted container: statements and known separator tokens only. */
  private children(node: SyntaxNode): void {
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.isMissing) this.complex("an incomplete command")
      else if (child.isNamed) this.statement(child)
      else this.token(child)
    }
  }

  /** A token between the parts of a construct: a known separator, or the command is too complex. */
  private token(node: SyntaxNode): void {
    if (!ALLOWED_TOKENS.has(node.type)) this.complex(`unsupported shell syntax (${node.type})`)
    if (node.type === "&") this.concern(BACKGROUND, BACKGROUND_RANK)
  }

  /** Each named child of `node` with its field name; the tokens between them go through `token`. */
  private eachNamed(node: SyntaxNode, visit: (child: SyntaxNode, field: string | null) => void): void {
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.isNamed) visit(child, node.fieldNameForChild(i))
      else this.token(child)
    }
  }

  /** Inside a region that is already too complex: find whatever commands are visible. */
  private anyChildren(node: SyntaxNode): void {
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (!child.isNamed) continue
      switch (child.type) {
        case "command":
        case "redirected_statement":
        case "list":
        case "pipeline":
        case "subshell":
        case "compound_statement":
        case "if_statement":
        case "while_statement":
        case "for_statement":
        case "case_statement":
        case "negated_command":
        case "declaration_command":
        case "unset_command":
        case "test_command":
        case "function_definition":
        case "c_style_for_statement":
        case "variable_assignment":
        case "ERROR":
          this.statement(child)
          break
        case "command_substitution":
        case "process_substitution":
          this.substitution(child)
          break
        case "command_name": {
          // An ERROR node often holds a command whose name is all that is left (`{rm,-rf,x}`).
          const words: Array<WordFacts> = []
          const sink = this.quietSink()
          for (let j = i; j < node.childCount; j++) {
            const part = node.child(j)!
            if (part.isNamed && part.type !== "comment") {
              words.push(
                resolveWord(
                  part.type === "command_name" && part.namedChild(0) !== null ? part.namedChild(0)! : part,
                  this.source,
                  sink
                )
              )
            }
          }
          this.pushUnit(words, [], [], node.text, "plain")
          return
        }
        default:
          this.anyChildren(child)
      }
    }
  }

  /** A sink for words inside regions that are already too complex: substitutions are still walked. */
  private quietSink(): WordSink {
    return {
      homeStable: this.state.homeStable,
      complex: () => undefined,
      expansion: () => undefined,
      disagreement: () => (this.state.rawScan = true),
      substitution: (n) => this.substitution(n),
      concern: (message) => this.concern(message)
    }
  }

  private gapIsBlank(from: number, to: number): "none" | "blank" | "other" {
    if (to <= from) return "none"
    const gap = this.source.slice(from, to).replace(/\\\n/g, "")
    if (gap.length === 0) return "none"
    return /^[ \t]+$/.test(gap) ? "blank" : "other"
  }

  private command(node: SyntaxNode, outerRedirects: ReadonlyArray<RedirectFacts>): void {
    const env: Array<EnvFacts> = []
    const groups: Array<Array<SyntaxNode>> = []
    const redirects: Array<RedirectFacts> = []
    let prevEnd = -1
    let prevWasWord = false
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.isMissing) this.complex("an incomplete command")
      const gap = prevEnd < 0 ? "blank" : this.gapIsBlank(prevEnd, child.startIndex)
      if (gap === "other") this.disagreement("text the parser skipped between words")
      const field = node.fieldNameForChild(i)
      const type = child.type
      prevEnd = child.endIndex
      if (type === "variable_assignment" && groups.length === 0) {
        if (gap === "none" && prevWasWord) this.complex("an assignment joined to a word")
        env.push(this.assignment(child))
        prevWasWord = false
        continue
      }
      if (REDIRECT_TYPES.has(type) || field === "redirect") {
        redirects.push(this.redirect(child))
        prevWasWord = false
        continue
      }
      let wordNode: SyntaxNode | undefined
      if (type === "command_name") {
        if (child.namedChildCount !== 1) this.complex("an unusual command name")
        wordNode = child.namedChild(0) ?? undefined
      } else if (field === "argument" || (type === "$" && !child.isNamed)) {
        wordNode = child
      }
      if (wordNode === undefined) {
        this.complex(`unsupported shell syntax in a command (${type})`)
        if (child.isNamed) this.anyChildren(child)
        prevWasWord = false
        continue
      }
      if (gap === "none" && prevWasWord && groups.length > 0) groups[groups.length - 1]!.push(wordNode)
      else groups.push([wordNode])
      prevWasWord = true
    }
    const words = groups.map((
      group
    ) => (group.length === 1 && group[0]!.isNamed
      ? resolveWord(group[0]!, this.source, this)
      : resolveJoinedWord(group, this.source, this))
    )
    const allRedirects = [...redirects, ...outerRedirects]
    if (words.length === 0) {
      if (env.length > 0) this.pushUnit([], env, allRedirects, node.text, "assignment")
      else this.pushUnit([], [], allRedirects, node.text, "redirect-only")
      return
    }
    this.checkCommandName(words[0]!)
    this.expand(words, env, allRedirects, node.text, this.origin, this.depth)
  }

  private checkCommandName(word: WordFacts): void {
    if (typeof word.value !== "string") {
      this.complex("a command name that is not a literal")
      return
    }
    if (word.value.startsWith("=")) this.complex("zsh =command syntax")
    // Non-ASCII names are homoglyph territory: the prompt could show one program and run another.
    if (/[^\x20-\x7e]/.test(word.value)) this.complex("a command name with non-ASCII characters")
    if (word.unquotedGlob) this.complex("a glob in the command name")
  }

  /** Pushes a unit and, for wrappers and nested shells, the units inside it. */
  private expand(
    words: ReadonlyArray<WordFacts>,
    env: ReadonlyArray<EnvFacts>,
    redirects: ReadonlyArray<RedirectFacts>,
    text: string,
    origin: Origin,
    depth: number,
    runtimeArgs = false
  ): void {
    const named = commandConcern(words, env)
    if (named !== undefined) this.concern(named)
    if (depth > MAX_DEPTH) {
      this.complex("commands nested too deeply")
      this.pushUnit(words, env, redirects, text, "plain", origin, depth)
      return
    }
    const unwrapped = unwrap(words)
    const innerText = (from: number, to: number) =>
      words
        .slice(from, to)
        .map((w) => w.raw)
        .join(" ")
    switch (unwrapped.kind) {
      case "none":
        this.pushUnit(words, env, redirects, text, "plain", origin, depth, undefined, runtimeArgs)
        return
      case "complex":
        // A wrapper or shell hides code that was not unwrapped: deny rules reach it through the raw-text scan.
        this.complex(unwrapped.reason)
        this.state.rawScan = true
        this.pushUnit(words, env, redirects, text, "plain", origin, depth, undefined, runtimeArgs)
        return
      case "wrapper": {
        const outer = this.pushUnit(
          words,
          env,
          redirects,
          text,
          unwrapped.role,
          origin,
          depth,
          unwrapped.exactRuleOnly,
          runtimeArgs
        )
        const end = unwrapped.innerEnd ?? words.length
        const innerWords: Array<WordFacts> = unwrapped.innerArgv !== undefined
          ? unwrapped.innerArgv.map(literalFacts)
          : words.slice(unwrapped.innerStart, end)
        if (innerWords.length === 0) return
        this.checkCommandName(innerWords[0]!)
        const innerEnv = unwrapped.extraEnv === undefined ? env : [...env, ...unwrapped.extraEnv]
        this.withParent(
          outer,
          () =>
            this.expand(
              innerWords,
              innerEnv,
              [],
              innerText(unwrapped.innerStart, end) || innerWords.map((w) => w.raw).join(" "),
              "wrapper-inner",
              depth + 1,
              runtimeArgs || unwrapped.runtimeArgs === true
            )
        )
        return
      }
      case "script": {
        const outer = this.pushUnit(
          words,
          env,
          redirects,
          text,
          unwrapped.role,
          origin,
          depth,
          unwrapped.exactRuleOnly,
          runtimeArgs
        )
        if (runtimeArgs) this.complex("a shell script that gets arguments at run time")
        this.withParent(outer, () => this.nestedScript(unwrapped.script, depth + 1))
        return
      }
      case "find": {
        const outer = this.pushUnit(
          words,
          env,
          redirects,
          text,
          unwrapped.commands.length > 0 ? "exec" : "plain",
          origin,
          depth,
          unwrapped.exactRuleOnly,
          runtimeArgs
        )
        for (const [start, end] of unwrapped.commands) {
          const innerWords = words.slice(start, end).map((w) =>
            typeof w.value === "string" && w.value.includes("{}")
              ? { ...w, value: { dynamic: true as const, text: w.raw } }
              : w
          )
          this.checkCommandName(innerWords[0]!)
          this.withParent(
            outer,
            () => this.expand(innerWords, env, [], innerText(start, end), "wrapper-inner", depth + 1, true)
          )
        }
        return
      }
    }
  }

  private withParent(parent: number, body: () => void): void {
    const saved = this.state.parent
    this.state.parent = parent
    try {
      body()
    } finally {
      this.state.parent = saved
    }
  }

  /** `bash -c LITERAL`, `eval LITERAL`, `watch STRING`: parse and walk the literal. */
  private nestedScript(script: string, depth: number, origin: Origin = "nested-shell"): void {
    if (depth > MAX_DEPTH) {
      this.complex("commands nested too deeply")
      return
    }
    const bad = checkHygiene(script)
    if (bad !== undefined) {
      this.complex(`a nested script: ${bad}`)
      this.state.rawScan = true
      return
    }
    const parsed = this.state.parse(script)
    if (parsed._tag === "Failed") {
      this.complex(`a nested script could not be parsed: ${parsed.reason}`)
      this.state.rawScan = true
      return
    }
    const before = this.state.units.length
    const parent = this.state.parent
    try {
      const inner = new Walker(this.state, script, origin, depth, this.complexRegion > 0)
      inner.program(parsed.tree.rootNode)
    } finally {
      parsed.tree.delete()
    }
    if (origin === "nested-shell" && this.state.reasons.length === 0) this.readAgain(script, before, parent)
  }

  /** A nested script (`bash -c '…'`, `eval '…'`) gets the grammar reader's second reading too. */
  private readAgain(script: string, before: number, parent: number | undefined): void {
    const read = readCommand(script, this.state.homeStable)
    if (!read.ok) {
      this.complex(`a nested script outside the shell grammar: ${read.reason}`)
      return
    }
    const inner = this.state.units.slice(before)
    const differs = disagreement(
      inner,
      read.commands,
      (u) => u.parent === parent && (u.origin === "nested-shell" || u.origin === "substitution")
    )
    if (differs !== undefined) {
      this.disagreement(`the parser and the shell grammar read ${differs} of a nested script differently`)
    }
  }

  pushUnit(
    words: ReadonlyArray<WordFacts>,
    envFacts: ReadonlyArray<EnvFacts>,
    redirects: ReadonlyArray<RedirectFacts>,
    text: string,
    role: UnitRole,
    origin: Origin = this.origin,
    depth: number = this.depth,
    exactRuleOnly?: string,
    runtimeArgs = false
  ): number {
    this.settleExpansions()
    const argv: Array<Word> = words.map((w) => w.value)
    const allWords = runtimeArgs ? [...words, RUNTIME_ARGS] : words
    if (runtimeArgs) argv.push(RUNTIME_ARGS.value)
    const unit: Unit = {
      argv,
      env: envFacts.map((e) => ({ name: e.name, value: e.value })),
      redirects,
      origin,
      text,
      words: allWords,
      envFacts,
      role,
      order: this.state.order++,
      depth,
      inComplexRegion: this.complexRegion > 0,
      ...(exactRuleOnly === undefined ? {} : { exactRuleOnly }),
      ...(runtimeArgs ? { runtimeArgs } : {}),
      ...(this.state.parent === undefined ? {} : { parent: this.state.parent }),
      ...((this.state.piped ?? 0) > 0 ? { piped: true } : {})
    }
    this.state.units.push(unit)
    return this.state.units.length - 1
  }

  private assignment(node: SyntaxNode, mode: WordMode = "assignment"): EnvFacts {
    const nameNode = node.childForFieldName("name")
    let name = nameNode?.text ?? ""
    if (nameNode === null) this.complex("an assignment without a name")
    else if (nameNode.type === "subscript") {
      const index = nameNode.childForFieldName("index")
      if (index === null || index.type !== "number" || index.namedChildCount > 0) {
        this.complex("an array subscript that bash evaluates")
      }
      name = nameNode.childForFieldName("name")?.text ?? name
    }
    const valueNode = node.childForFieldName("value")
    if (valueNode === null) return { name, value: "", raw: node.text }
    if (valueNode.type === "array") {
      let dynamic = false
      for (let i = 0; i < valueNode.namedChildCount; i++) {
        const element = resolveWord(valueNode.namedChild(i)!, this.source, this, "argument")
        if (typeof element.value !== "string") dynamic = true
      }
      return { name, value: dynamic ? { dynamic: true, text: valueNode.text } : valueNode.text, raw: node.text }
    }
    return { name, value: resolveWord(valueNode, this.source, this, mode).value, raw: node.text }
  }

  private assignmentStatement(nodes: ReadonlyArray<SyntaxNode>, text: string): void {
    const env = nodes.map((n) => this.assignment(n))
    this.pushUnit([], env, [], text, "assignment")
  }

  private declaration(node: SyntaxNode): void {
    const words: Array<WordFacts> = []
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (!child.isNamed) {
        if (i === 0) words.push(literalFacts(child.type))
        else this.complex(`unsupported shell syntax in ${node.child(0)?.type ?? "a declaration"} (${child.type})`)
        continue
      }
      if (child.type === "variable_assignment") {
        const assigned = this.assignment(child)
        const value = typeof assigned.value === "string"
          ? `${assigned.name}=${assigned.value}`
          : { dynamic: true as const, text: child.text }
        words.push({ ...literalFacts(typeof value === "string" ? value : child.text), value, raw: child.text })
      } else {
        words.push(resolveWord(child, this.source, this))
      }
    }
    this.pushUnit(words, [], [], node.text, "plain")
  }

  private testCommand(node: SyntaxNode): void {
    const open = node.child(0)?.type ?? "["
    const mode: WordMode = open === "[[" ? "test" : "argument"
    const words: Array<WordFacts> = [literalFacts(open)]
    const collect = (n: SyntaxNode): void => {
      for (let i = 0; i < n.childCount; i++) {
        const child = n.child(i)!
        if (child.isMissing) this.complex("an incomplete test")
        if (!child.isNamed) {
          if (n === node && (i === 0 || i === n.childCount - 1)) continue
          words.push(literalFacts(child.type))
          continue
        }
        switch (child.type) {
          case "binary_expression":
          case "unary_expression":
          case "parenthesized_expression":
            collect(child)
            break
          case "redirected_statement":
          case "ternary_expression":
          case "postfix_expression":
            this.complex(`unsupported syntax in a test (${child.type})`)
            break
          default:
            words.push(resolveWord(child, this.source, this, mode))
        }
      }
    }
    collect(node)
    const close = node.child(node.childCount - 1)?.type
    if (close === "]" || close === "]]") words.push(literalFacts(close))
    const values = words.map((w) => (typeof w.value === "string" ? w.value : undefined))
    const arithmetic = values.some((v) => v !== undefined && ARITHMETIC_OPERATORS.has(v))
    if (arithmetic && open === "[[") {
      // [[ a -eq b ]] evaluates both sides as arithmetic, recursively through variable values.
      const operands = words.slice(1, -1).filter((w) =>
        typeof w.value !== "string" || !/^(?:-[a-z]{1,2}|[!()]|&&|\|\|)$/.test(w.value)
      )
      if (operands.some((w) => typeof w.value !== "string" || !INTEGER.test(w.value))) {
        this.complex("an arithmetic comparison on values bash evaluates")
      }
    }
    this.pushUnit(words, [], [], node.text, "test")
  }

  private arithmeticCommand(node: SyntaxNode): void {
    const literal = (n: SyntaxNode): boolean => {
      for (let i = 0; i < n.namedChildCount; i++) {
        const child = n.namedChild(i)!
        if (child.type === "number" && child.namedChildCount === 0) continue
        if (
          child.type === "binary_expression" || child.type === "unary_expression" ||
          child.type === "parenthesized_expression"
        ) {
          if (!literal(child)) return false
          continue
        }
        return false
      }
      return true
    }
    if (!literal(node)) {
      this.withComplexRegion("arithmetic with variables or substitutions", () => this.anyChildren(node))
      return
    }
    this.pushUnit([literalFacts("(("), literalFacts("))")], [], [], node.text, "test")
  }

  private forStatement(node: SyntaxNode): void {
    // Claude Code asks about the loop's variable before anything in its body.
    if (node.child(0)?.type === "for") this.concern("A variable in this command can't be checked before it runs")
    this.eachNamed(node, (child, field) => {
      if (field === "value") resolveWord(child, this.source, this)
      else if (field !== "variable") this.statement(child)
    })
  }

  private whileStatement(node: SyntaxNode): void {
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.isMissing) this.complex("an incomplete command")
      else if (!child.isNamed) this.token(child)
      else this.statement(child)
    }
  }

  private caseStatement(node: SyntaxNode): void {
    this.eachNamed(node, (child, field) => {
      if (field === "value") resolveWord(child, this.source, this, "test")
      else if (child.type === "case_item") {
        this.eachNamed(child, (part, partField) => {
          if (partField === "value") resolveWord(part, this.source, this, "test")
          else this.statement(part)
        })
      } else this.statement(child)
    })
  }

  private redirectedStatement(node: SyntaxNode): void {
    const redirects: Array<RedirectFacts> = []
    let body: SyntaxNode | null = null
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      const field = node.fieldNameForChild(i)
      if (field === "body") {
        body = child
        continue
      }
      if (REDIRECT_TYPES.has(child.type)) {
        redirects.push(this.redirect(child))
        continue
      }
      if (child.isMissing) this.complex("an incomplete redirection")
      if (child.isNamed) this.statement(child)
      else this.complex(`unsupported shell syntax (${child.type})`)
    }
    if (body !== null && body.type === "command") {
      this.command(body, redirects)
      return
    }
    if (body !== null) this.statement(body)
    this.pushUnit([], [], redirects, node.text, "redirect-only")
  }

  redirect(node: SyntaxNode): RedirectFacts {
    let op = ""
    let fd: number | undefined
    const targets: Array<SyntaxNode> = []
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      const field = node.fieldNameForChild(i)
      if (child.isMissing) this.complex("an incomplete redirection")
      if (!child.isNamed) {
        if (op === "") op = child.type
        continue
      }
      if (child.type === "file_descriptor") {
        fd = Number(child.text)
        continue
      }
      if (node.type === "heredoc_redirect") {
        this.heredocPart(child, field)
        continue
      }
      if (field === "destination" || node.type === "herestring_redirect") targets.push(child)
      else if (child.type === "ERROR") {
        this.state.rawScan = true
        this.withComplexRegion(SYNTAX_ERROR, () => this.anyChildren(child))
      } else this.complex(`unsupported syntax in a redirection (${child.type})`)
    }
    if (node.type === "heredoc_redirect") {
      this.heredocConcerns(node)
      const facts = literalFacts("<here-document>")
      return fd === undefined ? { op, target: facts.value, facts } : { op, fd, target: facts.value, facts }
    }
    if (targets.length > 1) this.complex("a redirection with several targets")
    const facts = targets.length === 0
      ? literalFacts(op.endsWith("-") ? "-" : "")
      : targets.length === 1
      ? resolveWord(targets[0]!, this.source, this, node.type === "herestring_redirect" ? "assignment" : "argument")
      : resolveJoinedWord(targets, this.source, this)
    if (op.endsWith("-") && op.length > 1) op = op.slice(0, -1)
    return fd === undefined ? { op, target: facts.value, facts } : { op, fd, target: facts.value, facts }
  }

  private heredocQuoted = false

  /**
   * What Claude Code will not read in a here-document: text after its start on the same line
   * (named by what it is), and a delimiter left unquoted (the body is expanded).
   */
  private heredocConcerns(node: SyntaxNode): void {
    const concerns = this.state.concerns
    if (concerns === undefined) return
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!
      if (child.type === "heredoc_start" && !/['"\\]/.test(child.text)) {
        concerns.push({ rank: 1, message: HEREDOC_UNQUOTED })
      }
    }
    const after = Array.from({ length: node.childCount }, (_, i) => node.child(i)!).find((child) =>
      !HEREDOC_PARTS.has(child.type)
    )
    if (after !== undefined) concerns.push({ rank: 0, message: afterHeredocStart(after) })
  }

  private heredocPart(child: SyntaxNode, field: string | null): void {
    switch (child.type) {
      case "heredoc_start":
        this.heredocQuoted = /['"\\]/.test(child.text)
        return
      case "heredoc_end":
        return
      case "heredoc_body":
        if (this.heredocQuoted) return
        this.unquotedHeredocBody(child)
        return
      default:
        if (REDIRECT_TYPES.has(child.type) || field === "redirect") {
          // `cat <<EOF > out`: the redirect belongs to the command; report it as its own unit.
          this.pushUnit([], [], [this.redirect(child)], child.text, "redirect-only")
          return
        }
        this.statement(child)
    }
  }

  private unquotedHeredocBody(body: SyntaxNode): void {
    let expands = false
    for (let i = 0; i < body.namedChildCount; i++) {
      const part = body.namedChild(i)!
      if (part.type === "heredoc_content") {
        if (/[$`]/.test(part.text.replace(/\\[\\$`]/g, ""))) expands = true
        continue
      }
      expands = true
      if (part.type === "command_substitution") this.substitution(part)
    }
    const text = body.text
    if (body.namedChildCount === 0 && /[$`]/.test(text.replace(/\\[\\$`]/g, ""))) expands = true
    if (!expands) return
    this.complex("expansions in an unquoted here-document")
    // The body is not always parsed (`<<-`): the raw-text deny scan applies as well.
    this.state.rawScan = true
    if (body.namedChildCount === 0) {
      for (const inner of dollarParenBodies(text)) {
        this.complexRegion++
        try {
          this.nestedScript(inner, this.depth + 1, "substitution")
        } finally {
          this.complexRegion--
        }
      }
    }
    // tree-sitter leaves backticks in the body as text; parse them so deny rules still see them.
    for (const match of text.matchAll(/`((?:[^`\\]|\\.)*)`/g)) {
      const inner = match[1]!.replace(/\\([\\$`])/g, "$1")
      this.complexRegion++
      try {
        this.nestedScript(inner, this.depth + 1, "substitution")
      } finally {
        this.complexRegion--
      }
    }
  }
}

/** Statements Claude Code does not read before they run, in its words. */
const constructConcern = (node: SyntaxNode): string | undefined => {
  switch (node.type) {
    case "subshell":
      return "This command uses shell operators that require approval for safety"
    case "compound_statement":
      return "A group in braces or double parentheses in this command can't be checked before it runs"
    case "case_statement":
      return "A case statement in this command can't be checked before it runs"
    case "function_definition":
      return "A function definition in this command can't be checked before it runs"
    case "for_statement":
      return node.child(0)?.type === "select"
        ? "select statement reads stdin into $REPLY; cannot statically model"
        : undefined
    default:
      return undefined
  }
}

/** A rank for concerns that only ask when nothing else in the command does (see check.ts). */
export const BACKGROUND_RANK = 9

const BACKGROUND =
  "This command uses the `&` background operator, which defers execution past approval-time safety checks. Approve only if you trust it."

/** Builtins that run text as shell code. */
const EVALUATES: ReadonlySet<string> = new Set(["eval", "exec", "alias", "source", ".", "coproc", "hash"])

/** A simple command Claude Code does not read before it runs, in its words. */
const commandConcern = (words: ReadonlyArray<WordFacts>, env: ReadonlyArray<EnvFacts>): string | undefined => {
  if (env.some((e) => e.name === "IFS")) return "IFS assignment changes word-splitting — cannot model statically"
  const name = words[0]?.value
  if (typeof name !== "string") return undefined
  if (EVALUATES.has(name)) return `'${name}' evaluates arguments as shell code`
  if (name === "env") {
    const split = words.slice(1).find((w) =>
      typeof w.value === "string" && /^(?:-S|--split-string(?:=|$))/.test(w.value)
    )
    if (typeof split?.value === "string") return `'env ${split.value}' can't be checked before it runs`
  }
  return undefined
}

const HEREDOC_PARTS: ReadonlySet<string> = new Set([
  "<<",
  "<<-",
  "heredoc_start",
  "heredoc_body",
  "heredoc_end",
  "file_descriptor"
])

const HEREDOC_UNQUOTED = "Heredoc with unquoted delimiter undergoes shell expansion"

/** Claude Code's words for what follows a here-document's start on its line. */
const afterHeredocStart = (node: SyntaxNode): string => {
  if (REDIRECT_TYPES.has(node.type)) return "A file redirect in this command can't be checked before it runs"
  if (node.type === "pipeline" || node.type === "|" || node.type === "|&") {
    return "A pipeline in this command can't be checked before it runs"
  }
  return "Text after the heredoc start on the same line cannot be statically analyzed"
}

/** The bodies of `$( … )` in text tree-sitter left unparsed (parentheses counted, quotes ignored). */
const dollarParenBodies = (text: string): Array<string> => {
  const bodies: Array<string> = []
  for (let i = text.indexOf("$("); i !== -1; i = text.indexOf("$(", i + 2)) {
    if (text[i + 2] === "(") continue // arithmetic
    let depth = 1
    let j = i + 2
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === "\\") j++
      else if (text[j] === "(") depth++
      else if (text[j] === ")") depth--
    }
    bodies.push(text.slice(i + 2, depth === 0 ? j - 1 : j))
  }
  return bodies
}

/** The extra arguments xargs and find -exec pass at run time. */
const RUNTIME_ARGS: WordFacts = {
  ...literalFacts("<arguments from input>"),
  value: { dynamic: true, text: "<arguments from input>" }
}
