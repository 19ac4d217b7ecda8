/**
 * The built-in read-only commands (claude-code-spec §1.6): programs that run without a prompt in
 * every mode when their arguments keep them read-only. Conservative: a program is listed only
 * with guards for each flag that writes or runs something, and argv[0] must be the bare name
 * (`./ls` is not `ls`).
 */
import type { Unit } from "./units.js"
import type { WordFacts } from "./words.js"
import { parseSedArgs, scanSedScript } from "./sedScript.js"
import { commandKey } from "./wrappers.js"
import { memoByUnit } from "./memo.js"

export type ReadOnlyVerdict =
  | { readonly readOnly: true; readonly paths: ReadonlyArray<WordFacts>; readonly isCd?: boolean }
  | { readonly readOnly: false; readonly reason: string }

interface Spec {
  /** Which operands are paths that must stay inside the working directories. */
  readonly paths: "all" | "none" | "afterPattern" | "findRoots"
  /** Options (exact, `--long=` prefix, or a short letter inside a cluster) that write or run things. */
  readonly forbidden?: ReadonlyArray<string>
  /** Short options that take a value (so the value is not an operand). */
  readonly valueOptions?: string
  /** Long options that take a separate value. */
  readonly longValueOptions?: ReadonlyArray<string>
  readonly maxOperands?: number
  /** Unquoted globs are fine (no flag of the program writes or runs anything). */
  readonly globSafe: boolean
  /** Arguments whose value is unknown are fine (the program only prints them). */
  readonly dynamicSafe?: boolean
  readonly validate?: (args: ReadonlyArray<string>) => string | undefined
  /** Options are whole words with one dash (`find -exec`), never clusters. */
  readonly singleDashLong?: boolean
}

const plainText: Spec = { paths: "all", globSafe: true }

