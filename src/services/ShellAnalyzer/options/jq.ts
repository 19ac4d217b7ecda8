/**
 * jq 1.6 reads its own options: long names by exact match, one-letter flags that stack (`-rc`),
 * `-L DIR`/`-LDIR`; the first operand is the program (with `-f`, the file holding it), the
 * others are input files (strings or JSON texts after `--args`/`--jsonargs`).
 */
import type { WordFacts } from "../words.js"

const FLAGS = new Set("srjacCMSRnfehV")
const LONG_FLAGS = new Set([
  "--slurp",
  "--raw-output",
  "--join-output",
  "--ascii-output",
  "--tab",
  "--compact-output",
  "--color-output",
  "--monochrome-output",
  "--sort-keys",
  "--raw-input",
  "--null-input",
  "--from-file",
  "--exit-status",
  "--seq",
  "--stream",
  "--unbuffered",
  "--debug-dump-disasm",
  "--debug-trace",
  "--help",
  "--version"
])
/** name and value: harmless. */
const NAMED_VALUES = new Set(["--arg", "--argjson"])
/** name and file: the file is read. */
const NAMED_FILES = new Set(["--slurpfile", "--rawfile", "--argfile"])

/** Builtins and directives that read module files from the search path. */
const MODULE_READS = /\b(?:import|include|modulemeta|get_search_list)\b/

export interface JqReading {
  readonly problem?: string
  readonly reads: ReadonlyArray<WordFacts>
  /** `-f` (the program comes from a file) or `-L` (modules from other directories). */
  readonly loadsCode: boolean
}

export const jqReading = (words: ReadonlyArray<WordFacts>): JqReading => {
  const reads: Array<WordFacts> = []
  let problem: string | undefined
  const fail = (why: string) => {
    problem ??= why
  }
  let program: WordFacts | undefined
  let fromFile = false
  let positionalStrings = false
  let moduleDirs = false
  let done = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const v = word.value
    if (typeof v !== "string") {
      if (!word.procSub) fail("jq with arguments only known at run time")
      if (program === undefined) program = word
      else if (!positionalStrings) reads.push(word)
      continue
    }
    if (!done && v.startsWith("-") && v.length > 1) {
      if (v === "--") {
        done = true
        continue
      }
      if (v.startsWith("--")) {
        if (v === "--from-file") fromFile = true
        if (v === "--args" || v === "--jsonargs") positionalStrings = true
        else if (v === "--indent") i++
        else if (NAMED_VALUES.has(v)) i += 2
        else if (NAMED_FILES.has(v)) {
          if (words[i + 2] !== undefined) reads.push(words[i + 2]!)
          else fail(`jq ${v} without its file`)
          i += 2
        } else if (v === "--run-tests") fail("jq --run-tests reads a test file")
        else if (!LONG_FLAGS.has(v)) fail(`the unknown jq option ${v}`)
        continue
      }
      if (v[1] === "L") {
        moduleDirs = true
        fail("jq -L searches other directories for modules")
        if (v.length === 2) i++
        continue
      }
      for (const ch of v.slice(1)) {
        if (!FLAGS.has(ch)) fail(`the unknown jq option -${ch}`)
        if (ch === "f") fromFile = true
      }
      continue
    }
    if (program === undefined) program = word
    else if (!positionalStrings) reads.push(word)
  }
  if (fromFile) {
    fail("jq -f runs a program from a file")
    if (program !== undefined) reads.push(program)
  } else if (program !== undefined && typeof program.value === "string" && MODULE_READS.test(program.value)) {
    fail("a jq program that reads modules")
  }
  return { ...(problem === undefined ? {} : { problem }), reads, loadsCode: fromFile || moduleDirs }
}
