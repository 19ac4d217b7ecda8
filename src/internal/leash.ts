/**
 * Ties the processes toolgate starts (shells, background shells, hooks, MCP servers) to its life.
 *
 * On Linux each one starts as the first process of a PID namespace of its own (bubblewrap with
 * `--unshare-pid --die-with-parent`, the file system and everything else as they are). When
 * toolgate dies, however it dies (SIGKILL included), the kernel kills bubblewrap, then the
 * namespace's init, and with it every process inside: also those that called `setsid` and so left
 * the process group toolgate signals, and their children. A process group can be escaped; a PID
 * namespace cannot.
 *
 * The namespace keeps the host's /proc: `ps` and `pgrep` list every process as before, and
 * sandboxes, containers and toolgate itself still start inside (a fresh /proc would stop them from
 * mounting their own). The price: `$$` and `$!` are the namespace's numbers, not /proc's; `kill`
 * reaches only the command's own processes (not the host's, nor another command's); setuid
 * programs (`sudo`) do not raise privileges inside. Where bubblewrap cannot start (not Linux, no
 * user namespaces) or `TOOLGATE_PROCESS_LEASH=off`, processes are tied by process group only
 * (processGroup.ts): stopped with toolgate unless toolgate is SIGKILLed or they leave their
 * group; `toolgate doctor` says which applies.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export type LeashStatus =
  | { readonly _tag: "Namespace"; readonly bwrap: string }
  | { readonly _tag: "GroupOnly"; readonly reason: string }

export interface Leashed {
  readonly file: string
  readonly args: ReadonlyArray<string>
  /** The process started is bubblewrap, the namespace's keeper: see `spareLeader` in processGroup.ts. */
  readonly leashed: boolean
}

const NAMESPACE_ARGS = ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--"] as const

const onPath = (name: string, searchPath: string): string | undefined => {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const probe = (env: NodeJS.ProcessEnv): LeashStatus => {
  if (process.platform !== "linux") {
    return { _tag: "GroupOnly", reason: `PID namespaces need Linux (this is ${process.platform})` }
  }
  const setting = (env.TOOLGATE_PROCESS_LEASH ?? "").trim().toLowerCase()
  if (setting === "off" || setting === "group") return { _tag: "GroupOnly", reason: "TOOLGATE_PROCESS_LEASH=off" }
  const bwrap = env.TOOLGATE_BWRAP_PATH ?? onPath("bwrap", env.PATH ?? "/usr/local/bin:/usr/bin:/bin")
  if (bwrap === undefined) return { _tag: "GroupOnly", reason: "bubblewrap (bwrap) is not installed" }
  const trial = spawnSync(bwrap, [...NAMESPACE_ARGS, "/bin/sh", "-c", ":"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
    cwd: "/"
  })
  if (trial.error !== undefined) {
    return { _tag: "GroupOnly", reason: `bubblewrap could not start: ${trial.error.message}` }
  }
  if (trial.status !== 0) {
    const why = trial.stderr.toString("utf8").trim().split("\n")[0] ?? ""
    return { _tag: "GroupOnly", reason: `bubblewrap cannot make a PID namespace here${why === "" ? "" : ` (${why})`}` }
  }
  return { _tag: "Namespace", bwrap }
}

let detected: { readonly key: string; readonly status: LeashStatus } | undefined

/** How processes are tied to toolgate on this machine (tried once, with the settings in `env`). */
export const leashStatus = (env: NodeJS.ProcessEnv = process.env): LeashStatus => {
  const key = `${env.TOOLGATE_PROCESS_LEASH ?? ""}\0${env.TOOLGATE_BWRAP_PATH ?? ""}\0${env.PATH ?? ""}`
  if (detected === undefined || detected.key !== key) detected = { key, status: probe(env) }
  return detected.status
}

const isExecutable = (file: string, searchPath: string): boolean => {
  if (!file.includes("/")) return onPath(file, searchPath) !== undefined
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** This process as the host's /proc knows it: its pid there and its start time (which tells a reused pid apart). */
let self: { readonly pid: number; readonly startTime: string } | undefined
const selfInProc = (): { readonly pid: number; readonly startTime: string } | undefined => {
  if (self !== undefined) return self
  try {
    const pid = Number(fs.readlinkSync("/proc/self"))
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
    if (!Number.isInteger(pid) || startTime === undefined || !/^\d+$/.test(startTime)) return undefined
    self = { pid, startTime }
    return self
  } catch {
    return undefined
  }
}

/**
 * Bubblewrap ties itself to its parent (PR_SET_PDEATHSIG) only once it runs: a toolgate killed
 * between the spawn and that moment leaves it tied to init instead, alive. So the namespace's first
 * command checks that toolgate is still there (its pid, not a zombie, the same start time) before
 * it becomes the program; past that check the tie holds, since it was made earlier.
 */
const parentCheck = (parent: { readonly pid: number; readonly startTime: string }): ReadonlyArray<string> => [
  "/bin/sh",
  "-c",
  `alive() { read -r s < /proc/${parent.pid}/stat || return 1; s=\${s##*) }; set -- $s; [ "$1" != Z ] && [ "$1" != X ] && [ "\${20}" = ${parent.startTime} ]; }; alive 2>/dev/null || exit 137; exec "$@"`,
  "toolgate-leash"
]

/**
 * What to start so that `file args` and everything it starts die with toolgate. A program that
 * cannot be found is started as it is, so that the spawn error names it (`childPath` is the PATH
 * it is looked up in). A sandbox's own bubblewrap (`--die-with-parent` too) is leashed as well: it
 * has the same window between its start and its tie to toolgate, which the check closes.
 */
export const leash = (file: string, args: ReadonlyArray<string>, childPath?: string): Leashed => {
  const status = leashStatus()
  if (status._tag === "GroupOnly" || !isExecutable(file, childPath ?? process.env.PATH ?? "")) {
    return { file, args, leashed: false }
  }
  const parent = selfInProc()
  return {
    file: status.bwrap,
    args: [...NAMESPACE_ARGS, ...(parent === undefined ? [] : parentCheck(parent)), file, ...args],
    leashed: true
  }
}

const SIGNAL_NAMES: ReadonlyMap<number, NodeJS.Signals> = new Map(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name as NodeJS.Signals])
)

/**
 * How a leashed process ended, as if it had been started directly. Bubblewrap reports a death by
 * signal n as exit status 128 + n, so such a status is read as the signal: a program that exits
 * with 128 + n itself is then taken for killed, the cautious reading (a hook killed midway gives
 * no decision, whatever it printed).
 */
export const exitOf = (
  leashed: boolean,
  code: number | null,
  signal: NodeJS.Signals | null
): { readonly code: number | null; readonly signal: NodeJS.Signals | null } => {
  if (!leashed || code === null || code <= 128) return { code, signal }
  const name = SIGNAL_NAMES.get(code - 128)
  return name === undefined ? { code, signal } : { code: null, signal: name }
}
