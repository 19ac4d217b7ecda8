/**
 * Finding options that run programs, write files or change configuration in a command a prefix
 * rule allowed (`make test --ev=…`). Over-approximates where the table cannot tell: an
 * abbreviation that could stand for a dangerous option counts as it, an ambiguous one counts
 * when any candidate is dangerous, a long option the table does not know counts when it is the
 * start of a dangerous name, an unknown letter in a cluster is taken for a switch.
 */
import type { WordFacts } from "../words.js"
import { resolveLong } from "./table.js"
import type { OptionEffect, OptionSpec, OptionTable } from "./types.js"

export interface DangerousUse {
  readonly written: string
  readonly effect: OptionEffect
  /** Index of the word it was written in. */
  readonly index: number
  readonly value?: WordFacts
}

const dangerousNames = new WeakMap<
  OptionTable,
  WeakMap<ReadonlySet<OptionEffect>, ReadonlyArray<readonly [string, OptionSpec]>>
>()

/** The long names of a table with one of the effects (once per table and set of effects). */
const longNamesWith = (
  table: OptionTable,
  effects: ReadonlySet<OptionEffect>
): ReadonlyArray<readonly [string, OptionSpec]> => {
  let byEffects = dangerousNames.get(table)
  if (byEffects === undefined) dangerousNames.set(table, byEffects = new WeakMap())
  let names = byEffects.get(effects)
  if (names === undefined) {
    byEffects.set(
      effects,
      names = [...table.long].filter(([, spec]) => effects.has(spec.effect))
    )
  }
  return names
}

export interface ScanOptions {
  /** Options end at the first operand (npx, node, python: what follows belongs to the program run). */
  readonly stopAtOperand?: boolean
  /** Where to start (default 1). */
  readonly start?: number
}

/** The dangerous options in words[start…] (up to `--`). */
export const dangerousOptions = (
  table: OptionTable,
  words: ReadonlyArray<WordFacts>,
  effects: ReadonlySet<OptionEffect>,
  options: ScanOptions = {}
): ReadonlyArray<DangerousUse> => {
  const found: Array<DangerousUse> = []
  const dangerousLong = longNamesWith(table, effects)
  for (let i = options.start ?? 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (typeof text !== "string") continue
    if (text === "--") break
    if (text === "-" || !text.startsWith("-")) {
      if (options.stopAtOperand === true) break
      continue
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const name = eq === -1 ? text.slice(2) : text.slice(2, eq)
      const match = resolveLong(table, name)
      if (match.kind === "exact" || match.kind === "prefix") {
        if (!match.negated && effects.has(match.spec.effect)) {
          const value = eq !== -1
            ? { ...word, value: text.slice(eq + 1) }
            : match.spec.arity === "required"
            ? words[i + 1]
            : undefined
          found.push({
            written: `--${name}`,
            effect: match.spec.effect,
            index: i,
            ...(value === undefined ? {} : { value })
          })
        }
        if (eq === -1 && match.spec.arity === "required" && !match.negated) i++
        continue
      }
      const candidate = dangerousLong.find(([long]) => long.startsWith(name) && name.length > 0)
      if (candidate !== undefined) found.push({ written: `--${name}`, effect: candidate[1].effect, index: i })
      continue
    }
    for (let j = 1; j < text.length; j++) {
      const spec = table.short.get(text[j]!)
      if (spec === undefined) continue
      const rest = text.slice(j + 1)
      if (effects.has(spec.effect)) {
        const value = spec.arity === "none"
          ? undefined
          : rest.length > 0
          ? { ...word, value: rest }
          : spec.arity === "required"
          ? words[i + 1]
          : undefined
        found.push({ written: `-${text[j]}`, effect: spec.effect, index: i, ...(value === undefined ? {} : { value }) })
      }
      if (spec.arity === "none") continue
      if (rest.length === 0 && spec.arity === "required") i++
      break
    }
  }
  return found
}
