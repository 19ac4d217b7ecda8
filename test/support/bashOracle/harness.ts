/**
 * The oracle's private bin and shell files (one harness per sandbox slot): every program name of
 * the machine becomes a stub that logs its working directory and argv (NUL-separated, one log
 * file per process) and then either exits 0 or, for programs the corpus reads with, runs the real
 * program, so that what those programs do with their options (write a file, run a program) shows.
 * Inside the sandbox the stubs stand over /usr/bin, /usr/sbin and /usr/local/bin, and the real
 * /usr/bin is mounted at `realbin/`, so anything started by anything is logged.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { shellTempDir } from "../../../src/tools/bash/cwdTrap.js"

/** Programs that run for real after being logged: reading programs and the wrappers that run others. */
export const PASS_THROUGH: ReadonlyArray<string> = [
  // reading programs whose options may write files or run programs
  "cat",
  "head",
  "tail",
  "ls",
  "grep",
  "rg",
  "find",
  "sed",
  "sort",
  "uniq",
  "wc",
  "git",
  "diff",
  "cmp",
  "comm",
  "jq",
  "file",
  "strings",
  "stat",
  "cut",
  "tr",
  "od",
  "xxd",
  "hexdump",
  "nl",
  "tac",
  "rev",
  "fold",
  "expand",
  "unexpand",
  "column",
  "paste",
  "base64",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "cksum",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "du",
  "date",
  "printenv",
  "id",
  "whoami",
  "uname",
  "seq",
  "awk",
  "gawk",
  "mawk",
  // builtins disabled in the command's shell, so that they are logged too
  "echo",
  "printf",
  "pwd",
  "test",
  "[",
  "true",
  "false",
  // wrappers: the real one runs its command through PATH, i.e. through a stub
  "env",
  "xargs",
  "timeout",
  "nice",
  "nohup",
  "stdbuf"
]

/** Builtins that the command's shell looks up in PATH instead (the cwd trap gets them back at exit). */
export const DISABLED_BUILTINS: ReadonlyArray<string> = ["echo", "printf", "pwd", "test", "[", "true", "false", "kill"]

/** The interpreter of scripts in the scratch project: a stub, so running one is logged as a run of the script itself. */
export const PROJECT_SCRIPT_STUB = "oracle-project-script"

/** Names the corpus uses that may not exist on this machine. */
const EXTRA_NAMES = [
  "npm",
  "npx",
  "node",
  "make",
  "python",
  "python3",
  "curl",
  "wget",
  "sudo",
  "docker",
  "kubectl",
  "yarn",
  "pnpm",
  "tree",
  "rm",
  "touch",
  "mkdir",
  PROJECT_SCRIPT_STUB
]

export interface Harness {
  readonly dir: string
  /** Stub links, mounted over the system's bin directories. */
  readonly stubs: string
  /** Mount point of the real /usr/bin. */
  readonly realbin: string
  readonly log: string
  /** Where the cwd trap writes (TOOLGATE_CWD_FILE). */
  readonly cwdFile: string
  readonly envScript: string
  readonly driver: string
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

const programNames = (): Array<string> => {
  const names = new Set(EXTRA_NAMES)
  for (const dir of ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]) {
    try {
      for (const name of fs.readdirSync(dir)) names.add(name)
    } catch {
      // a directory this machine does not have
    }
  }
  return [...names]
}

const stubScript = (h: { realbin: string; log: string; nestedEnv: string }) =>
  `#!${h.realbin}/dash
n=\${0##*/}
printf '%s\\0' run "$PWD" "$#" "$0" "$@" >> ${shQuote(h.log)}/$$
case $n in
  egrep) exec ${shQuote(h.realbin)}/grep -E "$@" ;;
  fgrep) exec ${shQuote(h.realbin)}/grep -F "$@" ;;
  ${PASS_THROUGH.map((p) => (p === "[" ? "\\[" : p)).join("|")}) exec ${shQuote(h.realbin)}/"$n" "$@" ;;
  bash) export __oracle_user_bash_env="\${BASH_ENV-}"; BASH_ENV=${shQuote(h.nestedEnv)} exec ${
    shQuote(h.realbin)
  }/bash "$@" ;;
  sh|dash) exec ${shQuote(h.realbin)}/dash "$@" ;;
esac
exit 0
`

const missingHandler = (h: { realbin: string; log: string }) =>
  `command_not_found_handle() { ${shQuote(h.realbin)}/printf '%s\\0' missing "$PWD" "$#" "$@" >> ${
    shQuote(h.log)
  }/"$BASHPID"; return 127; }`

