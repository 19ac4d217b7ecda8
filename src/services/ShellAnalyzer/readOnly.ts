/**
 * The built-in read-only commands: programs that run without a prompt in
 * every mode when their arguments keep them read-only. Allow by construction: each program's
 * options are read against the exact list it accepts (options/tables/), abbreviations resolved
 * the way the program resolves them; an option it does not list, an ambiguous abbreviation, or an
 * option that writes, runs a program, reads a list of files or changes configuration makes the
 * command not read-only. Files named in option values are read paths like the operands. argv[0]
 * must be the bare name (`./ls` is not `ls`).
 */
import type { Unit } from "./units.js"
import type { WordFacts } from "./words.js"
import { isDangerousVariable } from "./guards.js"
import { memoByUnit } from "./memo.js"
import { printfProblem, readProblem, setProblem } from "./options/builtins.js"
import { findReading } from "./options/find.js"
import { gitReading } from "./options/git.js"
import { jqReading } from "./options/jq.js"
import { parseArgs } from "./options/parse.js"
import { pathKnownOnlyAtRunTime, pathPart, readValues } from "./options/paths.js"
import * as T from "./options/tables/gnu.js"
import * as X from "./options/tables/other.js"
import { own, UNSAFE_EFFECTS, type OptionTable, type ParsedArgs } from "./options/types.js"
import { xxdReading } from "./options/xxd.js"
import { parseSedArgs, scanSedScript } from "./sedScript.js"
import { commandKey } from "./wrappers.js"

export type ReadOnlyVerdict =
  | { readonly readOnly: true; readonly paths: ReadonlyArray<WordFacts>; readonly isCd?: boolean }
  | { readonly readOnly: false; readonly reason: string }

interface Command {
  /** Its options; absent: its arguments are never options that matter (echo, ps, test). */
  readonly table?: OptionTable
  /** Which operands are files it reads. */
  readonly operands: "paths" | "none" | "afterPattern"
  readonly maxOperands?: number
  /** Arguments only known at run time are fine (the program only prints or compares them). */
  readonly dynamicSafe?: boolean
  /** Unquoted globs are not (the number of operands matters: the second one is written). */
  readonly noGlobs?: boolean
  /** binutils: an `@FILE` operand is a file of further options. */
  readonly responseFiles?: boolean
  /** Option ids whose value is a colon-separated list of files. */
  readonly colonLists?: ReadonlySet<string>
  readonly check?: (parsed: ParsedArgs) => string | undefined
}

const paths = (table: OptionTable, extra: Partial<Command> = {}): Command => ({ table, operands: "paths", ...extra })
const none = (table: OptionTable | undefined, extra: Partial<Command> = {}): Command => ({
  ...(table === undefined ? {} : { table }),
  operands: "none",
  ...extra
})
const anything: Command = { operands: "none", dynamicSafe: true }

/** date with an operand that is not `+FORMAT` sets the clock. */
const dateCheck = (parsed: ParsedArgs): string | undefined =>
  parsed.operands.some((w) => typeof w.value !== "string" || !w.value.startsWith("+"))
    ? "date with an operand sets the clock"
    : undefined

/**
 * ps shows the environment of every process with the BSD `e` modifier (`ps e`, `ps auxe`, `ps eww`)
 * or the `-E`/`--env`-like spellings some versions take: a key or token of any process could leak.
 */
const psCheck = (parsed: ParsedArgs): string | undefined =>
  parsed.operands.some((w) =>
      typeof w.value !== "string" || (!w.value.startsWith("-") && w.value.includes("e")) || /env/i.test(w.value) ||
      /^-[A-Za-z]*E/.test(w.value)
    )
    ? "ps showing the environment of processes"
    : undefined

