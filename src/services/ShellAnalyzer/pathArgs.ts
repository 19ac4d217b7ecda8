/**
 * Path arguments of the file commands the checker recognises (Read/Edit
 * deny rules apply to them; acceptEdits approves `mkdir touch rm rmdir mv cp sed` in scope).
 */
import { parseSedArgs } from "./sedScript.js"
import type { Unit } from "./units.js"
import type { WordFacts } from "./words.js"
import { commandKey } from "./wrappers.js"
import { memoByUnit } from "./memo.js"

export interface FilePaths {
  readonly reads: ReadonlyArray<WordFacts>
  readonly writes: ReadonlyArray<WordFacts>
}

/** Commands acceptEdits approves when every path is inside the working directories. */
export const ACCEPT_EDITS_COMMANDS: ReadonlySet<string> = new Set(["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"])

/** Commands that write the files they are given (plan mode prompts for them). */
export const FILE_WRITERS: ReadonlySet<string> = new Set([
  "mkdir",
  "touch",
  "rm",
  "rmdir",
  "mv",
  "cp",
  "tee",
  "ln",
  "truncate",
  "install",
  "chmod",
  "chown",
  "chgrp",
  "dd",
  "shred",
  "unlink",
  "rsync"
])

interface Layout {
  /** Short options taking a value, and the long ones (`--x v` form). */
  readonly shortValues: string
  readonly longValues: ReadonlyArray<string>
}

const split = (
  words: ReadonlyArray<WordFacts>,
  layout: Layout
): { operands: Array<WordFacts>; values: Map<string, Array<WordFacts>> } => {
  const operands: Array<WordFacts> = []
  const values = new Map<string, Array<WordFacts>>()
  const addValue = (name: string, w: WordFacts | undefined) => {
    if (w === undefined) return
    const list = values.get(name) ?? []
    list.push(w)
    values.set(name, list)
  }
  let done = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    const v = typeof w.value === "string" ? w.value : undefined
    if (done || v === undefined || !v.startsWith("-") || v === "-") {
      operands.push(w)
      continue
    }
    if (v === "--") {
      done = true
      continue
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=")
      const name = eq === -1 ? v : v.slice(0, eq)
      if (eq !== -1) addValue(name, { ...w, value: v.slice(eq + 1) })
      else if (layout.longValues.includes(name)) addValue(name, words[++i])
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!
      if (layout.shortValues.includes(ch)) {
        const rest = v.slice(j + 1)
        addValue(`-${ch}`, rest.length > 0 ? { ...w, value: rest } : words[++i])
        break
      }
    }
  }
  return { operands, values }
}

const NO_VALUES: Layout = { shortValues: "", longValues: [] }

/** The paths a file command reads and writes; undefined for commands that are not file commands. */
export const filePaths = memoByUnit((unit: Unit): FilePaths | undefined => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string" || unit.role === "test") return undefined
  const key = commandKey(argv0)
  const words = unit.words
  switch (key) {
    case "rm":
    case "rmdir":
    case "unlink":
    case "shred":
      return { reads: [], writes: split(words, NO_VALUES).operands }
    case "mkdir":
      return { reads: [], writes: split(words, { shortValues: "mZ", longValues: ["--mode", "--context"] }).operands }
    case "touch": {
      const { operands, values } = split(words, { shortValues: "dtr", longValues: ["--date", "--reference", "--time"] })
      return { reads: [...(values.get("-r") ?? []), ...(values.get("--reference") ?? [])], writes: operands }
    }
    case "truncate": {
      const { operands, values } = split(words, { shortValues: "sr", longValues: ["--size", "--reference"] })
      return { reads: [...(values.get("-r") ?? []), ...(values.get("--reference") ?? [])], writes: operands }
    }
    case "tee":
      return { reads: [], writes: split(words, NO_VALUES).operands }
    case "mv":
    case "cp":
    case "install":
    case "ln": {
      const { operands, values } = split(words, {
        shortValues: key === "install" ? "tSmogT" : "tS",
        longValues: ["--target-directory", "--suffix", "--mode", "--owner", "--group"]
      })
      const target = [...(values.get("-t") ?? []), ...(values.get("--target-directory") ?? [])]
      if (target.length > 0) {
        return { reads: key === "mv" ? [] : operands, writes: key === "mv" ? [...operands, ...target] : target }
      }
      if (operands.length === 0) return { reads: [], writes: [] }
      const dest = operands[operands.length - 1]!
      const sources = operands.slice(0, -1)
      if (key === "mv") return { reads: [], writes: operands }
      if (key === "ln") return { reads: [], writes: [dest] }
      return { reads: sources, writes: [dest] }
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const { operands, values } = split(words, { shortValues: "", longValues: ["--reference", "--from"] })
      const hasReference = values.has("--reference")
      return { reads: values.get("--reference") ?? [], writes: hasReference ? operands : operands.slice(1) }
    }
    case "dd": {
      const reads: Array<WordFacts> = []
      const writes: Array<WordFacts> = []
      for (const w of words.slice(1)) {
        const v = typeof w.value === "string" ? w.value : w.raw
        if (v.startsWith("if=")) reads.push({ ...w, value: typeof w.value === "string" ? w.value.slice(3) : w.value })
        if (v.startsWith("of=")) writes.push({ ...w, value: typeof w.value === "string" ? w.value.slice(3) : w.value })
      }
      return { reads, writes }
    }
    case "sort": {
      const { operands, values } = split(words, {
        shortValues: "oTkStz",
        longValues: [
          "--output",
          "--key",
          "--field-separator",
          "--buffer-size",
          "--temporary-directory",
          "--parallel",
          "--batch-size",
          "--sort",
          "--random-source",
          "--compress-program",
          "--files0-from"
        ]
      })
      return { reads: operands, writes: [...(values.get("-o") ?? []), ...(values.get("--output") ?? [])] }
    }
    case "sed": {
      const sed = parseSedArgs(words)
      return sed.inPlace
        ? { reads: [...sed.scriptFiles], writes: sed.files }
        : { reads: [...sed.scriptFiles, ...sed.files], writes: [] }
    }
    default:
      return undefined
  }
})
