/**
 * Wrappers, nested shells and code evaluators.
 * Given a resolved argv, says what runs inside it: another argv (transparent or exec wrapper),
 * a script to parse again (`bash -c`, `eval`, `watch`, `flock -c`), or nothing we can vouch for.
 */
import type { WordFacts } from "./words.js"
import type { EnvFacts } from "./units.js"

export type Unwrapped =
  | { readonly kind: "none" }
  | { readonly kind: "complex"; readonly reason: string }
  | {
    readonly kind: "wrapper"
    /** transparent: the outer needs no approval; exec: the outer must be allowed too. */
    readonly role: "transparent" | "exec"
    /** Index of the inner argv[0]; equal to argv.length when there is no inner command. */
    readonly innerStart: number
    /** For find: where the inner command ends (exclusive). */
    readonly innerEnd?: number
    readonly extraEnv?: ReadonlyArray<EnvFacts>
    /** The inner command gets more arguments at run time (xargs). */
    readonly runtimeArgs?: boolean
    /** Only an exact rule approves the outer command (watch, setsid, ionice, flock). */
    readonly exactRuleOnly?: string
    /** Replace the inner argv with this (xargs without a command runs echo). */
    readonly innerArgv?: ReadonlyArray<string>
  }
  | {
    readonly kind: "script"
    readonly script: string
    readonly role: "nested-shell" | "exec"
    readonly exactRuleOnly?: string
  }
  | {
    readonly kind: "find"
    /** [start, end) of each -exec/-execdir/-ok/-okdir command. */
    readonly commands: ReadonlyArray<readonly [number, number]>
    readonly exactRuleOnly?: string
  }

const NONE: Unwrapped = { kind: "none" }
const complex = (reason: string): Unwrapped => ({ kind: "complex", reason })

/** The lower-cased basename: how wrappers are recognised (over-recognising only adds checks). */
export const commandKey = (argv0: string): string => {
  const slash = argv0.lastIndexOf("/")
  return (slash === -1 ? argv0 : argv0.slice(slash + 1)).toLowerCase()
}

const lit = (words: ReadonlyArray<WordFacts>, i: number): string | undefined => {
  const w = words[i]
  return w === undefined || typeof w.value !== "string" ? undefined : w.value
}

interface OptionSpec {
  /** Short options that take a value (`-n 5`, `-n5`). */
  readonly shortWithValue: string
  /** Short flags. */
  readonly shortFlags: string
  /** Long options that take a value (`--signal=X`, `--signal X`). */
  readonly longWithValue: ReadonlyArray<string>
  readonly longFlags: ReadonlyArray<string>
  /** Options that make the wrapper unanalysable. */
  readonly forbidden?: ReadonlyArray<string>
  /** A digits-only short option (`nice -10`). */
  readonly numericShort?: boolean
}

/**
 * Skips the options of a wrapper starting at `start`; returns the index of the first operand,
 * or a reason when an option is unknown, forbidden or dynamic.
 */
const skipOptions = (
  words: ReadonlyArray<WordFacts>,
  start: number,
  spec: OptionSpec,
  seen?: Set<string>
): number | { readonly reason: string } => {
  let i = start
  while (i < words.length) {
    const arg = lit(words, i)
    if (arg === undefined) return { reason: "a dynamic wrapper option" }
    if (arg === "--") return i + 1
    if (!arg.startsWith("-") || arg === "-") return i
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq === -1 ? arg : arg.slice(0, eq)
      if (spec.forbidden?.includes(name)) return { reason: `the wrapper option ${name}` }
      seen?.add(name)
      if (spec.longWithValue.includes(name)) {
        i += eq === -1 ? 2 : 1
        continue
      }
      if (spec.longFlags.includes(name) && eq === -1) {
        i++
        continue
      }
      return { reason: `the unknown wrapper option ${name}` }
    }
    if (spec.numericShort === true && /^-\d+$/.test(arg)) {
      i++
      continue
    }
    // A cluster of short options, possibly ending in one that takes a value.
    let j = 1
    let consumedNext = false
    while (j < arg.length) {
      const ch = arg[j]!
      if (spec.forbidden?.includes(`-${ch}`)) return { reason: `the wrapper option -${ch}` }
      seen?.add(`-${ch}`)
      if (spec.shortWithValue.includes(ch)) {
        if (j === arg.length - 1) consumedNext = true
        break
      }
      if (!spec.shortFlags.includes(ch)) return { reason: `the unknown wrapper option -${ch}` }
      j++
    }
    i += consumedNext ? 2 : 1
  }
  return i
}

