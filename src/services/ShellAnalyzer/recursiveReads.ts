/**
 * Commands that read the contents of every file under a directory (`grep -r`, `rg`, `git grep`,
 * `diff -r`) or of a repository's history (`git log -p`, `git show`, `git cat-file`). A Read deny
 * rule names files, not directories or objects, so such a read can reach a denied file without
 * naming it: while deny rules name paths, these commands are not approved by themselves.
 */
import type { Unit } from "./units.js"
import { commandKey } from "./wrappers.js"

const GREPS = new Set(["grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep"])

const literalArgs = (unit: Unit): ReadonlyArray<string | undefined> =>
  unit.argv.slice(1).map((w) => (typeof w === "string" ? w : undefined))

/** A short-option cluster (`-rn`) holding one of `letters`, up to the first letter that takes a value. */
const clusterHas = (arg: string, letters: string, valueLetters: string): boolean => {
  if (!arg.startsWith("-") || arg.startsWith("--")) return false
  for (const ch of arg.slice(1)) {
    if (letters.includes(ch)) return true
    if (valueLetters.includes(ch)) return false
  }
  return false
}

const grepRecursive = (args: ReadonlyArray<string | undefined>): boolean => {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === undefined) return true
    if (a === "--") return false
    if (
      /^--(?:r|re|rec|recu|recur|recurs|recursi|recursiv|recursive|d|de|der|dere|deref|derefe|derefer|derefere|dereferen|dereferenc|dereference|dereference-|dereference-r\w*)$/
        .test(a)
    ) return true
    if (
      /^--dir\w*=rec/.test(a) || ((a === "-d" || /^--dir\w*$/.test(a)) && args[i + 1]?.startsWith("rec") === true) ||
      /^-[^-]*d\s*rec/.test(a)
    ) return true
    if (clusterHas(a, "rR", "efmABCDd")) return true
  }
  return false
}

/** git subcommands that print file contents from the repository or its history. */
const GIT_CONTENTS = new Set([
  "grep",
  "show",
  "cat-file",
  "archive",
  "format-patch",
  "diff",
  "diff-tree",
  "diff-index",
  "diff-files",
  "range-diff"
])
const GIT_HISTORY = new Set(["log", "whatchanged", "reflog"])
const PATCH =
  /^(?:-p|-u|-U\d*|--patch\w*|--cc|-c|--full-diff|--unified(?:=\d+)?|-W|--function-context|--textconv|--ext-diff)$|^-[A-Za-z]*p[A-Za-z]*$/
const NAMES_ONLY =
  /^(?:--stat\b.*|--shortstat|--numstat|--name-only|--name-status|--summary|--dirstat\b.*|--quiet|--exit-code|-s|--no-patch)$/

/**
 * Does a git command print file contents? (A pathspec may name a directory, and a revision holds
 * every file it ever had, so the paths it names do not bound what it prints.)
 */
const gitPrintsContents = (args: ReadonlyArray<string | undefined>): boolean => {
  const sub = args.find((a) => a !== undefined && !a.startsWith("-"))
  if (sub === undefined) return false
  const rest = args.slice(args.indexOf(sub) + 1)
  const literal = rest.filter((a): a is string => a !== undefined)
  if (sub === "stash") return rest[0] === "show" && literal.some((a) => PATCH.test(a))
  if (GIT_HISTORY.has(sub)) return literal.some((a) => PATCH.test(a))
  if (!GIT_CONTENTS.has(sub)) return false
  if (sub === "grep" || sub === "cat-file" || sub === "archive" || sub === "format-patch") return true
  const options = literal.filter((a) => a.startsWith("-"))
  return options.length === 0 || !options.every((a) => NAMES_ONLY.test(a))
}

/** Does the unit read every file under some directory, or a repository's contents? */
export const readsRecursively = (unit: Unit): boolean => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string" || unit.role !== "plain") return false
  const key = commandKey(argv0)
  const args = literalArgs(unit)
  if (GREPS.has(key)) return grepRecursive(args)
  if (key === "rg" || key === "ripgrep") {
    return !args.some((a) =>
      a === "--files" || a === "--type-list" || a === "--version" || a === "-V" || a === "--help" || a === "-h"
    )
  }
  if (key === "git") return gitPrintsContents(args)
  if (key === "diff") return args.some((a) => a === undefined || /^--r\w*$/.test(a) || clusterHas(a, "r", "CUFIxXLSW"))
  return false
}
