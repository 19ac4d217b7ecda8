/**
 * The analyzer's internal view of a command: each simple command ("unit") with the facts the
 * checks need beyond the public SimpleCommand.
 */
import type { Redirect, SimpleCommand, Word } from "./types.js"
import type { WordFacts } from "./words.js"

/**
 * How a unit takes part in the decision:
 * - `plain`: an ordinary command; must be allowed by a rule, be read-only or be mode-approved.
 * - `transparent`: a wrapper whose inner command is its own unit (`timeout 5 x`); needs no approval itself.
 * - `exec`: a wrapper that must be allowed itself as well as its inner unit (`sudo x`, `xargs -n1 x`, `find -exec`).
 * - `nested-shell`: `bash -c LITERAL` / `eval LITERAL`; its inner commands are units; needs no approval itself.
 * - `assignment`: a bare `x=1` statement (argv empty).
 * - `redirect-only`: redirections of a compound statement or a bare `> file` (argv empty).
 * - `test`: a `[ ]` / `[[ ]]` / `(( ))` expression.
 */
export type UnitRole = "plain" | "transparent" | "exec" | "nested-shell" | "assignment" | "redirect-only" | "test"

export interface EnvFacts {
  readonly name: string
  readonly value: Word
  readonly raw: string
}

export interface Unit extends SimpleCommand {
  readonly words: ReadonlyArray<WordFacts>
  readonly envFacts: ReadonlyArray<EnvFacts>
  readonly role: UnitRole
  /** Walk order; a unit after a `cd` has a larger order. */
  readonly order: number
  /** Nesting depth through wrappers, nested shells and substitutions. */
  readonly depth: number
  /** Found inside a region the walker could not fully resolve. */
  readonly inComplexRegion: boolean
  /**
   * Set on exec wrappers and `find` actions that only an exact rule may approve
   * (as in Claude Code: watch, setsid, ionice, flock, find -exec/-delete).
   */
  readonly exactRuleOnly?: string
  /** The inner command of an xargs/find -exec gets arguments at run time. */
  readonly runtimeArgs?: boolean
  /** Index (in Analysis.units) of the wrapper or nested shell this unit runs inside. */
  readonly parent?: number
  /** Part of a pipeline (`a | b`). */
  readonly piped?: boolean
}

export interface Analysis {
  readonly command: string
  readonly units: ReadonlyArray<Unit>
  /** Why the command is too complex; empty when it is fully analysed. */
  readonly complexReasons: ReadonlyArray<string>
  /**
   * Expansions that did not make the command too complex (their values only reach commands that
   * print them, like `echo $PATH`); they still word the prompt when something else asks.
   */
  readonly notes: ReadonlyArray<string>
  /** Hygiene or parsing failed (or the tree has errors): the raw-text deny scan applies. */
  readonly rawScan: boolean
  /** Constructs Claude Code will not read statically (see ReadingConcern); each one asks. */
  readonly concerns?: ReadonlyArray<ReadingConcern>
}

/**
 * Something in the text that Claude Code refuses to read before it runs, although bash reads it
 * well: it asks (outside bypassPermissions and a tool-wide Bash allow) with `message`. The lowest
 * `rank` is the one named.
 */
export interface ReadingConcern {
  readonly rank: number
  readonly message: string
}

export const wordText = (word: Word): string => (typeof word === "string" ? word : word.text)

export const redirectIsFdDup = (redirect: Redirect): boolean =>
  (redirect.op === ">&" || redirect.op === "<&") && typeof redirect.target === "string" &&
  /^(?:\d+|-)$/.test(redirect.target)