const wrapper = (
  role: "transparent" | "exec",
  innerStart: number,
  extra: {
    extraEnv?: ReadonlyArray<EnvFacts>
    runtimeArgs?: boolean
    exactRuleOnly?: string
    innerArgv?: ReadonlyArray<string>
  } = {}
): Unwrapped => ({ kind: "wrapper", role, innerStart, ...extra })

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/** Collects `NAME=value` words (env, sudo) as environment of the inner command. */
const takeAssignments = (
  words: ReadonlyArray<WordFacts>,
  start: number
): { readonly env: Array<EnvFacts>; readonly next: number } => {
  const env: Array<EnvFacts> = []
  let i = start
  while (i < words.length) {
    const w = words[i]!
    const text = typeof w.value === "string" ? w.value : w.raw
    const match = ENV_ASSIGNMENT.exec(text)
    if (match === null) break
    const name = match[0].slice(0, -1)
    env.push({ name, value: typeof w.value === "string" ? w.value.slice(name.length + 1) : w.value, raw: w.raw })
    i++
  }
  return { env, next: i }
}

const SHELLS = new Set(["bash", "sh", "dash", "ksh", "mksh", "ash", "rbash"])
const OTHER_SHELLS = new Set([
  "zsh",
  "fish",
  "csh",
  "tcsh",
  "pwsh",
  "powershell",
  "nu",
  "elvish",
  "xonsh",
  "yash",
  "oksh",
  "loksh",
  "posh",
  "hush",
  "rc",
  "es"
])

/**
 * Programs that run a command (or a command string) given in their arguments, in a way that is
 * not unwrapped here: another user, root directory, namespace, host or scheduler. The command
 * is too complex to approve; deny rules still reach what runs inside through the raw-text scan.
 */
const OPAQUE_RUNNERS = new Set([
  "chroot",
  "unbuffer",
  "nsenter",
  "unshare",
  "dbus-run-session",
  "parallel",
  "ssh",
  "taskset",
  "chrt",
  "numactl",
  "prlimit",
  "firejail",
  "bwrap",
  "strace",
  "ltrace",
  "valgrind",
  "fakeroot",
  "proot",
  "systemd-run",
  "pkexec",
  "runuser",
  "sg",
  "newgrp",
  "script",
  "expect",
  "tmux",
  "screen",
  "entr",
  "catchsegv",
  "faketime",
  "torsocks",
  "proxychains",
  "proxychains4",
  "gdb",
  "lldb",
  "direnv",
  "with-contenv",
  "s6-setuidgid",
  "setpriv",
  "capsh"
])

/** Programs that run command text given in their arguments (shells, eval, opaque runners). */
export const runsCommandText = (key: string): boolean =>
  SHELLS.has(key) || OTHER_SHELLS.has(key) || OPAQUE_RUNNERS.has(key) || key === "eval" || key === "busybox"

/** Script operands that make a shell read its commands from standard input. */
const STDIN_SCRIPT = /^(?:-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/(?:self|thread-self|\d+)\/fd\/\d+)$/

