/**
 * Guards: facts about one unit that force a prompt even when an allow rule or the read-only set
 * would approve it (shell-security §3.1 step 5d): exec/write-capable arguments (§2 class 7),
 * evaluation hidden in data (class 14), dangerous environment (class 8), values only known at run
 * time or unquoted globs reaching programs that can run things (class 5).
 */
import { SAFE_ENV_VARS } from "./bashRules.js"
import { parseSedArgs, scanSedScript } from "./sedScript.js"
import type { Unit } from "./units.js"
import { commandKey } from "./wrappers.js"
import { memoByUnit } from "./memo.js"

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
  "pnpm"
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

/** Builtins that evaluate `a[$(cmd)]` subscripts in their arguments (§2 class 14). */
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

const literalArgs = (unit: Unit): Array<string | undefined> => unit.argv.slice(1).map((w) => (typeof w === "string" ? w : undefined))

const hasOption = (args: ReadonlyArray<string | undefined>, names: ReadonlyArray<string>, shortLetters = ""): string | undefined => {
  for (const a of args) {
    if (a === undefined || !a.startsWith("-")) continue
    const name = a.startsWith("--") && a.includes("=") ? a.slice(0, a.indexOf("=")) : a
    if (names.includes(name)) return name
    if (!a.startsWith("--")) for (const ch of a.slice(1)) if (shortLetters.includes(ch)) return `-${ch}`
  }
  return undefined
}

