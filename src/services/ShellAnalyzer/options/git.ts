/**
 * Which git commands are read-only (git 2.39), read with git's own option rules, and which files
 * they read: pathspecs, `REV:path` objects, `--no-index` and two paths outside a repository,
 * option values that are files. Paths inside `REV:path` are relative to the repository's top;
 * they are checked relative to the current directory (Read deny rules without a leading `/`
 * match at any depth either way).
 */
import type { WordFacts } from "../words.js"
import { parseArgs } from "./parse.js"
import { mattersOnlyUnderDenyRules, pathKnownOnlyAtRunTime, pathPart, readValues } from "./paths.js"
import * as G from "./tables/git.js"
import { own, UNSAFE_EFFECTS, type OptionTable, type ParsedArgs } from "./types.js"

export interface GitReading {
  /** Why it is not read-only; undefined when it is. */
  readonly reason?: string
  /** Files it reads, for the Read deny rules (markers for files only known at run time). */
  readonly reads: ReadonlyArray<WordFacts>
  /** Files it reads, for the working directories (markers left out, their directories in). */
  readonly within: ReadonlyArray<WordFacts>
}

type Operands = "content" | "names"

interface GitCommand {
  readonly table: OptionTable
  /** `content`: operands are revisions and paths whose contents are shown; `names`: they name no file contents. */
  readonly operands: Operands
  /** The first operand is the pattern (git grep without -e/-f). */
  readonly pattern?: boolean
  /** Extra conditions on the parsed arguments. */
  readonly check?: (parsed: ParsedArgs) => string | undefined
}

const listOnly = (what: string) => (parsed: ParsedArgs): string | undefined => {
  const listing = parsed.uses.some((u) =>
    u.spec.id === "--list" || u.spec.id === "--contains" || u.spec.id === "--merged" || u.spec.id === "--points-at" ||
    u.spec.id === "--no-contains" || u.spec.id === "--no-merged"
  )
  return parsed.operands.length > 0 && !listing ? `git ${what} with a name creates or changes a ${what}` : undefined
}

/** Only an explicit read (`--get`, `--list`) is read-only: Claude Code asks about `git config name` too. */
const configCheck = (parsed: ParsedArgs): string | undefined =>
  parsed.uses.some((u) =>
      ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "--get-color", "--get-colorbool"].includes(
        u.spec.id
      )
    )
    ? undefined
    : "git config without --get or --list"

const COMMANDS: Readonly<Record<string, GitCommand>> = {
  status: { table: G.status, operands: "names" },
  log: { table: G.logFamily, operands: "content" },
  show: { table: G.logFamily, operands: "content" },
  whatchanged: { table: G.logFamily, operands: "content" },
  "rev-list": { table: G.logFamily, operands: "names" },
  "diff-tree": { table: G.logFamily, operands: "content" },
  "diff-files": { table: G.logFamily, operands: "content" },
  "diff-index": { table: G.diff, operands: "content" },
  diff: { table: G.diff, operands: "content" },
  shortlog: { table: G.shortlog, operands: "names" },
  blame: { table: G.blame, operands: "content" },
  annotate: { table: G.blame, operands: "content" },
  describe: { table: G.describe, operands: "names" },
  grep: { table: G.grep, operands: "content", pattern: true },
  "ls-files": { table: G.lsFiles, operands: "names" },
  "ls-tree": { table: G.lsTree, operands: "names" },
  "cat-file": { table: G.catFile, operands: "content" },
  "for-each-ref": { table: G.forEachRef, operands: "names" },
  "name-rev": { table: G.nameRev, operands: "names" },
  "show-ref": { table: G.showRef, operands: "names" },
  "check-ignore": { table: G.checkIgnore, operands: "names" },
  "check-attr": { table: G.checkAttr, operands: "names" },
  "count-objects": {
    table: G.countObjects,
    operands: "names",
    check: (p) => (p.operands.length > 0 ? "git count-objects takes no operands" : undefined)
  },
  "merge-base": { table: G.mergeBase, operands: "names" },
  "show-branch": { table: G.showBranch, operands: "names" },
  cherry: { table: G.cherry, operands: "names" },
  "symbolic-ref": {
    table: G.symbolicRef,
    operands: "names",
    check: (p) => (p.operands.length === 1 ? undefined : "git symbolic-ref with a value changes a ref")
  },
  branch: { table: G.branch, operands: "names", check: listOnly("branch") },
  tag: { table: G.tag, operands: "names", check: listOnly("tag") },
  config: { table: G.config, operands: "names", check: configCheck },
  var: { table: G.varTable, operands: "names" },
  version: {
    table: G.varTable,
    operands: "names",
    check: (p) => (p.uses.length > 0 || p.operands.length > 0 ? "git version with arguments" : undefined)
  }
}