const SPECS: Readonly<Record<string, Spec>> = {
  echo: { paths: "none", globSafe: true, dynamicSafe: true },
  printf: { paths: "none", globSafe: false, dynamicSafe: true, forbidden: ["-v"] },
  pwd: { paths: "none", globSafe: true },
  true: { paths: "none", globSafe: true, dynamicSafe: true },
  false: { paths: "none", globSafe: true, dynamicSafe: true },
  ":": { paths: "none", globSafe: true, dynamicSafe: true },
  whoami: { paths: "none", globSafe: true, maxOperands: 0 },
  id: { paths: "none", globSafe: true },
  groups: { paths: "none", globSafe: true },
  uname: { paths: "none", globSafe: true, maxOperands: 0 },
  hostname: { paths: "none", globSafe: false, maxOperands: 0, forbidden: ["-F", "--file", "-b", "--boot"] },
  date: {
    paths: "none",
    globSafe: false,
    forbidden: ["-s", "--set"],
    valueOptions: "dfrI",
    longValueOptions: ["--date", "--file", "--reference"],
    validate: (args) => (args.some((a) => !a.startsWith("-") && !a.startsWith("+")) ? "date with an operand sets the clock" : undefined)
  },
  uptime: { paths: "none", globSafe: true },
  nproc: { paths: "none", globSafe: true },
  arch: { paths: "none", globSafe: true },
  tty: { paths: "none", globSafe: true },
  sleep: { paths: "none", globSafe: false },
  seq: { paths: "none", globSafe: false },
  basename: { paths: "none", globSafe: true },
  dirname: { paths: "none", globSafe: true },
  which: { paths: "none", globSafe: true },
  type: { paths: "none", globSafe: true },
  ls: { paths: "all", globSafe: true, valueOptions: "ITw", longValueOptions: ["--ignore", "--hide", "--tabsize", "--width", "--block-size", "--sort", "--time", "--format", "--color", "--quoting-style", "--indicator-style"] },
  cat: plainText,
  tac: plainText,
  nl: { paths: "all", globSafe: true, valueOptions: "bdfhilnsvw" },
  head: { paths: "all", globSafe: true, valueOptions: "cn", longValueOptions: ["--bytes", "--lines"] },
  tail: { paths: "all", globSafe: true, valueOptions: "cns", longValueOptions: ["--bytes", "--lines", "--pid", "--sleep-interval", "--max-unchanged-stats"] },
  wc: { paths: "all", globSafe: true, forbidden: ["--files0-from"] },
  od: { paths: "all", globSafe: true, valueOptions: "AjNSTtw" },
  hexdump: { paths: "all", globSafe: true, valueOptions: "enfsL" },
  strings: { paths: "all", globSafe: true, valueOptions: "nteTsw" },
  rev: plainText,
  fold: { paths: "all", globSafe: true, valueOptions: "w" },
  expand: { paths: "all", globSafe: true, valueOptions: "t" },
  unexpand: { paths: "all", globSafe: true, valueOptions: "t" },
  column: { paths: "all", globSafe: true, valueOptions: "cstoNRHWdEnJCOr" },
  paste: { paths: "all", globSafe: true, valueOptions: "d" },
  cut: { paths: "all", globSafe: true, valueOptions: "bcdf", longValueOptions: ["--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"] },
  tr: { paths: "none", globSafe: false },
  base64: { paths: "all", globSafe: true, valueOptions: "w" },
  base32: { paths: "all", globSafe: true, valueOptions: "w" },
  md5sum: plainText,
  sha1sum: plainText,
  sha224sum: plainText,
  sha256sum: plainText,
  sha384sum: plainText,
  sha512sum: plainText,
  b2sum: plainText,
  cksum: plainText,
  sum: plainText,
  uniq: { paths: "all", globSafe: false, maxOperands: 1, valueOptions: "fsw" },
  xxd: { paths: "all", globSafe: false, maxOperands: 1, valueOptions: "cglos", forbidden: ["-r", "-revert"] },
  sort: {
    paths: "all",
    globSafe: false,
    forbidden: ["-o", "--output", "--compress-program", "--files0-from", "-T", "--temporary-directory"],
    valueOptions: "kStz",
    longValueOptions: ["--key", "--buffer-size", "--field-separator", "--parallel", "--batch-size", "--sort", "--random-source"]
  },
  grep: {
    paths: "afterPattern",
    globSafe: true,
    valueOptions: "efmABCD",
    longValueOptions: ["--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--include", "--exclude", "--exclude-dir", "--label", "--devices", "--directories", "--binary-files", "--color", "--colour"]
  },
  egrep: { paths: "afterPattern", globSafe: true, valueOptions: "efmABCD" },
  fgrep: { paths: "afterPattern", globSafe: true, valueOptions: "efmABCD" },
  rg: {
    paths: "afterPattern",
    globSafe: false,
    forbidden: ["--pre", "--pre-glob", "--hostname-bin", "--search-zip", "-z"],
    valueOptions: "efgmABCEjMrtTdV",
    longValueOptions: ["--regexp", "--file", "--glob", "--iglob", "--max-count", "--after-context", "--before-context", "--context", "--type", "--type-not", "--encoding", "--max-depth", "--replace", "--sort", "--sortr", "--max-columns", "--threads", "--colors", "--color", "--type-add", "--ignore-file", "--path-separator", "--max-filesize", "--field-match-separator", "--field-context-separator", "--context-separator", "--engine", "--dfa-size-limit", "--regex-size-limit"]
  },
  find: {
    paths: "findRoots",
    globSafe: false,
    singleDashLong: true,
    forbidden: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]
  },
  tree: { paths: "all", globSafe: false, forbidden: ["-o", "--fromfile", "-R"], valueOptions: "LPIH", longValueOptions: ["--filelimit", "--timefmt", "--sort", "--charset"] },
  stat: { paths: "all", globSafe: true, valueOptions: "c", longValueOptions: ["--format", "--printf"] },
  file: { paths: "all", globSafe: false, forbidden: ["-m", "-f", "-C", "--magic-file", "--files-from", "--compile"], valueOptions: "eFP", longValueOptions: ["--exclude", "--separator", "--parameter"] },
  du: { paths: "all", globSafe: true, forbidden: ["--files0-from"], valueOptions: "BdtX", longValueOptions: ["--block-size", "--max-depth", "--threshold", "--exclude", "--exclude-from", "--time-style"] },
  df: { paths: "all", globSafe: true, valueOptions: "BtxF", longValueOptions: ["--block-size", "--type", "--exclude-type", "--output"] },
  readlink: plainText,
  realpath: { paths: "all", globSafe: true, longValueOptions: ["--relative-to", "--relative-base"] },
  diff: { paths: "all", globSafe: true, valueOptions: "CUFIxXL", longValueOptions: ["--label", "--ignore-matching-lines", "--exclude", "--exclude-from", "--starting-file", "--horizon-lines", "--width", "--tabsize", "--line-format", "--from-file", "--to-file", "--palette", "--color"] },
  cmp: { paths: "all", globSafe: true, valueOptions: "inI", longValueOptions: ["--ignore-initial", "--bytes"] },
  comm: { paths: "all", globSafe: true, longValueOptions: ["--output-delimiter"] },
  jq: {
    paths: "afterPattern",
    globSafe: false,
    valueOptions: "fL",
    longValueOptions: ["--arg", "--argjson", "--slurpfile", "--rawfile", "--indent", "--from-file", "--args", "--jsonargs"],
    forbidden: ["-L", "--library-path", "-f", "--from-file", "--rawfile", "--slurpfile"]
  },
  printenv: { paths: "none", globSafe: true },
  ps: { paths: "none", globSafe: false },
  pgrep: { paths: "none", globSafe: false },
  test: { paths: "none", globSafe: false, dynamicSafe: true },
  "[": { paths: "none", globSafe: false, dynamicSafe: true }
}

