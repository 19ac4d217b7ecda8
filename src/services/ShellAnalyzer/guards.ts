/**
 * Guards: facts about one unit that force a prompt even when an allow rule or the read-only set
 * would approve it: exec/write-capable arguments,
 * evaluation hidden in data (class 14), dangerous environment (class 8), values only known at run
 * time or unquoted globs reaching programs that can run things (class 5).
 */
import { SAFE_ENV_VARS } from "./bashRules.js"
import { memoByUnit } from "./memo.js"
import { dangerousOptions } from "./options/danger.js"
import * as T from "./options/tables/gnu.js"
import * as TT from "./options/tables/tools.js"
import { own, type OptionEffect, type OptionTable } from "./options/types.js"
import { parseSedArgs, scanSedScript } from "./sedScript.js"
import type { Unit } from "./units.js"
import type { WordFacts } from "./words.js"
import { commandKey } from "./wrappers.js"

/** Programs with flags that run programs or write files: unknown or globbed arguments could become such flags. */
export const EXEC_CAPABLE = new Set([
  "sed",
  "git",
  "find",
  "rg",
  "sort",
  "tar",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "xargs",
  "man",
  "less",
  "more",
  "zip",
  "rsync",
  "ssh",
  "scp",
  "sftp",
  "tree",
  "file",
  "date",
  "uniq",
  "xxd",
  "jq",
  "perl",
  "python",
  "python3",
  "node",
  "ruby",
  "php",
  "bash",
  "sh",
  "zsh",
  "make",
  "docker",
  "kubectl",
  "npm",
  "npx",
  "yarn",
  "pnpm",
  "curl",
  "wget",
  "rsync",
  "gmake",
  "gtar",
  "bsdtar",
  "nodejs",
  "python2"
])

/** Shell variables whose change alters what later commands run or read. */
const DANGEROUS_SHELL_VARS = new Set([
  "IFS",
  "PATH",
  "BASH_ENV",
  "ENV",
  "PS1",
  "PS2",
  "PS4",
  "PROMPT_COMMAND",
  "SHELLOPTS",
  "BASHOPTS",
  "CDPATH",
  "GLOBIGNORE",
  "HOME",
  "BASH_XTRACEFD",
  "BASH_LOADABLES_PATH",
  "EXECIGNORE",
  "FIGNORE",
  "HISTFILE",
  "INPUTRC",
  "TMOUT"
])

/** An uppercase name that is not on the safe list: likely an exported variable that children see. */
export const isDangerousVariable = (name: string): boolean =>
  DANGEROUS_SHELL_VARS.has(name) ||
  /^(?:LD_|DYLD_)/.test(name) ||
  name.includes("%") ||
  (/^[A-Z_][A-Z0-9_]*$/.test(name) && !SAFE_ENV_VARS.has(name))

