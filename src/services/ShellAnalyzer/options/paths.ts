/**
 * Words that name files read by a command, built from option values and operands, and the
 * marker for a file the command reads that cannot be named before it runs.
 */
import type { WordFacts } from "../words.js"
import type { OptionUse, ParsedArgs } from "./types.js"

const unknownPaths = new WeakSet<WordFacts>()

/**
 * A file read that cannot be named before the command runs (git pathspec globs, file names xargs
 * passes): only a Read deny rule could be reached through it, so it asks only while such rules
 * exist (check.ts).
 */
export const pathKnownOnlyAtRunTime = (word: WordFacts, text = word.raw): WordFacts => {
  const marker: WordFacts = {
    ...word,
    value: { dynamic: true, text },
    unquotedGlob: false,
    tilde: false,
    procSub: false
  }
  unknownPaths.add(marker)
  return marker
}

/** Is this a marker made by pathKnownOnlyAtRunTime? */
export const mattersOnlyUnderDenyRules = (word: WordFacts): boolean => unknownPaths.has(word)

/** A path word for a value inside another word (`HEAD:path`): the value replaced, the rest kept. */
export const pathPart = (word: WordFacts, value: string): WordFacts => ({
  ...word,
  value: value.startsWith("~") ? `./${value}` : value,
  tilde: false,
  globAfterExpansion: false
})

/** The values of the options of a parse that read files (`--file=X`, `-f X`). */
export const readValues = (
  parsed: ParsedArgs,
  split?: (use: OptionUse) => ReadonlyArray<string> | undefined
): Array<WordFacts> => {
  const out: Array<WordFacts> = []
  for (const use of parsed.uses) {
    if (use.negated || (use.spec.effect !== "read" && use.spec.effect !== "readList") || use.value === undefined) {
      continue
    }
    const parts = typeof use.value.value === "string" ? split?.(use) : undefined
    if (parts === undefined) out.push(use.value)
    else for (const part of parts) if (part.length > 0) out.push(pathPart(use.value, part))
    // The files a list names are only known when the program reads it.
    if (use.spec.effect === "readList") {
      out.push(pathKnownOnlyAtRunTime(use.value, `the files listed in ${use.value.raw}`))
    }
  }
  return out
}