/** `bash [opts] -c SCRIPT [name args…]`; other forms read code we cannot see. */
const unwrapShell = (words: ReadonlyArray<WordFacts>): Unwrapped => {
  let i = 1
  let hasC = false
  while (i < words.length) {
    const arg = lit(words, i)
    if (arg === undefined) return complex("a dynamic shell option")
    if (arg === "--" || arg === "-") {
      i++
      break
    }
    if (arg.startsWith("--")) {
      if (
        arg === "--norc" || arg === "--noprofile" || arg === "--posix" || arg === "--noediting" ||
        arg === "--restricted"
      ) {
        i++
        continue
      }
      return complex(`the shell option ${arg}`)
    }
    if (arg.startsWith("-") || arg.startsWith("+")) {
      for (const ch of arg.slice(1)) {
        if (ch === "c") hasC = true
        else if (ch === "o" || ch === "O") {
          i++ // option name follows
        } else if (!"eEuxvnfhBCHTkmpPrab".includes(ch)) return complex(`the shell option ${arg[0]}${ch}`)
      }
      i++
      continue
    }
    break
  }
  if (!hasC) {
    // A script file is run like any program; reading from stdin or a terminal is not analysable.
    if (i >= words.length) return complex("a shell that reads its commands from standard input")
    const script = lit(words, i)
    if (script === undefined) return complex("a shell running a script only known at run time")
    return STDIN_SCRIPT.test(script) ? complex("a shell that reads its commands from standard input") : NONE
  }
  const script = lit(words, i)
  if (script === undefined) {
    return i < words.length
      ? complex("a shell -c with a dynamic script")
      : complex("a shell -c without a script")
  }
  return { kind: "script", script, role: "nested-shell" }
}

const unwrapFind = (words: ReadonlyArray<WordFacts>): Unwrapped => {
  const commands: Array<readonly [number, number]> = []
  let exactRuleOnly: string | undefined
  for (let i = 1; i < words.length; i++) {
    const arg = lit(words, i)
    if (arg === undefined) continue
    if (arg === "-delete") exactRuleOnly = "find -delete"
    if (arg === "-exec" || arg === "-execdir" || arg === "-ok" || arg === "-okdir") {
      exactRuleOnly = `find ${arg}`
      let end = i + 1
      while (end < words.length && lit(words, end) !== ";" && lit(words, end) !== "+") end++
      if (end >= words.length) return complex(`find ${arg} without a terminating ';' or '+'`)
      if (end === i + 1) return complex(`find ${arg} without a command`)
      commands.push([i + 1, end])
      i = end
    }
  }
  if (commands.length === 0 && exactRuleOnly === undefined) return NONE
  return exactRuleOnly === undefined ? { kind: "find", commands } : { kind: "find", commands, exactRuleOnly }
}

/** Builtins and programs that run code we cannot see. */
const CODE_EVALUATORS = new Set([
  "source",
  ".",
  "trap",
  "fc",
  "enable",
  "hash",
  "bind",
  "complete",
  "let",
  "alias",
  "unalias",
  "shopt",
  "su",
  "osascript"
])