/** Builtins that evaluate `a[$(cmd)]` subscripts in their arguments. */
const SUBSCRIPT_EVALUATORS = new Set([
  "test",
  "[",
  "[[",
  "printf",
  "read",
  "unset",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "let",
  "mapfile",
  "readarray",
  "wait",
  "getopts",
  "shift",
  "return",
  "exit",
  "break",
  "continue",
  "ulimit",
  "kill",
  "printf",
  "source",
  "."
])
const SUBSCRIPT_PAYLOAD = /\[[^\]]*(?:\$\(|`|\$\{|\$[A-Za-z_])/

const literalArgs = (unit: Unit): Array<string | undefined> =>
  unit.argv.slice(1).map((w) => (typeof w === "string" ? w : undefined))

const hasOption = (
  args: ReadonlyArray<string | undefined>,
  names: ReadonlyArray<string>,
  shortLetters = ""
): string | undefined => {
  for (const a of args) {
    if (a === undefined || !a.startsWith("-")) continue
    const name = a.startsWith("--") && a.includes("=") ? a.slice(0, a.indexOf("=")) : a
    if (names.includes(name)) return name
    if (!a.startsWith("--")) { for (const ch of a.slice(1)) if (shortLetters.includes(ch)) return `-${ch}` }
  }
  return undefined
}

/** git options (any subcommand, abbreviations too) that write files or run programs. */
const GIT_RISKY_LONG = [
  "output",
  "output-directory",
  "exec",
  "upload-pack",
  "receive-pack",
  "open-files-in-pager",
  "ext-diff",
  "textconv",
  "extcmd",
  "sendmail-cmd",
  "to-cmd",
  "cc-cmd"
]
/** Exact git options that are also the start of a risky name. */
const GIT_EXACT_HARMLESS = new Set(["cc"])

const gitRiskyLong = (a: string): string | undefined => {
  if (!a.startsWith("--") || a === "--") return undefined
  const name = a.slice(2).split("=")[0]!
  if (name.length === 0 || GIT_EXACT_HARMLESS.has(name)) return undefined
  const hit = GIT_RISKY_LONG.find((r) => r === name || r.startsWith(name))
  return hit === undefined ? undefined : `--${hit}`
}

const gitGuard = (args: ReadonlyArray<string | undefined>): string | undefined => {
  let i = 0
  while (i < args.length) {
    const a = args[i]
    if (a === undefined || !a.startsWith("-")) break
    if (a === "-c" || a === "--config-env" || a.startsWith("--config-env=") || a.startsWith("-c")) {
      return "git -c sets configuration that can run programs"
    }
    if (a === "--exec-path" || a.startsWith("--exec-path=")) {
      return "git --exec-path runs programs from another directory"
    }
    if (
      a === "-C" || a === "--git-dir" || a.startsWith("--git-dir=") || a === "--work-tree" ||
      a.startsWith("--work-tree=")
    ) {
      return "git with another repository directory (its configuration can run programs)"
    }
    i += a === "--namespace" || a === "--super-prefix" ? 2 : 1
  }
  const sub = args[i]
  const rest: Array<string | undefined> = []
  for (const a of args.slice(i + 1)) {
    if (a === "--") break
    rest.push(a)
  }
  for (const a of rest) {
    const hit = a === undefined ? undefined : gitRiskyLong(a)
    if (hit !== undefined) return `git ${a} (${hit}) writes files or runs programs`
  }
  if (sub === "grep" && rest.some((a) => a !== undefined && /^-[^-]*O/.test(a))) {
    return "git grep -O runs a pager program"
  }
  if (
    (sub === "rebase" || sub === "difftool" || sub === "mergetool") &&
    rest.some((a) => a !== undefined && (/^-[^-]*[xt]/.test(a) || /^--(?:t|to|too|tool)(?:=|$)/.test(a)))
  ) return `git ${sub} -x/-t runs a program`
  if (sub === "format-patch" && rest.some((a) => a !== undefined && /^-[^-]*o/.test(a))) {
    return "git format-patch -o writes files"
  }
  if (
    (sub === "clone" || sub === "ls-remote" || sub === "fetch" || sub === "pull" || sub === "archive") &&
    rest.some((a) => a !== undefined && (/^-[^-]*u/.test(a) || a.startsWith("--remote")))
  ) {
    return `git ${sub} with a remote program`
  }
  if (sub === "submodule" && rest.includes("foreach")) return "git submodule foreach runs commands"
  if (sub === "bisect" && rest[0] === "run") return "git bisect run runs commands"
  if (sub === "filter-branch" || sub === "filter-repo") return `git ${sub} runs commands`
  if (sub === "config" && rest[0] !== "get" && rest[0] !== "list") {
    const reads = rest.some((a) =>
      a !== undefined && /^(?:--get|--get-all|--get-regexp|--get-urlmatch|--list|-l)$/.test(a)
    )
    const operands = rest.filter((a) => a === undefined || !a.startsWith("-"))
    if (
      !reads && (operands.length >= 2 || rest.some((a) =>
        a !== undefined &&
        /^(?:--add|--replace-all|--unset|--unset-all|--edit|-e|--rename-section|--remove-section|set|unset)$/.test(a)
      ))
    ) {
      return "git config writes configuration that can run programs"
    }
  }
  return undefined
}

const awkProgramGuard = (words: ReadonlyArray<WordFacts>): string | undefined => {
  const dangerous = dangerousOptions(TT.awk, words, WRITES_OR_RUNS)[0]
  if (dangerous !== undefined) return `awk ${dangerous.written} with a program file, an extension or an output file`
  let program: string | undefined
  for (let i = 1; i < words.length; i++) {
    const a = words[i]!.value
    if (typeof a !== "string") return "awk with a program only known at run time"
    if (a === "--") {
      const next = words[i + 1]?.value
      program = typeof next === "string" ? next : undefined
      if (next !== undefined && typeof next !== "string") return "awk with a program only known at run time"
      break
    }
    if (a.startsWith("-") && a !== "-") {
      if (a === "-v" || a === "-F" || a === "-W") i++
      continue
    }
    program = a
    break
  }
  if (program === undefined) return undefined
  if (/\bsystem\s*\(/.test(program)) return AWK_SYSTEM
  if (/\||>|\bgetline\b|@load|@include|\bfflush\b|\bclose\s*\(/.test(program)) {
    return "an awk program that runs commands or writes files"
  }
  return undefined
}

/** The guard of an awk program calling system() (Claude Code names this one). */
export const AWK_SYSTEM = "an awk program that calls system()"

const tarGuard = (words: ReadonlyArray<WordFacts>): string | undefined => {
  const dangerous = dangerousOptions(TT.tar, words, WRITES_OR_RUNS)[0]
  if (dangerous !== undefined) return `tar ${dangerous.written} runs programs or writes files`
  // The first word may be old-style letters without a dash (`tar xzf a.tar`).
  const first = words[1]?.value
  if (typeof first === "string" && !first.startsWith("-") && /[IF]/.test(first)) return "tar -I/-F runs programs"
  const archives = dangerousOptions(TT.tar, words, VALUES).filter((u) =>
    u.written === "-f" || u.written.startsWith("--f")
  )
  if (archives.some((u) => typeof u.value?.value === "string" && /^[^/]*:/.test(u.value.value))) {
    return "tar with a remote archive runs a remote shell"
  }
  return undefined
}

/** Options with a harmless argument (to look at the argument). */
const VALUES: ReadonlySet<OptionEffect> = new Set(["value"])
/** Options that make a command write, run something or change configuration. */
const WRITES_OR_RUNS: ReadonlySet<OptionEffect> = new Set(["write", "exec", "config", "unsafe"])
/** The same, and local files read and sent to another host. */
const SENDS_FILES: ReadonlySet<OptionEffect> = new Set(["write", "exec", "config", "unsafe", "read", "readList"])

interface OptionGuard {
  readonly table: OptionTable
  readonly effects: ReadonlySet<OptionEffect>
  /** Options end at the script or package (what follows belongs to it). */
  readonly stopAtOperand?: boolean
  /** Code given right after the program name is what the rule allowed (`Bash(python3 -c:*)`); later it was slipped in. */
  readonly notFirst?: boolean
}

const OPTION_GUARDS: Readonly<Record<string, OptionGuard>> = {
  sort: { table: T.sort, effects: WRITES_OR_RUNS },
  diff: { table: T.diff, effects: WRITES_OR_RUNS },
  file: { table: T.file, effects: WRITES_OR_RUNS },
  date: { table: T.date, effects: WRITES_OR_RUNS },
  sed: { table: T.sed, effects: new Set(["exec", "config", "unsafe"]) },
  make: { table: TT.make, effects: WRITES_OR_RUNS },
  gmake: { table: TT.make, effects: WRITES_OR_RUNS },
  curl: { table: TT.curl, effects: SENDS_FILES },
  wget: { table: TT.wget, effects: SENDS_FILES },
  rsync: { table: TT.rsync, effects: WRITES_OR_RUNS },
  node: { table: TT.node, effects: SENDS_FILES, stopAtOperand: true, notFirst: true },
  nodejs: { table: TT.node, effects: SENDS_FILES, stopAtOperand: true, notFirst: true },
  python: { table: TT.python, effects: WRITES_OR_RUNS, stopAtOperand: true, notFirst: true },
  python3: { table: TT.python, effects: WRITES_OR_RUNS, stopAtOperand: true, notFirst: true },
  python2: { table: TT.python, effects: WRITES_OR_RUNS, stopAtOperand: true, notFirst: true }
}

/** curl's data options read a file when their value starts with `@` (`-F` when a value part does). */
const curlSendsFile = (words: ReadonlyArray<WordFacts>): string | undefined => {
  const uses = dangerousOptions(TT.curl, words, VALUES)
  for (const use of uses) {
    const v = use.value?.value
    if (typeof v !== "string") continue
    if (
      /^--?(?:d|data|data-ascii|data-binary|data-urlencode|json)$/.test(use.written.replace(/^(--[a-z-]+).*/, "$1")) &&
      (v.startsWith("@") || /^[^=]*=?@/.test(v) && use.written.includes("urlencode"))
    ) return `curl ${use.written} sends a local file`
    if ((use.written === "-F" || use.written.startsWith("--form")) && /=[@<]/.test(v)) {
      return `curl ${use.written} sends a local file`
    }
  }
  return undefined
}

/** npm, pnpm, yarn, npx: configuration and package roots that run other programs (nopt resolves abbreviations). */
const PACKAGE_MANAGER_DANGER_KEYS = Object.keys(TT.PACKAGE_MANAGER_DANGERS)

const packageManagerGuard = (key: string, words: ReadonlyArray<WordFacts>): string | undefined => {
  const dangerKeys = PACKAGE_MANAGER_DANGER_KEYS
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (typeof v !== "string") continue
    if (v === "--") break
    if (!v.startsWith("-") || v === "-") {
      if (key === "npx" || key === "pnpx" || key === "bunx") break
      continue
    }
    const body = v.replace(/^--?/, "").split("=")[0]!
    const name = body.startsWith("no-") ? body.slice(3) : body
    if (v.startsWith("--") || body.length > 1) {
      const hit = dangerKeys.find((k) => k === name || (name.length > 0 && k.startsWith(name)))
      if (hit !== undefined && !(body.length <= 3 && !v.startsWith("--") && NPM_SHORTHANDS.has(body))) {
        return `${key} ${v} (${hit}) runs programs, writes outside the project or changes configuration`
      }
      if (v.startsWith("--")) continue
    }
    if (NPM_SHORTHANDS.has(body)) {
      if (body === "reg") return `${key} ${v} uses another registry`
      continue
    }
    for (const ch of body) {
      if (TT.PACKAGE_MANAGER_SHORT_DANGERS.has(ch)) return `${key} -${ch} runs programs or writes outside the project`
    }
  }
  return undefined
}
const NPM_SHORTHANDS = new Set([
  "d",
  "dd",
  "ddd",
  "q",
  "s",
  "quiet",
  "silent",
  "verbose",
  "desc",
  "help",
  "local",
  "n",
  "no",
  "porcelain",
  "readonly",
  "reg",
  "iwr",
  "ws",
  "w",
  "y",
  "f",
  "a",
  "l",
  "m",
  "p",
  "S",
  "B",
  "D",
  "E",
  "O",
  "P",
  "h",
  "H",
  "?",
  "v"
])

/**
 * Indexes of words that are the message of `git commit/tag/merge/notes/stash -m`: a value, never
 * an option, so it may be dynamic (`git commit -m "$(cat <<'EOF' … EOF)"`).
 */
const gitMessageValues = (unit: Unit): Set<number> => {
  const values = new Set<number>()
  const argv = unit.argv
  let i = 1
  while (i < argv.length && typeof argv[i] === "string" && (argv[i] as string).startsWith("-")) i++
  const sub = argv[i]
  if (sub !== "commit" && sub !== "tag" && sub !== "merge" && sub !== "notes" && sub !== "stash") return values
  for (let j = i + 1; j < argv.length - 1; j++) if (argv[j] === "-m" || argv[j] === "--message") values.add(j + 1)
  return values
}

const sedGuard = (words: ReadonlyArray<WordFacts>): string | undefined => {
  const sed = parseSedArgs(words)
  if (sed.problem !== undefined || sed.scriptFiles.length > 0) return "a sed script that cannot be checked"
  const facts = scanSedScript(sed.script)
  if (facts.unknown) return "a sed script that cannot be checked"
  // With --sandbox sed refuses e, r and w.
  if (sed.sandbox) return undefined
  if (facts.exec) return "a sed script that runs commands (e)"
  if (facts.write) return "a sed script that writes files (w)"
  return undefined
}

/** Variables on make's command line that change the shell or make's own options. */
const MAKE_SETTINGS =
  /^(?:SHELL|\.SHELLFLAGS|MAKESHELL|MAKE|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|\.RECIPEPREFIX)\s*[:+?!]?=/

/**
 * Any other variable on make's command line can name the program a recipe runs (`CC=./evil.sh`),
 * unless its value is a number or a yes/no switch (`V=1`, `VERBOSE=yes`).
 */
const programOverride = (word: string): boolean => {
  const match = /^[A-Za-z_.][A-Za-z0-9_.]*\s*[:+?!]?=(.*)$/s.exec(word)
  return match !== null && !/^(?:\d+|yes|no|true|false|on|off)?$/i.test(match[1]!)
}

/** Program-specific exec/write-capable arguments. */
const programGuard = (key: string, unit: Unit): string | undefined => {
  const args = literalArgs(unit)
  const words = unit.words
  const options = own(OPTION_GUARDS, key)
  if (options !== undefined) {
    const found = dangerousOptions(
      options.table,
      words,
      options.effects,
      options.stopAtOperand === true ? { stopAtOperand: true } : {}
    )
    // python's -c and -m end its options: what follows is the program's own argv.
    const end = options.table === TT.python
      ? (found.find((u) => u.written === "-c" || u.written === "-m")?.index ?? words.length)
      : words.length
    const slipped = (options.notFirst === true ? found.filter((u) => u.index > 1) : found).filter((u) => u.index <= end)
    const hit = slipped[0]
    if (hit !== undefined) {
      return `${key} ${hit.written} ${
        hit.effect === "write"
          ? "writes files"
          : hit.effect === "read" || hit.effect === "readList"
          ? "reads local files"
          : "runs programs or changes configuration"
      }`
    }
  }
  switch (key) {
    case "make":
    case "gmake": {
      const override = words.slice(1).find((w) =>
        typeof w.value === "string" && (MAKE_SETTINGS.test(w.value) || programOverride(w.value))
      )
      return override === undefined ? undefined : `make ${override.value as string} changes how make runs recipes`
    }
    case "sed":
      return sedGuard(words)
    case "git":
      return gitGuard(args)
    case "curl":
      return curlSendsFile(words)
    case "npm":
    case "pnpm":
    case "yarn":
    case "npx":
    case "pnpx":
    case "bunx":
      return packageManagerGuard(key, words)
    case "find": {
      const hit = hasOption(args, ["-fprint", "-fprint0", "-fprintf", "-fls"])
      return hit === undefined ? undefined : `find ${hit} writes a file`
    }
    case "rg": {
      const hit = hasOption(args, ["--pre", "--pre-glob", "--hostname-bin"])
      return hit === undefined ? undefined : `rg ${hit} runs a program`
    }
    case "tar":
    case "bsdtar":
    case "gtar":
      return tarGuard(words)
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return awkProgramGuard(words)
    case "man": {
      const hit = hasOption(args, ["-P", "--pager", "-H", "--html", "--browser", "-X", "--gxditview"], "PHX")
      return hit === undefined ? undefined : `man ${hit} runs a program`
    }
    case "less":
    case "more":
      return args.some((a) => a !== undefined && a.startsWith("+")) ? `${key} with a startup command` : undefined
    case "zip": {
      const hit = hasOption(args, ["-TT", "--unzip-command"])
      return hit === undefined ? undefined : "zip -TT runs a program"
    }
    case "ssh":
    case "scp":
    case "sftp": {
      if (
        args.some((a) =>
          a !== undefined && /(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand|match\s+exec)/i.test(a)
        )
      ) return `${key} with an option that runs a local program`
      const hit = hasOption(args, ["-F", "-S", "-D"], key === "ssh" ? "F" : "FS")
      return hit === undefined ? undefined : `${key} ${hit} (configuration or program)`
    }
    case "printf":
      return hasOption(args, ["-v"], "v") !== undefined ? "printf -v assigns a variable" : undefined
    default:
      return undefined
  }
}

/** Every guard that fires on this unit (static: no context needed). */
export const unitGuards = memoByUnit((unit: Unit): ReadonlyArray<string> => {
  const found: Array<string> = []
  const argv0 = unit.argv[0]
  const key = typeof argv0 === "string" ? commandKey(argv0) : ""
  if (unit.role === "assignment") {
    for (const e of unit.envFacts) {
      if (isDangerousVariable(e.name)) found.push(`setting the shell variable ${e.name}`)
      if (SUBSCRIPT_PAYLOAD.test(e.raw)) found.push("an assignment whose value bash may evaluate as a subscript")
    }
    return found
  }
  if (key === "export" || key === "declare" || key === "typeset" || key === "local" || key === "readonly") {
    for (const w of unit.words.slice(1)) {
      const text = typeof w.value === "string" ? w.value : w.raw
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text)?.[0]
      if (name !== undefined && !text.startsWith("-") && isDangerousVariable(name)) {
        found.push(`setting the shell variable ${name}`)
      }
    }
  }
  if (unit.role !== "redirect-only") {
    for (const e of unit.envFacts) {
      if (!SAFE_ENV_VARS.has(e.name)) {
        found.push(`the environment variable ${e.name} is not on the safe list`)
        break
      }
    }
  }
  if (SUBSCRIPT_EVALUATORS.has(key) || unit.role === "test") {
    if (unit.words.slice(1).some((w) => SUBSCRIPT_PAYLOAD.test(typeof w.value === "string" ? w.value : w.raw))) {
      found.push("an argument bash evaluates as an array subscript")
    }
  }
  const program = programGuard(key, unit)
  if (program !== undefined) found.push(program)
  const optionsMatter = own(OPTION_GUARDS, key) !== undefined
  if (EXEC_CAPABLE.has(key) || optionsMatter) {
    // A value only known at run time (or xargs' run-time arguments) could be any option.
    const words = unit.words.slice(1)
    const isValue = key === "git" ? gitMessageValues(unit) : new Set<number>()
    if (words.some((w, i) => typeof w.value !== "string" && !w.procSub && !isValue.has(i + 1))) {
      found.push(`${key} with arguments only known at run time`)
    }
    if (EXEC_CAPABLE.has(key) && words.some((w) => w.unquotedGlob)) {
      found.push(`an unquoted glob in the arguments of ${key}`)
    }
  }
  return found
})