const GLOB = /[*?[]/
/**
 * Revision syntax that names no file an agent would read (`HEAD`, `HEAD~1`, `main^2`, `@{u}`,
 * `a..b`): skipped as paths. A `..` path segment (`../x`) and names with a dot (`notes.txt~`)
 * stay paths.
 */
const isRevision = (value: string): boolean => {
  if (/^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|@)$/.test(value)) return true
  if (/(?:^|\/)\.\.(?:\/|$)/.test(value)) return false
  if (/[^.]\.\.\.?[^.]|^\.\.\.?[^./]|[^./]\.\.\.?$/.test(value)) return true
  return /^[^.]+(?:[~^]\d*|@\{[^}]*\})$/.test(value)
}

/**
 * A revision or path operand of a content command as a file it reads: the path of `REV:path`
 * and `:path`, the word itself otherwise (a revision name is harmless as a path); a pathspec glob
 * or magic is a file only known at run time.
 */
const operandPath = (
  word: WordFacts,
  afterDashDash: boolean
): { read?: WordFacts; within?: WordFacts; magic?: boolean } => {
  const value = word.value as string
  if (
    value.startsWith(":(") || value.startsWith(":/") || (afterDashDash && value.startsWith(":!")) ||
    value.startsWith(":^")
  ) {
    return { read: pathKnownOnlyAtRunTime(word), magic: true }
  }
  let path = value
  if (!afterDashDash && !value.includes(":") && isRevision(value)) return {}
  if (!afterDashDash) {
    const colon = value.startsWith(":") ? (/^:[0-3]:/.test(value) ? 2 : 0) : value.indexOf(":")
    if (colon !== -1) {
      path = value.slice(colon + 1)
      if (path.length === 0) return {}
    }
  }
  if (GLOB.test(path)) {
    const slash = path.search(GLOB)
    const dir = path.slice(0, path.lastIndexOf("/", slash) + 1) || "."
    return { read: pathKnownOnlyAtRunTime(word), within: pathPart(word, dir) }
  }
  const named = path === value ? word : pathPart(word, path)
  return { read: named, within: named }
}

/** Reads `git ARGS…` (words[0] is git). */
export const gitReading = (words: ReadonlyArray<WordFacts>): GitReading => {
  const reads: Array<WordFacts> = []
  const within: Array<WordFacts> = []
  const verdict = (reason?: string): GitReading => ({ ...(reason === undefined ? {} : { reason }), reads, within })
  if (words.slice(1).some((w) => typeof w.value !== "string" && !w.procSub)) {
    return verdict("git with arguments only known at run time")
  }
  const global = parseArgs(G.global, words)
  if (global.problem !== undefined) return verdict(`git ${global.problem}`)
  const risky = global.uses.find((u) => u.spec.effect !== "flag")
  if (risky !== undefined) return verdict(`the git option ${risky.written} (configuration, directories or programs)`)
  const subWord = global.operands[0]
  if (subWord === undefined) return verdict()
  const subIndex = words.indexOf(subWord)
  const sub = subWord.value as string
  return subcommandReading(sub, words, subIndex, reads, within, verdict)
}

