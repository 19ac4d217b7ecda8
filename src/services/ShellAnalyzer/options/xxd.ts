/**
 * xxd (2022-01-14) reads each option by its first two characters (`-cols` is `-c`, `--r` is
 * `-r`); options end at the first operand. `-r` turns a dump back into a file: it writes.
 */
import type { WordFacts } from "../words.js"
import { own } from "./types.js"

/** Options that take a value, with the rest of their long spelling (`-cols N`, `-c N`, `-c8`). */
const VALUED: Readonly<Record<string, ReadonlyArray<string>>> = {
  "-c": ["ols", "apitalize"],
  "-g": ["roup"],
  "-o": ["ffset"],
  "-s": ["eek", "kip"],
  "-l": ["en"],
  "-n": ["ame"]
}
const FLAGS = new Set(["-a", "-b", "-e", "-u", "-p", "-i", "-C", "-d", "-E", "-v", "-h"])

export interface XxdReading {
  readonly problem?: string
  readonly operands: ReadonlyArray<WordFacts>
}

export const xxdReading = (words: ReadonlyArray<WordFacts>): XxdReading => {
  let i = 1
  for (; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v !== "string") return { problem: "xxd with arguments only known at run time", operands: [] }
    if (!v.startsWith("-") || v === "-") break
    const pp = v.startsWith("--") && v.length > 2 ? v.slice(1) : v
    if (pp === "--") {
      i++
      break
    }
    const key = pp.slice(0, 2)
    if (key === "-r") return { problem: "xxd -r writes a file from a dump", operands: [] }
    const longRest = own(VALUED, key)
    if (longRest !== undefined) {
      if (key === "-c" && pp.slice(2).startsWith("apitalize")) continue
      const attached = pp.length > 2 && !longRest.some((r) => pp.slice(2).startsWith(r))
      if (!attached) i++
      continue
    }
    if (!FLAGS.has(key)) return { problem: `the unknown xxd option ${v}`, operands: [] }
  }
  return { operands: words.slice(i) }
}