export const unwrap = (words: ReadonlyArray<WordFacts>): Unwrapped => {
  const argv0 = lit(words, 0)
  if (argv0 === undefined) return NONE
  const key = commandKey(argv0)
  switch (key) {
    case "time": {
      const r = skipOptions(words, 1, { shortWithValue: "", shortFlags: "p", longWithValue: [], longFlags: [] })
      return typeof r === "number" ? wrapper("transparent", r) : complex(r.reason)
    }
    case "nohup":
    case "builtin":
    case "noglob": {
      const start = lit(words, 1) === "--" ? 2 : 1
      return wrapper("transparent", start)
    }
    case "command": {
      const seen = new Set<string>()
      const r = skipOptions(words, 1, { shortWithValue: "", shortFlags: "pvV", longWithValue: [], longFlags: [] }, seen)
      if (typeof r !== "number") return complex(r.reason)
      if (seen.has("-v") || seen.has("-V")) return NONE // a lookup, not a run
      return wrapper("transparent", r)
    }
    case "timeout": {
      const r = skipOptions(words, 1, {
        shortWithValue: "sk",
        shortFlags: "v",
        longWithValue: ["--signal", "--kill-after"],
        longFlags: ["--preserve-status", "--foreground", "--verbose"]
      })
      if (typeof r !== "number") return complex(r.reason)
      if (r >= words.length) return NONE
      if (lit(words, r) === undefined) return complex("a dynamic timeout duration")
      return wrapper("transparent", r + 1)
    }
    case "nice": {
      const r = skipOptions(words, 1, {
        shortWithValue: "n",
        shortFlags: "",
        longWithValue: ["--adjustment"],
        longFlags: [],
        numericShort: true
      })
      return typeof r === "number" ? wrapper("transparent", r) : complex(r.reason)
    }
    case "stdbuf": {
      const r = skipOptions(words, 1, {
        shortWithValue: "ioe",
        shortFlags: "",
        longWithValue: ["--input", "--output", "--error"],
        longFlags: []
      })
      return typeof r === "number" ? wrapper("transparent", r) : complex(r.reason)
    }
    case "env": {
      const r = skipOptions(words, 1, {
        shortWithValue: "u",
        shortFlags: "i0v",
        longWithValue: ["--unset", "--block-signal", "--default-signal", "--ignore-signal"],
        longFlags: ["--ignore-environment", "--null", "--debug", "--list-signal-handling"],
        forbidden: ["-S", "--split-string", "-C", "--chdir", "-P", "-a", "--argv0"]
      })
      if (typeof r !== "number") return complex(`env: ${r.reason}`)
      // `env -` is `env -i`
      const start = lit(words, r) === "-" ? r + 1 : r
      const { env, next } = takeAssignments(words, start)
      // Without a command, env prints the environment: it is printenv then, not a wrapper.
      return wrapper(
        "transparent",
        next,
        next >= words.length ? { extraEnv: env, innerArgv: ["printenv"] } : { extraEnv: env }
      )
    }
    case "xargs": {
      const seen = new Set<string>()
      const r = skipOptions(
        words,
        1,
        {
          shortWithValue: "adEILnPs",
          shortFlags: "0oprtx",
          longWithValue: [
            "--arg-file",
            "--delimiter",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var"
          ],
          longFlags: [
            "--null",
            "--open-tty",
            "--interactive",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--show-limits"
          ],
          forbidden: ["-e", "-i", "-l", "--eof", "--replace"]
        },
        seen
      )
      if (typeof r !== "number") return complex(r.reason)
      const bare = r === 1
      const innerArgv = r >= words.length ? ["echo"] : undefined
      return wrapper(
        bare ? "transparent" : "exec",
        r,
        innerArgv === undefined ? { runtimeArgs: true } : { runtimeArgs: true, innerArgv }
      )
    }
    case "sudo":
    case "doas": {
      const r = skipOptions(words, 1, {
        shortWithValue: "ugCDhprtTUc",
        shortFlags: "EHnSbAPkK",
        longWithValue: [
          "--user",
          "--group",
          "--close-from",
          "--chdir",
          "--host",
          "--prompt",
          "--role",
          "--type",
          "--command-timeout",
          "--other-user"
        ],
        longFlags: [
          "--preserve-env",
          "--set-home",
          "--non-interactive",
          "--stdin",
          "--background",
          "--askpass",
          "--preserve-groups",
          "--reset-timestamp",
          "--remove-timestamp"
        ],
        forbidden: ["-i", "-s", "--login", "--shell", "-e", "--edit", "-l", "--list", "-v", "--validate"]
      })
      if (typeof r !== "number") return complex(r.reason)
      const { env, next } = takeAssignments(words, r)
      if (next >= words.length) return complex(`${key} without a command`)
      return wrapper("exec", next, { extraEnv: env })
    }
    case "exec": {
      const r = skipOptions(words, 1, { shortWithValue: "a", shortFlags: "cl", longWithValue: [], longFlags: [] })
      if (typeof r !== "number") return complex(r.reason)
      return r >= words.length ? NONE : wrapper("exec", r)
    }
    case "coproc":
      return words.length > 1 ? wrapper("exec", 1) : complex("coproc without a command")
    case "setsid": {
      const r = skipOptions(words, 1, {
        shortWithValue: "",
        shortFlags: "cfw",
        longWithValue: [],
        longFlags: ["--ctty", "--fork", "--wait"]
      })
      if (typeof r !== "number") return complex(r.reason)
      return r >= words.length ? NONE : wrapper("exec", r, { exactRuleOnly: "setsid" })
    }
    case "ionice": {
      const seen = new Set<string>()
      const r = skipOptions(words, 1, {
        shortWithValue: "cnpPu",
        shortFlags: "t",
        longWithValue: ["--class", "--classdata", "--pid", "--pgid", "--uid"],
        longFlags: ["--ignore"]
      }, seen)
      if (typeof r !== "number") return complex(r.reason)
      if (
        seen.has("-p") || seen.has("-P") || seen.has("-u") || seen.has("--pid") || seen.has("--pgid") ||
        seen.has("--uid") || r >= words.length
      ) return NONE
      return wrapper("exec", r, { exactRuleOnly: "ionice" })
    }
    case "flock": {
      const seen = new Set<string>()
      const r = skipOptions(
        words,
        1,
        {
          shortWithValue: "Ewc",
          shortFlags: "sxunoFv",
          longWithValue: ["--conflict-exit-code", "--wait", "--timeout", "--command"],
          longFlags: ["--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--verbose"]
        },
        seen
      )
      if (typeof r !== "number") return complex(r.reason)
      if (seen.has("-c") || seen.has("--command")) {
        // flock [opts] FILE -c STRING has the option after the file: handled below.
        return complex("flock -c before the lock file")
      }
      if (r >= words.length) return complex("flock without a lock file")
      const afterFile = r + 1
      if (afterFile >= words.length) return NONE // flock FD
      const next = lit(words, afterFile)
      if (next === "-c" || next === "--command") {
        const script = lit(words, afterFile + 1)
        return script === undefined
          ? complex("flock -c with a dynamic script")
          : { kind: "script", script, role: "exec", exactRuleOnly: "flock" }
      }
      return wrapper("exec", afterFile, { exactRuleOnly: "flock" })
    }
    case "watch": {
      const seen = new Set<string>()
      const r = skipOptions(
        words,
        1,
        {
          shortWithValue: "nq",
          shortFlags: "dtbegcCpwxr",
          longWithValue: ["--interval", "--equexit"],
          longFlags: [
            "--differences",
            "--no-title",
            "--beep",
            "--errexit",
            "--chgexit",
            "--color",
            "--no-color",
            "--precise",
            "--no-wrap",
            "--exec",
            "--no-rerun",
            "--no-linewrap"
          ]
        },
        seen
      )
      if (typeof r !== "number") return complex(r.reason)
      if (r >= words.length) return complex("watch without a command")
      if (seen.has("-x") || seen.has("--exec")) return wrapper("exec", r, { exactRuleOnly: "watch" })
      const parts: Array<string> = []
      for (let i = r; i < words.length; i++) {
        const part = lit(words, i)
        if (part === undefined) return complex("watch with a dynamic command")
        parts.push(part)
      }
      return { kind: "script", script: parts.join(" "), role: "exec", exactRuleOnly: "watch" }
    }
    case "eval": {
      const parts: Array<string> = []
      for (let i = 1; i < words.length; i++) {
        const part = lit(words, i)
        if (part === undefined) return complex("eval of a dynamic string")
        parts.push(part)
      }
      return { kind: "script", script: parts.join(" "), role: "nested-shell" }
    }
    case "find":
      return unwrapFind(words)
    case "busybox": {
      // `busybox APPLET args…` runs the applet; busybox itself must be allowed too.
      if (words.length < 2) return NONE
      const applet = lit(words, 1)
      if (applet === undefined) return complex("busybox with a dynamic applet")
      return applet.startsWith("-") ? complex(`busybox ${applet}`) : wrapper("exec", 1)
    }
    default:
      if (OPAQUE_RUNNERS.has(key)) {
        return words.length > 1
          ? complex(`${key} runs a command that cannot be checked`)
          : NONE
      }
      if (SHELLS.has(key)) return unwrapShell(words)
      if (OTHER_SHELLS.has(key)) {
        return words.length > 1
          ? complex(`the ${key} shell`)
          : complex(`an interactive ${key} shell`)
      }
      if (CODE_EVALUATORS.has(key)) return complex(`${key} runs code that cannot be checked`)
      if (
        (key === "compgen" || key === "complete") && words.some((w) => w.raw.startsWith("-C") || w.raw.startsWith("-F"))
      ) return complex(`${key} -C`)
      if (
        (key === "mapfile" || key === "readarray") &&
        words.some((w) => typeof w.value === "string" && /^-[^-]*C/.test(w.value))
      ) return complex(`${key} -C`)
      return NONE
  }
}