const subcommandReading = (
  sub: string,
  words: ReadonlyArray<WordFacts>,
  subIndex: number,
  reads: Array<WordFacts>,
  within: Array<WordFacts>,
  verdict: (reason?: string) => GitReading
): GitReading => {
  let name = sub
  let start = subIndex + 1
  // Subcommands of subcommands that only read.
  const next = words[start]?.value
  if (sub === "stash") {
    if (next !== "list" && next !== "show") return verdict("git stash changes the working tree")
    name = next === "list" ? "log" : "diff"
    start++
  } else if (sub === "worktree") {
    if (next !== "list") return verdict("git worktree changes worktrees")
    return tableOnly(G.worktreeList, words, start + 1, verdict)
  } else if (sub === "reflog") {
    if (next === "show") start++
    else if (typeof next === "string" && !next.startsWith("-")) {
      return verdict("git reflog with a subcommand changes the reflog")
    }
    name = "log"
  } else if (sub === "remote") {
    const args = words.slice(start).map((w) => w.value as string)
    if (args.length === 0 || args.every((a) => a === "-v" || a === "--verbose")) return verdict()
    if (args[0] === "get-url" && args.slice(1).every((a) => !a.startsWith("-") || a === "--all" || a === "--push")) {
      return verdict()
    }
    if (args[0] === "show" && args.slice(1).every((a) => !a.startsWith("-") || a === "-n")) return verdict()
    return verdict("git remote with a subcommand may change the repository")
  } else if (sub === "rev-parse") {
    return verdict()
  }
  const command = own(COMMANDS, name)
  if (command === undefined) return verdict(`git ${sub} is not a read-only git command`)
  const parsed = parseArgs(command.table, words, start)
  reads.push(...readValues(parsed))
  within.push(...readValues(parsed))
  // `git log -L 1,5:FILE` shows the history of a file's lines.
  if (command.table === G.logFamily || command.table === G.diff) {
    for (const use of parsed.uses) {
      const value = use.value?.value
      if (use.spec.id !== "-L" || typeof value !== "string" || !value.includes(":")) continue
      const file = pathPart(use.value!, value.slice(value.lastIndexOf(":") + 1))
      reads.push(file)
      within.push(file)
    }
  }
  if (parsed.problem !== undefined) return verdict(`git ${sub}: ${parsed.problem}`)
  const unsafe = parsed.uses.find((u) => !u.negated && UNSAFE_EFFECTS.has(u.spec.effect))
  if (unsafe !== undefined) {
    return verdict(`git ${sub} ${unsafe.written} writes files, runs programs or changes the repository`)
  }
  const noIndex = parsed.uses.some((u) => u.spec.id === "--no-index")
  const patternGiven = parsed.uses.some((u) => !u.negated && u.spec.pattern)
  let operands = parsed.operands
  if (command.pattern === true && !patternGiven) operands = operands.slice(1)
  if (command.operands === "content" || noIndex) {
    let magic = false
    for (const word of operands) {
      const afterDashDash = parsed.endOfOptions !== undefined && words.indexOf(word) > parsed.endOfOptions
      const path = noIndex ? { read: word, within: word } : operandPath(word, afterDashDash)
      if (path.read !== undefined) reads.push(path.read)
      if (path.within !== undefined) within.push(path.within)
      magic ||= path.magic === true
    }
    if (magic) return verdict(`git ${sub} with a pathspec magic`)
  }
  const reason = command.check?.(parsed)
  return verdict(reason)
}

const tableOnly = (
  table: OptionTable,
  words: ReadonlyArray<WordFacts>,
  start: number,
  verdict: (reason?: string) => GitReading
): GitReading => {
  const parsed = parseArgs(table, words, start)
  if (parsed.problem !== undefined) return verdict(`git: ${parsed.problem}`)
  return parsed.operands.length > 0 ? verdict("git with an unexpected operand") : verdict()
}

export { mattersOnlyUnderDenyRules }