const COMMANDS: Readonly<Record<string, Command>> = {
  echo: anything,
  true: anything,
  false: anything,
  ":": anything,
  test: anything,
  "[": anything,
  ps: { operands: "none", noGlobs: true, check: psCheck },
  which: { operands: "none" },
  type: { operands: "none" },
  pwd: none(T.pwd),
  whoami: none(T.helpOnly, { maxOperands: 0 }),
  id: none(T.id),
  groups: none(T.helpOnly),
  uname: none(T.uname, { maxOperands: 0 }),
  hostname: none(T.hostname, { maxOperands: 0, noGlobs: true }),
  date: none(T.date, { check: dateCheck, noGlobs: true }),
  uptime: none(T.uptime),
  nproc: none(T.nproc),
  arch: none(T.helpOnly),
  tty: none(T.tty),
  sleep: none(T.helpOnly, { noGlobs: true }),
  seq: none(T.seq, { noGlobs: true }),
  basename: none(T.basename),
  dirname: none(T.dirname),
  pgrep: none(T.pgrep, { noGlobs: true }),
  tr: none(T.tr, { noGlobs: true }),
  ls: paths(T.ls),
  cat: paths(T.cat),
  tac: paths(T.tac),
  nl: paths(T.nl),
  head: paths(T.head),
  tail: paths(T.tail),
  wc: paths(T.wc),
  od: paths(T.od),
  hexdump: paths(T.hexdump),
  strings: paths(T.strings, { responseFiles: true }),
  rev: paths(T.rev),
  fold: paths(T.fold),
  expand: paths(T.expand),
  unexpand: paths(T.unexpand),
  column: paths(T.column),
  paste: paths(T.paste),
  cut: paths(T.cut),
  base64: paths(T.base64),
  base32: paths(T.base64),
  md5sum: paths(T.checksum),
  sha1sum: paths(T.checksum),
  sha224sum: paths(T.checksum),
  sha256sum: paths(T.checksum),
  sha384sum: paths(T.checksum),
  sha512sum: paths(T.checksum),
  b2sum: paths(T.b2sum),
  cksum: paths(T.cksum),
  sum: paths(T.sum),
  uniq: paths(T.uniq, { maxOperands: 1, noGlobs: true }),
  sort: paths(T.sort),
  grep: { table: T.grep, operands: "afterPattern" },
  egrep: { table: T.grep, operands: "afterPattern" },
  fgrep: { table: T.grep, operands: "afterPattern" },
  rg: { table: X.rg, operands: "afterPattern" },
  tree: paths(X.tree),
  stat: paths(T.stat),
  file: paths(T.file, { colonLists: new Set(["--magic-file"]) }),
  du: paths(T.du),
  df: paths(T.df),
  readlink: paths(T.readlink),
  realpath: paths(T.realpath),
  diff: paths(T.diff),
  cmp: paths(T.cmp),
  comm: paths(T.comm)
}

/** What reading a unit's arguments found: the verdict and every file it reads (for Read deny rules). */
interface Reading {
  readonly verdict: ReadOnlyVerdict
  /** Files it reads, whatever the verdict (undefined: not a program whose reads are known). */
  readonly reads?: ReadonlyArray<WordFacts>
}

const no = (reason: string, reads?: ReadonlyArray<WordFacts>): Reading => ({
  verdict: { readOnly: false, reason },
  ...(reads === undefined ? {} : { reads })
})
const yes = (found: ReadonlyArray<WordFacts>, reads: ReadonlyArray<WordFacts> | undefined = found): Reading => ({
  verdict: { readOnly: true, paths: found },
  ...(reads === undefined ? {} : { reads })
})

/** Read-only, reading nothing. */
const NOTHING: Reading = { verdict: { readOnly: true, paths: [] } }
const NONE: ReadonlyArray<WordFacts> = []

const isDynamic = (w: WordFacts): boolean => typeof w.value !== "string" && !w.procSub

const tableReading = (name: string, command: Command, unit: Unit): Reading => {
  const words = unit.words
  if (command.table === undefined) {
    if (!command.dynamicSafe && words.slice(1).some(isDynamic)) {
      return no(`${name} with arguments only known at run time`)
    }
    if (command.noGlobs === true && words.slice(1).some((w) => w.unquotedGlob)) {
      return no(`an unquoted glob in a ${name} command`)
    }
    const reason = command.check?.({ uses: [], operands: words.slice(1), dynamic: false, ambiguous: [] })
    return reason === undefined ? NOTHING : no(reason)
  }
  const parsed = parseArgs(command.table, words)
  const split = command.colonLists === undefined
    ? undefined
    : (
      use: { spec: { id: string }; value?: WordFacts }
    ) => (command.colonLists!.has(use.spec.id) ? (use.value!.value as string).split(":") : undefined)
  const values = readValues(parsed, split)
  const patternGiven = parsed.uses.some((u) => u.spec.pattern && !u.negated)
  const operandFiles = command.operands === "paths"
    ? parsed.operands
    : command.operands === "afterPattern"
    ? (patternGiven ? parsed.operands : parsed.operands.slice(1))
    : []
  const reads = [...values, ...operandFiles]
  const known = command.operands === "none" ? (values.length > 0 ? values : undefined) : reads
  if (parsed.problem !== undefined) return no(`${name}: ${parsed.problem}`, known)
  if (parsed.dynamic && command.dynamicSafe !== true) return no(`${name} with arguments only known at run time`, known)
  const unsafe = parsed.uses.find((u) => !u.negated && UNSAFE_EFFECTS.has(u.spec.effect))
  if (unsafe !== undefined) return no(`${name} ${unsafe.written} ${effectText(unsafe.spec.effect)}`, known)
  const globbedValue = parsed.uses.find((u) =>
    u.spec.effect === "read" && u.value !== undefined && u.value.unquotedGlob && words[u.index] !== u.value
  )
  if (globbedValue !== undefined) return no(`an unquoted glob inside ${globbedValue.written}`, known)
  if (command.noGlobs === true && words.slice(1).some((w) => w.unquotedGlob)) {
    return no(`an unquoted glob in a ${name} command`, known)
  }
  if (
    command.responseFiles === true &&
    parsed.operands.some((w) => typeof w.value === "string" && w.value.startsWith("@"))
  ) {
    return no(`${name} reads options from an @file`, known)
  }
  if (command.maxOperands !== undefined && parsed.operands.length > command.maxOperands) {
    return no(`${name} with more than ${command.maxOperands} operand(s) writes or changes something`, known)
  }
  const reason = command.check?.(parsed)
  if (reason !== undefined) return no(reason, known)
  return yes(reads, known)
}