// ---------------------------------------------------------------------------------------------
// git: read-only subcommands with their guards
// ---------------------------------------------------------------------------------------------

const GIT_GLOBAL_FLAGS = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--no-lazy-fetch"])
const GIT_ALWAYS_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "cat-file",
  "blame",
  "annotate",
  "describe",
  "shortlog",
  "grep",
  "merge-base",
  "rev-list",
  "name-rev",
  "for-each-ref",
  "count-objects",
  "show-ref",
  "check-ignore",
  "check-attr",
  "diff-tree",
  "diff-files",
  "diff-index",
  "whatchanged",
  "cherry",
  "range-diff",
  "show-branch",
  "version",
  "var"
])
// Anywhere in a git command line: writes a file, runs a program, or reads outside the repository.
const GIT_FORBIDDEN = ["--output", "--ext-diff", "--exec", "--upload-pack", "--receive-pack", "--open-files-in-pager", "-O", "--no-index", "--contents", "--output-directory"]

const gitSubcommandVerdict = (sub: string, args: ReadonlyArray<string>): string | undefined => {
  const operands = args.filter((a) => !a.startsWith("-"))
  const options = args.filter((a) => a.startsWith("-"))
  switch (sub) {
    case "branch":
    case "tag": {
      const listMode = options.some((o) => o === "-l" || o === "--list")
      const valueOpts = new Set(["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color", "--column"])
      const allowed = new Set(["-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "--ignore-case", "-i", "-n", "--no-column"])
      let free = 0
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!
        const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a
        if (valueOpts.has(name)) {
          if (!a.includes("=")) i++
          continue
        }
        if (allowed.has(a) || /^-n\d*$/.test(a)) continue
        if (a.startsWith("-")) return `git ${sub} ${a} changes the repository`
        free++
      }
      return free > 0 && !listMode ? `git ${sub} with a name creates or changes a ${sub}` : undefined
    }
    case "remote":
      if (args.length === 0 || args.every((a) => a === "-v" || a === "--verbose")) return undefined
      if ((args[0] === "show" || args[0] === "get-url") && args.slice(1).every((a) => !a.startsWith("-") || a === "-n" || a === "--all" || a === "--push")) return undefined
      return "git remote with a subcommand may change the repository"
    case "config": {
      const readFlags = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"]
      const neutral = new Set(["--show-origin", "--show-scope", "--global", "--local", "--system", "--worktree", "--name-only", "-z", "--null", "--bool", "--int", "--path", "--includes", "--no-includes", "--type", "--default"])
      if (args[0] === "get" || args[0] === "list") return undefined
      if (options.some((o) => !readFlags.includes(o) && !neutral.has(o.split("=")[0]!))) return "git config with an option that may write"
      const reading = options.some((o) => readFlags.includes(o))
      if (reading || operands.length === 1) return undefined
      return operands.length === 0 ? undefined : "git config with a value writes the configuration"
    }
    case "stash":
      return args[0] === "list" || args[0] === "show" ? undefined : "git stash changes the working tree"
    case "worktree":
      return args[0] === "list" ? undefined : "git worktree changes worktrees"
    case "reflog":
      return args.length === 0 || args[0] === "show" || args[0]!.startsWith("-") ? undefined : "git reflog with a subcommand changes the reflog"
    case "symbolic-ref":
      return operands.length === 1 && options.every((o) => o === "-q" || o === "--quiet" || o === "--short") ? undefined : "git symbolic-ref with a value changes a ref"
    default:
      return GIT_ALWAYS_READ_ONLY.has(sub) ? undefined : `git ${sub} is not a read-only git command`
  }
}

const gitVerdict = (args: ReadonlyArray<string>, words: ReadonlyArray<WordFacts>): string | undefined => {
  let i = 0
  while (i < args.length && args[i]!.startsWith("-")) {
    if (!GIT_GLOBAL_FLAGS.has(args[i]!)) return `the git option ${args[i]} (configuration, directories or programs)`
    i++
  }
  const sub = args[i]
  if (sub === undefined) return undefined
  for (const a of args.slice(i + 1)) {
    for (const f of GIT_FORBIDDEN) if (a === f || a.startsWith(f + "=")) return `git ${f} writes files, runs programs or reads outside the repository`
  }
  if (words.slice(i + 2).some((w) => w.unquotedGlob)) return "an unquoted glob in a git command"
  return gitSubcommandVerdict(sub, args.slice(i + 1))
}

const DOCKER_READ_ONLY = new Set(["ps", "images", "version", "info", "inspect", "logs"])
const DOCKER_LIST_GROUPS = new Set(["image", "container", "volume", "network", "context"])

const dockerVerdict = (args: ReadonlyArray<string>): string | undefined => {
  if (args.some((a) => /^(?:-H|--host|--context|--url|--connection|-c|--config)(?:=|$)/.test(a))) return "docker with a host, context or config option"
  const sub = args[0]
  if (sub === undefined) return "docker without a subcommand"
  if (DOCKER_READ_ONLY.has(sub)) return undefined
  if (DOCKER_LIST_GROUPS.has(sub) && (args[1] === "ls" || args[1] === "list" || args[1] === "inspect")) return undefined
  return `docker ${sub} is not a read-only docker command`
}

// ---------------------------------------------------------------------------------------------

const optionName = (arg: string): string => (arg.startsWith("--") && arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg)

const isForbidden = (arg: string, spec: Spec): string | undefined => {
  const forbidden = spec.forbidden ?? []
  const name = optionName(arg)
  if (forbidden.includes(name)) return name
  if (arg.startsWith("--") || spec.singleDashLong === true) return undefined
  // A cluster of short options (`-rno`): any forbidden letter in it counts.
  for (let j = 1; j < arg.length; j++) {
    const letter = `-${arg[j]}`
    if (forbidden.includes(letter)) return letter
    if (spec.valueOptions?.includes(arg[j]!)) break
  }
  return undefined
}

/** Operand words of a program, skipping options and their values. */
const operandsOf = (words: ReadonlyArray<WordFacts>, spec: Spec): { operands: Array<WordFacts>; patternFromOption: boolean } => {
  const operands: Array<WordFacts> = []
  let patternFromOption = false
  let endOfOptions = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    const v = typeof w.value === "string" ? w.value : undefined
    if (endOfOptions || v === undefined || !v.startsWith("-") || v === "-") {
      operands.push(w)
      continue
    }
    if (v === "--") {
      endOfOptions = true
      continue
    }
    if (v.startsWith("--")) {
      const name = optionName(v)
      if (name === "--regexp" || name === "--file") patternFromOption = true
      if (!v.includes("=") && spec.longValueOptions?.includes(name)) i++
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!
      if (spec.valueOptions?.includes(ch)) {
        if (ch === "e" || ch === "f") patternFromOption = true
        if (j === v.length - 1) i++
        break
      }
    }
  }
  return { operands, patternFromOption }
}

