/**
 * The vocabulary of option tables: what an option of a program does, whether it takes an
 * argument, and what a parse of a command's words found.
 */
import type { WordFacts } from "../words.js"

/**
 * What an option does when it is used:
 * - `flag`: a harmless switch; `value`: a harmless argument (a format, a number, a pattern, a name);
 * - `read`: its argument is a file the program reads; `readList`: a file of further file names
 *   (which reads cannot be known before the program runs);
 * - `write`: it writes a file (its argument, or files it names otherwise);
 * - `exec`: it runs a program; `network`: it talks to another host; `config`: it changes
 *   configuration or reads configuration that can run programs; `unsafe`: anything else that
 *   keeps the command from being read-only.
 */
export type OptionEffect = "flag" | "value" | "read" | "readList" | "write" | "exec" | "network" | "config" | "unsafe"

/** `none`: no argument; `required`: `--opt=v`, `--opt v`, `-ov`, `-o v`; `optional`: only attached (`--opt=v`, `-ov`). */
export type OptionArity = "none" | "required" | "optional"

export interface OptionSpec {
  /** The name rules and explanations use: the first long name, else the short one (`--output`, `-o`). */
  readonly id: string
  /** Every spelling, with dashes (`-o`, `--output`). */
  readonly names: ReadonlyArray<string>
  readonly arity: OptionArity
  readonly effect: OptionEffect
  /** Its argument is the pattern (grep -e/-f): the first operand is then a file, not the pattern. */
  readonly pattern: boolean
}

/**
 * How a program reads its options:
 * - `gnu`: getopt_long (unique prefixes of long options, exact match wins, permutation);
 * - `exact`: the same without abbreviations (clap, git's revision options);
 * - `git`: git's parse-options (unique prefixes, `--no-` negations).
 */
export type OptionStyle = "gnu" | "exact" | "git"

export interface OptionTable {
  readonly style: OptionStyle
  readonly specs: ReadonlyArray<OptionSpec>
  readonly short: ReadonlyMap<string, OptionSpec>
  /** Long names without their dashes. */
  readonly long: ReadonlyMap<string, OptionSpec>
  /** `-NUM` is an option (head -5, grep -3). */
  readonly numeric: boolean
  /** Options end at the first operand (no permutation). */
  readonly stopAtOperand: boolean
  /** Every effect some option of the table has. */
  readonly effects: ReadonlySet<OptionEffect>
  /** Some option does more than switch or take a harmless value (a glob that expands to it matters). */
  readonly risky: boolean
}

export interface OptionUse {
  readonly spec: OptionSpec
  /** `--no-x` of git: the option turned off. */
  readonly negated: boolean
  /** Its argument as a word of its own (the part after `=` or after the letter for attached values). */
  readonly value?: WordFacts
  /** Index of the word the option was written in. */
  readonly index: number
  /** The option as written (`--outp`, `-o`). */
  readonly written: string
}

export interface ParsedArgs {
  readonly uses: ReadonlyArray<OptionUse>
  readonly operands: ReadonlyArray<WordFacts>
  /** Why the arguments cannot be read exactly (unknown or ambiguous option, missing argument). */
  readonly problem?: string
  /** A word only known at run time stood where an option could be. */
  readonly dynamic: boolean
  /** Index of the `--` that ended the options, if any. */
  readonly endOfOptions?: number
  /** For each ambiguous abbreviation: the options it could stand for. */
  readonly ambiguous: ReadonlyArray<ReadonlyArray<OptionSpec>>
}

/** Effects that keep a command from being read-only. */
export const UNSAFE_EFFECTS: ReadonlySet<OptionEffect> = new Set([
  "readList",
  "write",
  "exec",
  "network",
  "config",
  "unsafe"
])

/** A record's own entry (never Object.prototype's: a command named `constructor` is not in a table). */
export const own = <V>(
  record: Readonly<Record<string, V>>,
  key: string
): V | undefined => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined)