const effectText = (effect: string): string => {
  switch (effect) {
    case "write":
      return "writes files"
    case "exec":
      return "runs a program"
    case "readList":
      return "reads files named in a list"
    case "network":
      return "talks to the network"
    case "config":
      return "changes configuration"
    default:
      return "is not read-only"
  }
}

const sedReading = (unit: Unit): Reading => {
  const words = unit.words
  const sed = parseSedArgs(words)
  const reads = [...sed.scriptFiles, ...sed.files]
  if (words.slice(1).some(isDynamic)) return no("sed with arguments only known at run time", reads)
  if (sed.problem !== undefined) return no(sed.problem, reads)
  if (sed.inPlace) return no("sed -i edits files", reads)
  if (sed.scriptFiles.length > 0) return no("a sed script from a file cannot be checked", reads)
  // Claude Code reads a sed script given as its first operand, not one given with -e, and only
  // with -n (what sed prints then is only what the script asks for).
  if (sed.expressions) return no("sed -e: a script given as an option", reads)
  if (!sed.quiet) return no("sed without -n", reads)
  if (words.slice(1).some((w) => w.unquotedGlob)) return no("an unquoted glob in a sed command", reads)
  const facts = scanSedScript(sed.script)
  if (facts.unknown) return no("a sed script that cannot be checked", reads)
  if (facts.exec || facts.write || facts.read) return no("a sed script that runs commands or touches files", reads)
  return yes(sed.files, reads)
}

const findVerdict = (unit: Unit): Reading => {
  const found = findReading(unit.words)
  const reads = [...found.roots, ...found.reads]
  if (found.problem !== undefined) return no(found.problem, reads)
  if (found.unsafe !== undefined) return no(found.unsafe, reads)
  if (unit.words.slice(1).some((w) => w.unquotedGlob)) return no("an unquoted glob in a find command", reads)
  return yes(reads)
}

const DOCKER_READ_ONLY = new Set(["ps", "images", "version", "info", "inspect", "logs"])
const DOCKER_LIST_GROUPS = new Set(["image", "container", "volume", "network", "context"])

const dockerVerdict = (args: ReadonlyArray<string>): string | undefined => {
  if (args.some((a) => /^(?:-H|--host|--context|--url|--connection|-c|--config)(?:=|$)/.test(a))) {
    return "docker with a host, context or config option"
  }
  const sub = args[0]
  if (sub === undefined) return "docker without a subcommand"
  if (DOCKER_READ_ONLY.has(sub)) return undefined
  if (DOCKER_LIST_GROUPS.has(sub) && (args[1] === "ls" || args[1] === "list" || args[1] === "inspect")) return undefined
  return `docker ${sub} is not a read-only docker command`
}

const XARGS_OPTIONS = new Set(["-0", "-r", "-t", "-x", "-d", "-s"])

/** xargs itself is read-only when its own options are (the command it runs is judged on its own). */
const xargsVerdict = (unit: Unit): Reading => {
  const parsed = parseArgs(T.xargs, unit.words)
  const reads = readValues(parsed)
  if (parsed.problem !== undefined) return no(`xargs: ${parsed.problem}`, reads)
  if (parsed.dynamic) return no("xargs with options only known at run time", reads)
  // The options Claude Code runs xargs with; any other (even a harmless `-n1`) needs a rule, as there.
  const other = parsed.uses.find((u) => !XARGS_OPTIONS.has(u.written))
  if (other !== undefined) return no(`xargs ${other.written} needs a rule of its own`, reads)
  return yes(reads)
}