const findRoots = (words: ReadonlyArray<WordFacts>): Array<WordFacts> => {
  const roots: Array<WordFacts> = []
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v === "string" && (v.startsWith("-") || v === "(" || v === "!" || v === ")")) {
      if (i === 1 && (v === "-H" || v === "-L" || v === "-P" || v.startsWith("-O") || v === "-D")) continue
      break
    }
    roots.push(words[i]!)
  }
  return roots
}

/**
 * The operands of a known read command that name files (whatever its other arguments), for the
 * Read deny check; undefined for other programs.
 */
export const readPathOperands = memoByUnit((unit: Unit): ReadonlyArray<WordFacts> | undefined => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string" || unit.role !== "plain") return undefined
  const spec = SPECS[commandKey(argv0)]
  if (spec === undefined || spec.paths === "none") return undefined
  if (spec.paths === "findRoots") return findRoots(unit.words)
  const { operands, patternFromOption } = operandsOf(unit.words, spec)
  return spec.paths === "afterPattern" && !patternFromOption ? operands.slice(1) : operands
})

/**
 * Is this unit read-only by itself? Read-only units also give the operands that are paths; the
 * caller checks them against the working directories.
 */
export const readOnlyVerdict = memoByUnit((unit: Unit): ReadOnlyVerdict => {
  switch (unit.role) {
    case "test":
    case "redirect-only":
    case "assignment":
    case "transparent":
    case "nested-shell":
      return { readOnly: true, paths: [] }
    case "exec":
      return { readOnly: false, reason: "a wrapper that runs another command" }
    case "plain":
      break
  }
  const words = unit.words
  const argv0 = words[0]?.value
  if (typeof argv0 !== "string") return { readOnly: false, reason: "a command name that is not literal" }
  if (unit.runtimeArgs === true && argv0 !== "echo") return { readOnly: false, reason: "arguments only known at run time" }
  const args: Array<string> = []
  let dynamic = false
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v === "string") args.push(v)
    else if (!words[i]!.procSub) dynamic = true
  }
  if (argv0 === "cd") {
    if (dynamic) return { readOnly: false, reason: "cd to a directory only known at run time" }
    const target = words.slice(1).filter((w) => w.value !== "-L" && w.value !== "-P" && w.value !== "--")
    if (target.length > 1) return { readOnly: false, reason: "cd with several operands" }
    return { readOnly: true, paths: target, isCd: true }
  }
  if (argv0 === "git") {
    if (dynamic) return { readOnly: false, reason: "git with arguments only known at run time" }
    const reason = gitVerdict(args, words)
    return reason === undefined ? { readOnly: true, paths: [] } : { readOnly: false, reason }
  }
  if (argv0 === "docker") {
    if (dynamic) return { readOnly: false, reason: "docker with arguments only known at run time" }
    const reason = dockerVerdict(args)
    return reason === undefined ? { readOnly: true, paths: [] } : { readOnly: false, reason }
  }
  if (argv0 === "command") {
    return args.length > 0 && (args[0] === "-v" || args[0] === "-V") ? { readOnly: true, paths: [] } : { readOnly: false, reason: "command without -v" }
  }
  if (argv0 === "sed") {
    if (dynamic) return { readOnly: false, reason: "sed with arguments only known at run time" }
    if (words.some((w) => w.unquotedGlob)) return { readOnly: false, reason: "an unquoted glob in a sed command" }
    const sed = parseSedArgs(args)
    if (sed.inPlace) return { readOnly: false, reason: "sed -i edits files" }
    if (sed.opaque) return { readOnly: false, reason: "a sed script that cannot be checked" }
    for (const script of sed.scripts) {
      const facts = scanSedScript(script)
      if (facts.unknown || facts.exec || facts.write || facts.read) return { readOnly: false, reason: "a sed script that runs commands or touches files" }
    }
    return { readOnly: true, paths: sed.files.map((i) => words[i + 1]!) }
  }
  const spec = SPECS[argv0]
  if (spec === undefined) return { readOnly: false, reason: `${argv0} is not a built-in read-only command` }
  if (dynamic && spec.dynamicSafe !== true) return { readOnly: false, reason: `${argv0} with arguments only known at run time` }
  if (!spec.globSafe && words.some((w, i) => i > 0 && w.unquotedGlob)) return { readOnly: false, reason: `an unquoted glob in a ${argv0} command` }
  if (spec.forbidden !== undefined) {
    for (const a of args) {
      if (!a.startsWith("-")) continue
      const hit = isForbidden(a, spec)
      if (hit !== undefined) return { readOnly: false, reason: `${argv0} ${hit} writes files or runs programs` }
    }
  }
  if (spec.validate !== undefined) {
    const reason = spec.validate(args)
    if (reason !== undefined) return { readOnly: false, reason }
  }
  const { operands, patternFromOption } = operandsOf(words, spec)
  if (spec.maxOperands !== undefined && operands.length > spec.maxOperands) return { readOnly: false, reason: `${argv0} with more than ${spec.maxOperands} operand(s) writes or changes something` }
  switch (spec.paths) {
    case "none":
      return { readOnly: true, paths: [] }
    case "all":
      return { readOnly: true, paths: operands }
    case "afterPattern":
      return { readOnly: true, paths: patternFromOption ? operands : operands.slice(1) }
    case "findRoots":
      return { readOnly: true, paths: findRoots(words) }
  }
})
