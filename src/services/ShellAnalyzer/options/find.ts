/**
 * find (findutils 4.9) reads its own way: `-H`/`-L`/`-P`/`-D x`/`-O n` first, then the starting
 * points, then an expression of single-dash predicates, each with a fixed number of arguments,
 * spelled out in full (no abbreviations, no clusters).
 */
import type { WordFacts } from "../words.js"
import { pathKnownOnlyAtRunTime } from "./paths.js"
import type { OptionEffect } from "./types.js"

interface Predicate {
  /** How many arguments follow. */
  readonly args: number
  readonly effect: OptionEffect
}

const p = (args: number, effect: OptionEffect = args === 0 ? "flag" : "value"): Predicate => ({ args, effect })

/** -exec/-execdir/-ok/-okdir are unwrapped in wrappers.ts (their command is a unit of its own). */
const PREDICATES: ReadonlyMap<string, Predicate> = new Map<string, Predicate>([
  // options
  ...[
    "-d",
    "-depth",
    "-help",
    "--help",
    "-ignore_readdir_race",
    "-mount",
    "-noignore_readdir_race",
    "-noleaf",
    "-version",
    "--version",
    "-xdev",
    "-warn",
    "-nowarn",
    "-daystart",
    "-follow"
  ].map((n) => [n, p(0)] as const),
  ["-maxdepth", p(1)],
  ["-mindepth", p(1)],
  ["-regextype", p(1)],
  ["-files0-from", p(1, "readList")],
  // tests
  ...[
    "-amin",
    "-atime",
    "-cmin",
    "-ctime",
    "-mmin",
    "-mtime",
    "-used",
    "-fstype",
    "-gid",
    "-group",
    "-uid",
    "-user",
    "-inum",
    "-links",
    "-perm",
    "-size",
    "-type",
    "-xtype",
    "-context"
  ].map((n) => [n, p(1)] as const),
  ...["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname"].map((
    n
  ) => [n, p(1)] as const),
  ...["-anewer", "-cnewer", "-newer", "-samefile"].map((n) => [n, p(1, "read")] as const),
  ...["-empty", "-executable", "-false", "-true", "-nogroup", "-nouser", "-readable", "-writable"].map((n) =>
    [n, p(0)] as const
  ),
  // actions
  ...["-print", "-print0", "-ls", "-prune", "-quit"].map((n) => [n, p(0)] as const),
  ["-printf", p(1)],
  ["-delete", p(0, "write")],
  ...["-fls", "-fprint", "-fprint0"].map((n) => [n, p(1, "write")] as const),
  ["-fprintf", p(2, "write")],
  ...["-exec", "-execdir", "-ok", "-okdir"].map((n) => [n, p(0, "exec")] as const),
  // operators
  ...["(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or"].map((n) => [n, p(0)] as const)
])

/** The first action of a find command that runs a program or writes a file (`-exec`, `-delete`, `-fprint`, …). */
export const firstFindAction = (words: ReadonlyArray<WordFacts>): string | undefined => {
  for (const word of words.slice(1)) {
    const effect = typeof word.value === "string" ? PREDICATES.get(word.value)?.effect : undefined
    if (effect === "exec" || effect === "write") return word.value as string
  }
  return undefined
}

/** `-newerXY REF`: Y = t takes a time, any other Y a file whose time is read. */
const NEWER_XY = /^-newer[aBcm]([aBcmt])$/

export interface FindReading {
  readonly problem?: string
  readonly unsafe?: string
  readonly roots: ReadonlyArray<WordFacts>
  readonly reads: ReadonlyArray<WordFacts>
}

const isExpressionStart = (v: string): boolean => v.startsWith("-") || v === "(" || v === "!" || v === ")" || v === ","

export const findReading = (words: ReadonlyArray<WordFacts>): FindReading => {
  const roots: Array<WordFacts> = []
  const reads: Array<WordFacts> = []
  let problem: string | undefined
  let unsafe: string | undefined
  let i = 1
  // -H -L -P -D debugopts -Olevel
  while (i < words.length) {
    const v = words[i]!.value
    if (v === "-H" || v === "-L" || v === "-P" || (typeof v === "string" && /^-O\d*$/.test(v))) i++
    else if (v === "-D") i += 2
    else break
  }
  while (i < words.length) {
    const v = words[i]!.value
    if (typeof v === "string" && isExpressionStart(v)) break
    roots.push(words[i]!)
    i++
  }
  for (; i < words.length; i++) {
    const word = words[i]!
    const v = word.value
    if (typeof v !== "string") {
      problem ??= "a find expression only known at run time"
      continue
    }
    const newer = NEWER_XY.exec(v)
    const predicate = newer !== null ? p(1, newer[1] === "t" ? "value" : "read") : PREDICATES.get(v)
    if (predicate === undefined) {
      problem ??= `the unknown find predicate ${v}`
      continue
    }
    if (predicate.effect === "exec") {
      unsafe ??= `find ${v} runs a command`
      // The command runs to its terminating ; or +.
      while (i + 1 < words.length && words[i + 1]!.value !== ";" && words[i + 1]!.value !== "+") i++
      i++
      continue
    }
    if (predicate.effect !== "flag" && predicate.effect !== "value" && predicate.effect !== "read") {
      unsafe ??= `find ${v} writes a file or reads a list of files`
    }
    if (i + predicate.args >= words.length) problem ??= `find ${v} without its argument`
    const value = words[i + 1]
    if ((predicate.effect === "read" || predicate.effect === "readList") && value !== undefined) reads.push(value)
    if (predicate.effect === "readList" && value !== undefined) {
      reads.push(pathKnownOnlyAtRunTime(value, `the files listed in ${value.raw}`))
    }
    i += predicate.args
  }
  return { ...(problem === undefined ? {} : { problem }), ...(unsafe === undefined ? {} : { unsafe }), roots, reads }
}