/** Reads a unit; `name` stands for argv[0] when the Read deny check looks past a path (`/bin/cat`). */
const read = (unit: Unit, name?: string): Reading => {
  switch (unit.role) {
    case "test":
    case "redirect-only":
    case "assignment":
    case "transparent":
    case "nested-shell":
      return NOTHING
    case "exec": {
      const argv0 = name ?? unit.words[0]?.value
      return argv0 === "xargs" ? xargsVerdict(unit) : no("a wrapper that runs another command")
    }
    case "plain":
      break
  }
  const words = unit.words
  const argv0 = name ?? words[0]?.value
  if (typeof argv0 !== "string") return no("a command name that is not literal")
  if (unit.runtimeArgs === true) {
    // xargs and find -exec add arguments at run time: they may be options, and the files they name cannot be checked.
    const reads = argv0 === "echo"
      ? undefined
      : [pathKnownOnlyAtRunTime(words[words.length - 1]!, "the arguments xargs passes")]
    return argv0 === "echo" ? NOTHING : no("arguments only known at run time", reads)
  }
  switch (argv0) {
    case "cd": {
      if (words.slice(1).some(isDynamic)) return no("cd to a directory only known at run time")
      const target = words.slice(1).filter((w) => w.value !== "-L" && w.value !== "-P" && w.value !== "--")
      if (target.length > 1) return no("cd with several operands")
      return { verdict: { readOnly: true, paths: target, isCd: true } }
    }
    case "git": {
      const git = gitReading(words)
      return git.reason === undefined
        ? { verdict: { readOnly: true, paths: git.within }, reads: git.reads }
        : no(git.reason, git.reads)
    }
    case "docker": {
      if (words.slice(1).some(isDynamic)) return no("docker with arguments only known at run time")
      const reason = dockerVerdict(words.slice(1).map((w) => w.value as string))
      return reason === undefined ? NOTHING : no(reason)
    }
    // Claude Code 2.1.332 asks about each of these however they are written.
    case "command":
      return no("command (a way around aliases and functions)")
    case "xxd":
      return no("xxd (-r writes files)", xxdReading(words).operands.slice(0, 1))
    case "sed":
      return sedReading(unit)
    case "find":
      return findVerdict(unit)
    case "jq": {
      const jq = jqReading(words)
      return jq.problem === undefined ? yes(jq.reads) : no(jq.problem, jq.reads)
    }
    case "printf": {
      const problem = printfProblem(words)
      return problem === undefined ? NOTHING : no(problem)
    }
    case "set": {
      const problem = setProblem(words)
      return problem === undefined ? NOTHING : no(problem)
    }
    case "read": {
      const problem = readProblem(words, isDangerousVariable)
      return problem === undefined ? NOTHING : no(problem)
    }
  }
  const command = own(COMMANDS, argv0)
  if (command === undefined) return no(`${argv0} is not a built-in read-only command`)
  return tableReading(argv0, command, unit)
}

const readingOf = memoByUnit((unit) => read(unit))

const readsByKey = memoByUnit((unit): ReadonlyArray<WordFacts> | undefined =>
  read(unit, commandKey(unit.argv[0] as string)).reads
)

const readsOf = (unit: Unit): ReadonlyArray<WordFacts> | undefined => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string") return undefined
  return commandKey(argv0) === argv0 ? readingOf(unit).reads : readsByKey(unit)
}

/**
 * Is this unit read-only by itself? Read-only units also give the operands that are paths; the
 * caller checks them against the working directories.
 */
export const readOnlyVerdict = (unit: Unit): ReadOnlyVerdict => readingOf(unit).verdict

/**
 * The files a known read command reads (operands and option values), whatever its other
 * arguments, for the Read deny check; undefined for other programs.
 */
export const readPathOperands = (unit: Unit): ReadonlyArray<WordFacts> | undefined => {
  const argv0 = unit.argv[0]
  if (
    typeof argv0 !== "string" || (unit.role !== "plain" && !(unit.role === "exec" && commandKey(argv0) === "xargs"))
  ) return undefined
  return readsOf(unit)
}

/**
 * Words that an unquoted glob could turn into options of a program whose options read, write or
 * run things (a file named `--from-file=.env`): leading globs before the end of the options. The
 * caller looks at the names they expand to.
 */
export const optionLikeGlobs = (unit: Unit): ReadonlyArray<WordFacts> => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string") return NONE
  const key = commandKey(argv0)
  const table = own(COMMANDS, key)?.table ?? own(TABLES_FOR_GLOBS, key)
  if (table === undefined || !table.risky) return NONE
  const out: Array<WordFacts> = []
  for (let i = 1; i < unit.words.length; i++) {
    const word = unit.words[i]!
    if (word.value === "--") break
    if (word.unquotedGlob && typeof word.value === "string" && /^[*?[]/.test(word.value)) out.push(word)
  }
  return out
}

const TABLES_FOR_GLOBS: Readonly<Record<string, OptionTable>> = { xargs: T.xargs, sed: T.sed }

export { pathPart }
