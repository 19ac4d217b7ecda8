/**
 * Shell builtins that only print or only set shell options: `set` with an exact list of options
 * that do not change how later commands are read or what they run, `read` into plain variables,
 * and `printf` with a literal format.
 */
import type { WordFacts } from "../words.js"

/** `set -e`, `set -u`, … : errexit, nounset, xtrace, verbose, noexec, noclobber, errtrace, noglob, notify, hashall, monitor, braceexpand, histexpand. */
const SET_LETTERS = new Set("euxvnCEfbhmBH")
const SET_NAMES = new Set([
  "errexit",
  "nounset",
  "xtrace",
  "verbose",
  "noexec",
  "noclobber",
  "errtrace",
  "noglob",
  "notify",
  "hashall",
  "monitor",
  "braceexpand",
  "histexpand",
  "pipefail"
])

/** Why `set ARGS` is not harmless; undefined when it is. */
export const setProblem = (words: ReadonlyArray<WordFacts>): string | undefined => {
  // Alone, set prints every variable: the environment's secrets too.
  if (words.length === 1) return "set without arguments prints every variable"
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v !== "string") return "set with arguments only known at run time"
    if (!/^[-+][A-Za-z]+$/.test(v)) return "set with positional parameters"
    let names = 0
    for (const ch of v.slice(1)) {
      if (ch === "o") names++
      else if (!SET_LETTERS.has(ch)) return `set ${v[0]}${ch} changes how commands are read or run`
    }
    // Each `o` of a cluster takes the next word as an option name (`set -euo pipefail`); without one, set lists the options.
    for (; names > 0 && i + 1 < words.length; names--) {
      const name = words[++i]!.value
      if (typeof name !== "string" || !SET_NAMES.has(name)) {
        return `set ${v[0]}o ${typeof name === "string" ? name : "…"} changes how commands are read or run`
      }
    }
  }
  return undefined
}

const READ_FLAGS = new Set("rs")
const READ_VALUED = new Set("adnNpt")
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Why `read ARGS` is not harmless (`isDangerous` judges variable names); undefined when it is. */
export const readProblem = (
  words: ReadonlyArray<WordFacts>,
  isDangerous: (name: string) => boolean
): string | undefined => {
  let names = false
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v !== "string") return "read with arguments only known at run time"
    if (!names && v === "--") {
      names = true
      continue
    }
    if (!names && v.startsWith("-") && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const ch = v[j]!
        if (READ_FLAGS.has(ch)) continue
        if (!READ_VALUED.has(ch)) return `read -${ch}`
        if (ch === "a") {
          const target = j + 1 < v.length ? v.slice(j + 1) : words[++i]?.value
          if (typeof target !== "string" || !NAME.test(target) || isDangerous(target)) {
            return "read into a variable that is not plain"
          }
        } else if (j + 1 === v.length) i++
        break
      }
      continue
    }
    names = true
    if (!NAME.test(v)) return `read into ${v}`
    if (isDangerous(v)) return `read into the shell variable ${v}`
  }
  return undefined
}

/** Why `printf ARGS` is not harmless: `-v` assigns, and a format only known at run time could be `-v`. */
export const printfProblem = (words: ReadonlyArray<WordFacts>): string | undefined => {
  let i = 1
  let format = words[i]?.value
  if (format === "--") format = words[++i]?.value
  if (format === undefined) return undefined
  if (typeof format !== "string") return "printf with a format only known at run time"
  if (format.startsWith("-") && format !== "-" && i === 1) {
    return `printf ${format} assigns a variable or is not an option printf knows`
  }
  return undefined
}
