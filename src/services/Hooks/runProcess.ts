/**
 * One command hook as a process: `bash -c <command>` (or the executable with `args`, no shell),
 * the JSON input on stdin, no controlling terminal (its own session and process group), output
 * collected up to a cap. Interruption or the timeout kills the whole process group.
 */
import { Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import { killGroup, trackGroup } from "../../internal/processGroup.js"

/** How long to wait for the output pipes to close after the hook process exited. */
const EXIT_GRACE_MS = 1_000

/** Bytes kept of each stream; the rest is drained and dropped. */
const MAX_CAPTURE = 1_000_000

export interface ProcessSpec {
  readonly command: string
  /** Exec form: run `command` with these arguments, without a shell. */
  readonly args: ReadonlyArray<string> | undefined
  readonly shell: "bash" | "powershell"
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly stdin: string
  readonly timeoutMs: number
}

export type ProcessOutcome =
  | {
      readonly _tag: "Exited"
      readonly pid: number | undefined
      readonly exitCode: number
      readonly stdout: string
      readonly stderr: string
    }
  | { readonly _tag: "Signalled"; readonly pid: number | undefined; readonly signal: string; readonly stderr: string }
  | { readonly _tag: "TimedOut"; readonly pid: number | undefined }
  | { readonly _tag: "SpawnFailed"; readonly message: string }

const bashPath = fs.existsSync("/bin/bash") ? "/bin/bash" : "bash"

const argvOf = (spec: ProcessSpec): readonly [string, ReadonlyArray<string>] => {
  if (spec.args !== undefined) return [spec.command, spec.args]
  if (spec.shell === "powershell") return ["pwsh", ["-NoProfile", "-NonInteractive", "-Command", spec.command]]
  return [bashPath, ["-c", spec.command]]
}

/** How long a hook's group gets between SIGTERM and SIGKILL when it is stopped. */
const KILL_GRACE_MS = 1_000

/** Stops the hook's whole process group (TERM, grace, KILL). */
const stopGroup = (child: ChildProcess): Effect.Effect<void> => (child.pid === undefined ? Effect.void : killGroup(child.pid, KILL_GRACE_MS))

class Collector {
  private chunks: Array<Buffer> = []
  private size = 0
  add(chunk: Buffer) {
    if (this.size >= MAX_CAPTURE) return
    const room = MAX_CAPTURE - this.size
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.chunks.push(kept)
    this.size += kept.length
  }
  text() {
    return Buffer.concat(this.chunks).toString("utf8")
  }
}

interface Running {
  readonly child: ChildProcess
  readonly done: Promise<ProcessOutcome>
  finished: boolean
}

const start = (spec: ProcessSpec): Running | { readonly failed: string } => {
  const [file, args] = argvOf(spec)
  let child: ChildProcess
  try {
    child = spawn(file, [...args], {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["pipe", "pipe", "pipe"],
      // a new session: own process group, no controlling terminal
      detached: true,
      windowsHide: true
    })
  } catch (e) {
    return { failed: (e as Error).message }
  }
  trackGroup(child.pid)
  const stdout = new Collector()
  const stderr = new Collector()
  child.stdout?.on("data", (c: Buffer) => stdout.add(c))
  child.stderr?.on("data", (c: Buffer) => stderr.add(c))
  // a hook that does not read its input closes the pipe early; that is fine
  child.stdin?.on("error", () => undefined)
  const running: Running = {
    child,
    finished: false,
    done: new Promise<ProcessOutcome>((resolve) => {
      child.once("error", (e) => {
        running.finished = true
        resolve({ _tag: "SpawnFailed", message: e.message })
      })
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (running.finished) return
        running.finished = true
        resolve(
          code === null
            ? { _tag: "Signalled", pid: child.pid, signal: signal ?? "unknown", stderr: stderr.text() }
            : { _tag: "Exited", pid: child.pid, exitCode: code, stdout: stdout.text(), stderr: stderr.text() }
        )
      }
      child.once("close", settle)
      // A background job the hook started may keep its stdout open after the hook itself exited;
      // do not wait for it longer than a moment.
      child.once("exit", (code, signal) => {
        const timer = setTimeout(() => {
          child.stdout?.destroy()
          child.stderr?.destroy()
          settle(code, signal)
        }, EXIT_GRACE_MS)
        timer.unref()
      })
    })
  }
  child.stdin?.end(spec.stdin)
  return running
}

/** Runs a hook process to completion, or kills its process group on timeout or interruption. */
export const runHookProcess = (spec: ProcessSpec): Effect.Effect<ProcessOutcome> =>
  Effect.scoped(
    Effect.gen(function* () {
      const running = yield* Effect.acquireRelease(
        Effect.sync(() => start(spec)),
        // on timeout or interruption the whole group goes; after a normal end nothing is left to kill
        (r) => ("child" in r && !r.finished ? stopGroup(r.child) : Effect.void)
      )
      if (!("child" in running)) return { _tag: "SpawnFailed", message: running.failed } as const
      const outcome = yield* Effect.promise(() => running.done).pipe(Effect.timeoutOption(spec.timeoutMs))
      if (outcome._tag === "None") {
        yield* stopGroup(running.child)
        return { _tag: "TimedOut", pid: running.child.pid } as const
      }
      return outcome.value
    })
  )
