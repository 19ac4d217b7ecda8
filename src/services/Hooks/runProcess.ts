/**
 * One command hook as a process: `bash -c <command>` (or the executable with `args`, no shell),
 * the JSON input on stdin, no controlling terminal (its own session and process group), output
 * collected up to a bound. The process group goes with the hook: when the hook exits, times out
 * or is interrupted, whatever it left running (`sleep 100 &`) is stopped (TERM, grace, KILL). It
 * starts on a leash (src/internal/leash.ts): nothing it starts outlives toolgate, even after `setsid`.
 */
import { Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import { exitOf, leash } from "../../internal/leash.js"
import { killGroup, trackGroup } from "../../internal/processGroup.js"

/** How long what a hook left running gets between SIGTERM and SIGKILL. */
const GROUP_GRACE_MS = 500

/** How long to wait for the output pipes to close once the group is gone (a process outside it may hold them). */
const CLOSE_GRACE_MS = 1_000

/**
 * Bytes kept of stdout. A decision is read whole up to this bound; past it the output is marked
 * truncated (and an event that can block treats the hook as blocking rather than guess).
 */
export const MAX_STDOUT_BYTES = 32 * 1024 * 1024

/** Bytes kept of stderr (only ever shown as a message, itself capped). */
const MAX_STDERR_BYTES = 1_000_000

export interface ProcessSpec {
  readonly command: string
  /** Exec form: run `command` with these arguments, without a shell. */
  readonly args: ReadonlyArray<string> | undefined
  readonly shell: "bash" | "powershell"
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly stdin: string
  readonly timeoutMs: number
  /** Overrides MAX_STDOUT_BYTES (tests). */
  readonly maxStdoutBytes?: number
  /**
   * Leave what the hook started running after it exits normally, as Claude Code does
   * (TOOLGATE_KEEP_HOOK_CHILDREN=1). A timeout or an interruption still stops the group.
   */
  readonly keepChildren?: boolean
  /** Start this instead (the same process inside a sandbox); `env` then is the sandbox's. */
  readonly invocation?: {
    readonly file: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
  }
}

export type ProcessOutcome =
  | {
    readonly _tag: "Exited"
    readonly pid: number | undefined
    readonly exitCode: number
    readonly stdout: string
    /** stdout went past the bound; `stdout` holds only its beginning. */
    readonly stdoutTruncated: boolean
    readonly stderr: string
  }
  | { readonly _tag: "Signalled"; readonly pid: number | undefined; readonly signal: string; readonly stderr: string }
  | { readonly _tag: "TimedOut"; readonly pid: number | undefined }
  | { readonly _tag: "SpawnFailed"; readonly message: string }

const bashPath = fs.existsSync("/bin/bash") ? "/bin/bash" : "bash"

export const argvOf = (spec: ProcessSpec): readonly [string, ReadonlyArray<string>] => {
  if (spec.args !== undefined) return [spec.command, spec.args]
  if (spec.shell === "powershell") return ["pwsh", ["-NoProfile", "-NonInteractive", "-Command", spec.command]]
  return [bashPath, ["-c", spec.command]]
}

class Collector {
  private chunks: Array<Buffer> = []
  private size = 0
  truncated = false
  constructor(private readonly limit: number) {}
  add(chunk: Buffer) {
    if (this.size >= this.limit) {
      this.truncated ||= chunk.length > 0
      return
    }
    const room = this.limit - this.size
    if (chunk.length > room) this.truncated = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.chunks.push(kept)
    this.size += kept.length
  }
  text() {
    return Buffer.concat(this.chunks).toString("utf8")
  }
}

type Exit = { readonly code: number | null; readonly signal: NodeJS.Signals | null } | { readonly error: string }

interface Running {
  readonly child: ChildProcess
  readonly pid: number
  readonly stdout: Collector
  readonly stderr: Collector
  /** Settles when the hook process itself ended (or could not start). */
  readonly exited: Promise<Exit>
  /** Settles when both output pipes are closed. */
  readonly closed: Promise<void>
}

const start = (spec: ProcessSpec): Running | { readonly failed: string } => {
  const [program, programArgs] = spec.invocation === undefined
    ? argvOf(spec)
    : [spec.invocation.file, spec.invocation.args]
  const env = spec.invocation?.env ?? spec.env
  // what a hook leaves running on purpose (keepChildren) must survive the hook itself
  const { file, args, leashed } = spec.keepChildren === true
    ? { file: program, args: programArgs, leashed: false }
    : leash(program, programArgs, env.PATH)
  let child: ChildProcess
  try {
    child = spawn(file, [...args], {
      cwd: spec.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      // a new session: own process group, no controlling terminal
      detached: true,
      windowsHide: true
    })
  } catch (e) {
    return { failed: (e as Error).message }
  }
  if (spec.keepChildren !== true) trackGroup(child.pid, { leashed })
  const stdout = new Collector(spec.maxStdoutBytes ?? MAX_STDOUT_BYTES)
  const stderr = new Collector(MAX_STDERR_BYTES)
  child.stdout?.on("data", (c: Buffer) => stdout.add(c))
  child.stderr?.on("data", (c: Buffer) => stderr.add(c))
  // a hook that does not read its input closes the pipe early; that is fine
  child.stdin?.on("error", () => undefined)
  const exited = new Promise<Exit>((resolve) => {
    child.once("error", (e) => resolve({ error: e.message }))
    child.once("exit", (code, signal) => resolve(exitOf(leashed, code, signal)))
  })
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
  if (child.pid === undefined) {
    // spawn reports ENOENT and the like asynchronously, with no pid
    return { child, pid: -1, stdout, stderr, exited, closed }
  }
  child.stdin?.end(spec.stdin)
  return { child, pid: child.pid, stdout, stderr, exited, closed }
}

const stopGroup = (running: Running) => (running.pid > 0 ? killGroup(running.pid, GROUP_GRACE_MS) : Effect.void)

/** Waits for the pipes to close; a process outside the group that still holds them is not waited for. */
const drain = (running: Running) =>
  Effect.promise(() => running.closed).pipe(
    Effect.timeoutOption(CLOSE_GRACE_MS),
    Effect.tap((closed) =>
      Effect.sync(() => {
        if (closed._tag === "None") {
          running.child.stdout?.destroy()
          running.child.stderr?.destroy()
        }
      })
    )
  )

/** Runs a hook process to its end; its process group is stopped however it ends (unless `keepChildren`). */
export const runHookProcess = (spec: ProcessSpec): Effect.Effect<ProcessOutcome> =>
  Effect.scoped(
    Effect.gen(function*() {
      let ended = false
      const running = yield* Effect.acquireRelease(Effect.sync(() => start(spec)), (r) =>
        "child" in r && !(ended && spec.keepChildren === true) ? stopGroup(r) : Effect.void)
      if (!("child" in running)) {
        return { _tag: "SpawnFailed", message: running.failed } as const
      }
      const exit = yield* Effect.promise(() =>
        running.exited
      ).pipe(Effect.timeoutOption(spec.timeoutMs))
      if (exit._tag === "None") return { _tag: "TimedOut", pid: running.child.pid } as const
      if ("error" in exit.value) return { _tag: "SpawnFailed", message: exit.value.error } as const
      ended = true
      // the hook is done: what it left behind goes, then the rest of its output is read
      if (spec.keepChildren !== true) yield* stopGroup(running)
      yield* drain(running)
      const { code, signal } = exit.value
      return code === null
        ? ({
          _tag: "Signalled",
          pid: running.child.pid,
          signal: signal ?? "unknown",
          stderr: running.stderr.text()
        } as const)
        : ({
          _tag: "Exited",
          pid: running.child.pid,
          exitCode: code,
          stdout: running.stdout.text(),
          stdoutTruncated: running.stdout.truncated,
          stderr: running.stderr.text()
        } as const)
    })
  )