/** BASH_ENV of the command's shell: toolgate's own script (the cwd trap), with the builtins sent through PATH. */
const envScript = (h: { realbin: string; log: string; toolgateEnv: string }) =>
  `${missingHandler(h)}
. ${shQuote(h.toolgateEnv)}
__oracle_trap=$(trap -p EXIT)
[ -n "$__oracle_trap" ] && eval "\${__oracle_trap/#trap -- \\'/trap -- \\'builtin enable ${
    DISABLED_BUILTINS.join(" ")
  }; }"
unset __oracle_trap
enable -n ${DISABLED_BUILTINS.join(" ")}
`

/** BASH_ENV of a nested bash (the `bash` stub): the caller's own BASH_ENV, then the builtins through PATH. */
const nestedEnvScript = (h: { realbin: string; log: string }) =>
  `${missingHandler(h)}
if [ -n "$__oracle_user_bash_env" ]; then __oracle_file=$__oracle_user_bash_env; unset __oracle_user_bash_env; . "$__oracle_file"; unset __oracle_file; else unset __oracle_user_bash_env; fi
enable -n ${DISABLED_BUILTINS.join(" ")}
`

/**
 * Reads NUL-separated (id, cwd, command) triples on stdin and runs each command as toolgate does
 * (`/bin/bash --noprofile --norc -c`, stdin from /dev/null) in a process group of its own; once
 * the shell exits, what it left in the background gets at most 0.2 s (as the Bash tool's grace
 * period), then every process of the sandbox but the driver is killed, so nothing of one command
 * logs into the next. Writes `done <id> <status>` after each. The driver runs without BASH_ENV
 * (only the command's shell gets it), and the command does not inherit the reply pipe.
 */
const driverScript = (h: { realbin: string; envScript: string; cwdFile: string }) =>
  `set -m
exec 3>&1 >/dev/null 2>/dev/null
while IFS= read -r -d '' __oracle_id && IFS= read -r -d '' __oracle_cwd && IFS= read -r -d '' __oracle_cmd; do
  if builtin cd -- "$__oracle_cwd"; then
    unset OLDPWD
    (exec 3>&-; export BASH_ENV=${shQuote(h.envScript)} TOOLGATE_CWD_FILE=${shQuote(h.cwdFile)}; exec -a /bin/bash ${
    shQuote(h.realbin)
  }/bash --noprofile --norc -c "$__oracle_cmd") </dev/null >/dev/null 2>&1 &
    __oracle_pid=$!
    wait "$__oracle_pid"
    __oracle_status=$?
    for __oracle_i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
      builtin kill -0 -- "-$__oracle_pid" 2>/dev/null || break
      ${shQuote(h.realbin)}/sleep 0.01
    done
    builtin kill -KILL -1 2>/dev/null
  else
    __oracle_status=cd
  fi
  builtin printf 'done %s %s\n' "$__oracle_id" "$__oracle_status" >&3
done
`

/** toolgate's BASH_ENV script, as the Bash tool writes it. */
const toolgateEnvText: Effect.Effect<string> = Effect.scoped(
  Effect.map(shellTempDir, (temp) => fs.readFileSync(temp.env.BASH_ENV, "utf8"))
)

export const makeHarness = (dir: string): Effect.Effect<Harness> =>
  Effect.map(toolgateEnvText, (toolgateEnv) => {
    const h = {
      dir,
      stubs: path.join(dir, "stubs"),
      realbin: path.join(dir, "realbin"),
      log: path.join(dir, "log"),
      cwdFile: path.join(dir, "state", "cwd"),
      envScript: path.join(dir, "env.sh"),
      nestedEnv: path.join(dir, "nested-env.sh"),
      toolgateEnv: path.join(dir, "toolgate-env.sh"),
      driver: path.join(dir, "driver.sh"),
      stub: path.join(dir, "stub.sh")
    }
    for (const d of [h.stubs, h.realbin, h.log, path.dirname(h.cwdFile)]) fs.mkdirSync(d, { recursive: true })
    fs.writeFileSync(h.toolgateEnv, toolgateEnv)
    fs.writeFileSync(h.stub, stubScript(h), { mode: 0o755 })
    fs.writeFileSync(h.envScript, envScript(h))
    fs.writeFileSync(h.nestedEnv, nestedEnvScript(h))
    fs.writeFileSync(h.driver, driverScript(h))
    for (const name of programNames()) fs.symlinkSync(h.stub, path.join(h.stubs, name))
    return h
  })
