/**
 * Reads a command's words against its option table the way the program will: GNU getopt_long
 * (short clusters `-abc`, attached `-ovalue` or separate `-o value`, `--opt=v` / `--opt v`,
 * optional arguments only attached, unique prefixes of long options with an exact name winning,
 * permutation: options after operands still count, `--` ends options, `-` is an operand), the
 * same without abbreviations (`exact`), or git's parse-options (`git`: `--no-` negations).
 */
import type { WordFacts } from "../words.js"
import { resolveLong } from "./table.js"
import type { OptionSpec, OptionTable, OptionUse, ParsedArgs } from "./types.js"

const GLOB_CHARS = /[*?[]/

/** A word for an option's argument taken from inside another word (`--file=X`, `-fX`): its X part. */
export const attachedValue = (word: WordFacts, value: string): WordFacts => ({
  ...word,
  // `~` is not expanded inside `--opt=~/x` or `-o~/x`: the value is a relative path starting with `~`.
  value: value.startsWith("~") ? `./${value}` : value,
  tilde: false,
  unquotedGlob: word.unquotedGlob && GLOB_CHARS.test(value),
  globAfterExpansion: false
})

interface Builder {
  readonly uses: Array<OptionUse>
  readonly ambiguous: Array<ReadonlyArray<OptionSpec>>
  readonly operands: Array<WordFacts>
  problem?: string
  dynamic: boolean
  endOfOptions?: number
}

const finish = (b: Builder): ParsedArgs => ({
  uses: b.uses,
  ambiguous: b.ambiguous,
  operands: b.operands,
  dynamic: b.dynamic,
  ...(b.problem === undefined ? {} : { problem: b.problem }),
  ...(b.endOfOptions === undefined ? {} : { endOfOptions: b.endOfOptions })
})

const fail = (b: Builder, problem: string) => {
  b.problem ??= problem
}

/**
 * Parses `words[start…]` with the table. Words only known at run time count as operands and set
 * `dynamic` when they stand where an option could be.
 */
export const parseArgs = (
  table: OptionTable,
  words: ReadonlyArray<WordFacts>,
  start = 1,
  end = words.length
): ParsedArgs => {
  const b: Builder = { uses: [], ambiguous: [], operands: [], dynamic: false }
  let optionsDone = false
  for (let i = start; i < end; i++) {
    const word = words[i]!
    const text = word.value
    if (typeof text !== "string") {
      if (!optionsDone && !word.procSub) b.dynamic = true
      b.operands.push(word)
      if (table.stopAtOperand) optionsDone = true
      continue
    }
    if (optionsDone || text === "-" || !text.startsWith("-")) {
      b.operands.push(word)
      if (table.stopAtOperand) optionsDone = true
      continue
    }
    if (text === "--") {
      optionsDone = true
      b.endOfOptions = i
      continue
    }
    if (text.startsWith("--")) {
      i = longOption(table, words, i, end, text, b)
      continue
    }
    i = shortCluster(table, words, i, end, text, b)
  }
  return finish(b)
}

const takeNext = (
  words: ReadonlyArray<WordFacts>,
  i: number,
  end: number
): WordFacts | undefined => (i + 1 < end ? words[i + 1] : undefined)

const longOption = (
  table: OptionTable,
  words: ReadonlyArray<WordFacts>,
  i: number,
  end: number,
  text: string,
  b: Builder
): number => {
  const word = words[i]!
  const eq = text.indexOf("=")
  const name = eq === -1 ? text.slice(2) : text.slice(2, eq)
  const match = resolveLong(table, name)
  if (match.kind === "unknown") {
    fail(b, `the unknown option --${name}`)
    return i
  }
  if (match.kind === "ambiguous") {
    fail(b, `the ambiguous option --${name} (${match.candidates.map((c) => c.id).join(", ")})`)
    b.ambiguous.push(match.candidates)
    return i
  }
  const spec = match.spec
  // The program would take it for the one option it abbreviates, but Claude Code asks about an
  // abbreviation, and a newer version of the program may read it as another option.
  if (match.kind === "prefix") fail(b, `the abbreviated option --${name}`)
  const use = (value: WordFacts | undefined) =>
    b.uses.push({
      spec,
      negated: match.negated,
      index: i,
      written: `--${name}`,
      ...(value === undefined ? {} : { value })
    })
  if (match.negated || spec.arity === "none") {
    if (eq !== -1) fail(b, `--${name} takes no argument`)
    use(undefined)
    return i
  }
  if (eq !== -1) {
    use(attachedValue(word, text.slice(eq + 1)))
    return i
  }
  if (spec.arity === "optional") {
    use(undefined)
    return i
  }
  const next = takeNext(words, i, end)
  if (next === undefined) {
    fail(b, `--${name} without its argument`)
    use(undefined)
    return i
  }
  use(next)
  return i + 1
}

const shortCluster = (
  table: OptionTable,
  words: ReadonlyArray<WordFacts>,
  i: number,
  end: number,
  text: string,
  b: Builder
): number => {
  const word = words[i]!
  if (table.numeric && /^-\d+$/.test(text)) return i
  let digits = false
  for (let j = 1; j < text.length; j++) {
    const letter = text[j]!
    const spec: OptionSpec | undefined = table.short.get(letter)
    if (spec === undefined) {
      if (table.numeric && /\d/.test(letter)) {
        // `-n5` style digits after a cluster (grep -A2 is -A with 2; -2 alone is the context).
        while (j + 1 < text.length && /\d/.test(text[j + 1]!)) j++
        digits = true
        continue
      }
      fail(b, `the unknown option -${letter}`)
      return i
    }
    const written = `-${letter}`
    if (spec.arity === "none") {
      b.uses.push({ spec, negated: false, index: i, written })
      continue
    }
    if (digits) {
      // `head -5c FILE`: the old `-NUMc` form, read differently by each program.
      fail(b, `${text} mixes a number with an option that takes an argument`)
      return i
    }
    const rest = text.slice(j + 1)
    if (rest.length > 0) {
      b.uses.push({ spec, negated: false, index: i, written, value: attachedValue(word, rest) })
      return i
    }
    if (spec.arity === "optional") {
      b.uses.push({ spec, negated: false, index: i, written })
      return i
    }
    const next = takeNext(words, i, end)
    if (next === undefined) {
      fail(b, `${written} without its argument`)
      b.uses.push({ spec, negated: false, index: i, written })
      return i
    }
    b.uses.push({ spec, negated: false, index: i, written, value: next })
    return i + 1
  }
  return i
}

/** The uses whose effect is one of these. */
export const usesWith = (parsed: ParsedArgs, effects: ReadonlySet<string>): ReadonlyArray<OptionUse> =>
  parsed.uses.filter((u) => !u.negated && effects.has(u.spec.effect))