const gitGuard = (args: ReadonlyArray<string | undefined>): string | undefined => {
  let i = 0
  while (i < args.length) {
    const a = args[i]
    if (a === undefined || !a.startsWith("-")) break
    if (a === "-c" || a === "--config-env" || a.startsWith("--config-env=") || a.startsWith("-c")) return "git -c sets configuration that can run programs"
    if (a === "--exec-path" || a.startsWith("--exec-path=")) return "git --exec-path runs programs from another directory"
    if (a === "-C" || a === "--git-dir" || a.startsWith("--git-dir=") || a === "--work-tree" || a.startsWith("--work-tree=")) {
      return "git with another repository directory (its configuration can run programs)"
    }
    i += a === "--namespace" || a === "--super-prefix" ? 2 : 1
  }
  const sub = args[i]
  const rest = args.slice(i + 1)
  const risky = ["--output", "--exec", "--upload-pack", "--receive-pack", "--open-files-in-pager", "--ext-diff", "--extcmd", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--output-directory"]
  for (const a of rest) {
    if (a === undefined) continue
    for (const r of risky) if (a === r || a.startsWith(r + "=")) return `git ${r} writes files or runs programs`
  }
  if (sub === "grep" && rest.some((a) => a !== undefined && /^-[^-]*O/.test(a))) return "git grep -O runs a pager program"
  if ((sub === "rebase" || sub === "difftool" || sub === "mergetool") && rest.some((a) => a !== undefined && /^-[^-]*[xt]/.test(a))) return `git ${sub} -x/-t runs a program`
  if ((sub === "clone" || sub === "ls-remote" || sub === "fetch" || sub === "pull" || sub === "archive") && rest.some((a) => a === "-u" || (a !== undefined && a.startsWith("--remote")))) {
    return `git ${sub} with a remote program`
  }
  if (sub === "submodule" && rest.includes("foreach")) return "git submodule foreach runs commands"
  if (sub === "bisect" && rest[0] === "run") return "git bisect run runs commands"
  if (sub === "filter-branch" || sub === "filter-repo") return `git ${sub} runs commands`
  if (sub === "config" && rest[0] !== "get" && rest[0] !== "list") {
    const reads = rest.some((a) => a !== undefined && /^(?:--get|--get-all|--get-regexp|--get-urlmatch|--list|-l)$/.test(a))
    const operands = rest.filter((a) => a === undefined || !a.startsWith("-"))
    if (!reads && (operands.length >= 2 || rest.some((a) => a !== undefined && /^(?:--add|--replace-all|--unset|--unset-all|--edit|-e|--rename-section|--remove-section|set|unset)$/.test(a)))) {
      return "git config writes configuration that can run programs"
    }
  }
  return undefined
}

const awkProgramGuard = (args: ReadonlyArray<string | undefined>): string | undefined => {
  let program: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === undefined) return "awk with a program only known at run time"
    if (a === "--") {
      program = args[i + 1]
      break
    }
    if (a.startsWith("-")) {
      if (/^-(?:f|E|i|l)|^--(?:file|exec|include|load|source)/.test(a)) return "awk with a program file or extension"
      if (a === "-v" || a === "-F") i++
      continue
    }
    program = a
    break
  }
  if (program === undefined) return undefined
  if (/\bsystem\s*\(|\||>|\bgetline\b|@load|@include|\bfflush\b|\bclose\s*\(/.test(program)) return "an awk program that runs commands or writes files"
  return undefined
}

const tarGuard = (args: ReadonlyArray<string | undefined>): string | undefined => {
  const risky = ["--checkpoint-action", "--to-command", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script", "--rmt-command", "--index-file"]
  for (const a of args) {
    if (a === undefined) continue
    for (const r of risky) if (a === r || a.startsWith(r + "=")) return `tar ${r} runs programs or writes files`
  }
  const first = args[0]
  const shortRisk = (cluster: string) => /[IF]/.test(cluster)
  if (first !== undefined && !first.startsWith("-") && shortRisk(first)) return "tar -I/-F runs programs"
  if (args.some((a) => a !== undefined && /^-[^-]/.test(a) && shortRisk(a.slice(1)))) return "tar -I/-F runs programs"
  return undefined
}

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

/** Program-specific exec/write-capable arguments. */
const programGuard = (key: string, unit: Unit): string | undefined => {
  const args = literalArgs(unit)
  switch (key) {
    case "sed": {
      const sed = parseSedArgs(args)
      if (sed.sandbox && !sed.opaque) return undefined
      if (sed.opaque) return "a sed script that cannot be checked"
      for (const script of sed.scripts) {
        const facts = scanSedScript(script)
        if (facts.unknown) return "a sed script that cannot be checked"
        if (facts.exec) return "a sed script that runs commands (e)"
        if (facts.write) return "a sed script that writes files (w)"
      }
      return undefined
    }
    case "git":
      return gitGuard(args)
    case "find": {
      const hit = hasOption(args, ["-fprint", "-fprint0", "-fprintf", "-fls"])
      return hit === undefined ? undefined : `find ${hit} writes a file`
    }
    case "rg": {
      const hit = hasOption(args, ["--pre", "--pre-glob", "--hostname-bin"])
      return hit === undefined ? undefined : `rg ${hit} runs a program`
    }
    case "sort": {
      const hit = hasOption(args, ["--compress-program"])
      return hit === undefined ? undefined : "sort --compress-program runs a program"
    }
    case "tar":
    case "bsdtar":
    case "gtar":
      return tarGuard(args)
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return awkProgramGuard(args)
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
    case "rsync": {
      const hit = hasOption(args, ["-e", "--rsh", "--rsync-path"], "e")
      return hit === undefined ? undefined : `rsync ${hit} runs a program`
    }
    case "ssh":
    case "scp":
    case "sftp": {
      if (args.some((a) => a !== undefined && /(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand|match\s+exec)/i.test(a))) return `${key} with an option that runs a local program`
      const hit = hasOption(args, ["-F", "-S", "-D"], key === "ssh" ? "F" : "FS")
      return hit === undefined ? undefined : `${key} ${hit} (configuration or program)`
    }
    case "printf":
      return hasOption(args, ["-v"], "v") !== undefined ? "printf -v assigns a variable" : undefined
    case "xxd":
      return undefined
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
      if (name !== undefined && !text.startsWith("-") && isDangerousVariable(name)) found.push(`setting the shell variable ${name}`)
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
    if (unit.words.slice(1).some((w) => SUBSCRIPT_PAYLOAD.test(typeof w.value === "string" ? w.value : w.raw))) found.push("an argument bash evaluates as an array subscript")
  }
  const program = programGuard(key, unit)
  if (program !== undefined) found.push(program)
  if (EXEC_CAPABLE.has(key)) {
    const words = unit.words.slice(1)
    const isValue = key === "git" ? gitMessageValues(unit) : new Set<number>()
    if (words.some((w, i) => typeof w.value !== "string" && !w.procSub && !isValue.has(i + 1))) found.push(`${key} with arguments only known at run time`)
    if (words.some((w) => w.unquotedGlob)) found.push(`an unquoted glob in the arguments of ${key}`)
  }
  return found
})
