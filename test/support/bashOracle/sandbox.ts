/**
 * One sandbox slot: bubblewrap around the harness driver. Inside, the only writable places are the
 * scratch tree, the log and the cwd-trap file; the system is read-only, the network and process
 * ids are private, capabilities are dropped, and the system's bin directories show the stubs.
 * Commands go in one at a time; a command that does not finish in time takes the whole sandbox
 * down with it (a fresh one starts for the next command).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Harness } from "./harness.js"

export interface LoggedRun {
  /** `run`: a program started (stub or real); `missing`: bash found no program of that name. */
  readonly kind: "run" | "missing"
  readonly cwd: string
  /** argv as the program got it; for `run`, argv[0] is the path it was started by. */
  readonly argv: ReadonlyArray<string>
}

export interface RawOutcome {
  readonly runs: ReadonlyArray<LoggedRun>
  /** The shell's exit status (`cd` when the working directory was missing), or "timeout". */
  readonly status: string
}

export interface SlotOptions {
  readonly harness: Harness
  /** Directories the commands may write to (the scratch tree): [host directory, where the sandbox shows it]. */
  readonly mounts: ReadonlyArray<readonly [string, string]>
  /** The environment of the command's shell (PATH, HOME, TMPDIR, …); BASH_ENV and the cwd-trap file are added for it alone. */
  readonly env: Readonly<Record<string, string>>
  readonly timeoutMs: number
}

const BIN_DIRS = ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]
const SYSTEM_DIRS = ["/usr", "/etc"]

const exists = (p: string) => fs.existsSync(p)

const bwrapArgs = (o: SlotOptions): Array<string> => {
  const h = o.harness
  const args = ["--die-with-parent", "--unshare-all", "--cap-drop", "ALL", "--new-session", "--clearenv"]
  for (const dir of SYSTEM_DIRS) if (exists(dir)) args.push("--ro-bind", dir, dir)
  for (const link of ["/bin", "/sbin", "/lib", "/lib64", "/lib32"]) {
    let target: string | undefined
    try {
      target = fs.readlinkSync(link)
    } catch {
      if (exists(link)) args.push("--ro-bind", link, link)
    }
    if (target !== undefined) args.push("--symlink", target, link)
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run", "--dir", "/var/tmp")
  args.push("--ro-bind", h.dir, h.dir, "--ro-bind", "/usr/bin", h.realbin)
  for (const dir of BIN_DIRS) if (exists(dir)) args.push("--ro-bind", h.stubs, dir)
  args.push("--bind", h.log, h.log, "--bind", path.dirname(h.cwdFile), path.dirname(h.cwdFile))
  for (const [host, inside] of o.mounts) args.push("--bind", host, inside)
  for (const [k, v] of Object.entries(o.env)) args.push("--setenv", k, v)
  args.push(path.join(h.realbin, "bash"), "--noprofile", "--norc", h.driver)
  return args
}

/** Reads and removes the log files: every run recorded since the last call. */
export const drainLog = (log: string): Array<LoggedRun> => {
  const runs: Array<LoggedRun> = []
  for (const file of fs.readdirSync(log)) {
    const full = path.join(log, file)
    const fields = fs.readFileSync(full).toString("utf8").split("\0")
    fs.rmSync(full, { force: true })
    let i = 0
    while (i + 2 < fields.length) {
      const kind = fields[i] === "missing" ? "missing" : "run"
      const cwd = fields[i + 1]!
      // a stub logs $# (arguments after $0) then $0 and its arguments; the missing-command handler logs $# and the words
      const count = Number(fields[i + 2]) + (kind === "run" ? 1 : 0)
      if (!Number.isFinite(count)) break
      runs.push({ kind, cwd, argv: fields.slice(i + 3, i + 3 + count) })
      i += 3 + count
    }
  }
  return runs
}

/** Whether bubblewrap can start a sandbox on this machine; the reason when it cannot. */
export const sandboxProblem = (): string | undefined => {
  if (process.platform !== "linux") return "the bash oracle's sandbox needs Linux (bubblewrap)"
  const probe = spawnSync("bwrap", [
    "--die-with-parent",
    "--unshare-all",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "/bin/true"
  ], { encoding: "utf8", timeout: 10_000 })
  if (probe.error !== undefined) return `bubblewrap cannot run: ${probe.error.message}`
  if (probe.status !== 0) return `bubblewrap cannot make a sandbox: ${probe.stderr.trim()}`
  return undefined
}

export interface Slot {
  /** Runs one command in `cwd` and collects what it ran. */
  readonly run: (command: string, cwd: string) => Promise<RawOutcome>
  readonly close: () => void
}

export const openSlot = (options: SlotOptions): Slot => {
  let child: ChildProcessWithoutNullStreams | undefined
  let stderr = ""
  let sequence = 0
  /** The run waiting for its `done`: its id and what to do with the status. */
  let waiting: { readonly id: string; readonly resolve: (status: string) => void } | undefined

  const settle = (id: string, status: string) => {
    if (waiting?.id !== id) return
    const { resolve } = waiting
    waiting = undefined
    resolve(status)
  }

  const start = (): ChildProcessWithoutNullStreams => {
    const c = spawn("bwrap", bwrapArgs(options), { detached: true, stdio: ["pipe", "pipe", "pipe"] })
    let buffered = ""
    c.stdout.setEncoding("utf8")
    c.stdout.on("data", (chunk: string) => {
      if (child !== c) return
      buffered += chunk
      let nl: number
      while ((nl = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        const done = /^done (\S+) (.*)$/.exec(line)
        if (done !== null) settle(done[1]!, done[2]!)
      }
    })
    c.stderr.setEncoding("utf8")
    c.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000)
    })
    c.on("exit", () => {
      if (child !== c) return
      child = undefined
      if (waiting !== undefined) settle(waiting.id, `sandbox exited: ${stderr.trim()}`)
    })
    c.stdin.on("error", () => {})
    return c
  }

  const kill = (c: ChildProcessWithoutNullStreams) => {
    try {
      process.kill(-c.pid!, "SIGKILL")
    } catch {
      // already gone
    }
  }

  const run = (command: string, cwd: string): Promise<RawOutcome> =>
    new Promise((resolve) => {
      const c = (child ??= start())
      const id = String(++sequence)
      drainLog(options.harness.log)
      const timer = setTimeout(() => {
        // the sandbox goes with everything in it; the next command starts a fresh one
        child = undefined
        kill(c)
        settle(id, "timeout")
      }, options.timeoutMs)
      waiting = {
        id,
        resolve: (status) => {
          clearTimeout(timer)
          resolve({ runs: drainLog(options.harness.log), status })
        }
      }
      c.stdin.write(`${id}\0${cwd}\0${command}\0`)
    })

  return {
    run,
    close: () => {
      if (child !== undefined) kill(child)
      child = undefined
    }
  }
}
