/**
 * Starts a background command: `<shell> --noprofile --norc -c <command>` as the leader of a new
 * process group (so the whole tree can be stopped at once), stdin from /dev/null, stdout and
 * stderr both written straight to the task's output file.
 */
import { Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as os from "node:os"
import { ToolError } from "../../Errors.js"

export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface TaskProcess {
  readonly pid: number
  /** Set once the shell has exited. */
  readonly exit: () => ExitInfo | undefined
  /** Waits for the shell's exit (at once when it has exited already). */
  readonly awaitExit: Effect.Effect<ExitInfo>
}

export interface TaskSpawn {
  readonly shell: string
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** The output file's descriptor; the child gets it as stdout and stderr. */
  readonly outputFd: number
}

const track = (child: ChildProcess): TaskProcess => {
  let exit: ExitInfo | undefined
  child.once("exit", (code, signal) => {
    exit = { code, signal }
  })
  return {
    pid: child.pid!,
    exit: () => exit,
    awaitExit: Effect.async<ExitInfo>((resume) => {
      if (exit !== undefined) return resume(Effect.succeed(exit))
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => resume(Effect.succeed({ code, signal }))
      child.once("exit", onExit)
      return Effect.sync(() => void child.off("exit", onExit))
    })
  }
}

export const spawnTask = (options: TaskSpawn): Effect.Effect<TaskProcess, ToolError> =>
  Effect.async<TaskProcess, ToolError>((resume) => {
    let child: ChildProcess
    try {
      child = spawn(options.shell, ["--noprofile", "--norc", "-c", options.command], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", options.outputFd, options.outputFd],
        windowsHide: true
      })
    } catch (cause) {
      return resume(Effect.fail(startFailure(options, cause)))
    }
    // Tracked before the spawn event so that a very fast exit is not missed.
    const tracked = track(child)
    const onSpawn = () => {
      child.off("error", onError)
      resume(Effect.succeed(tracked))
    }
    const onError = (cause: Error) => {
      child.off("spawn", onSpawn)
      resume(Effect.fail(startFailure(options, cause)))
    }
    child.once("spawn", onSpawn)
    child.once("error", onError)
  })

const startFailure = (options: TaskSpawn, cause: unknown) =>
  new ToolError({ reason: `Could not start ${options.shell} in ${options.cwd}: ${cause instanceof Error ? cause.message : String(cause)}` })

/** The exit code as a shell reports it: 128 + the signal number when a signal ended it. */
export const exitCodeOf = (exit: ExitInfo): number =>
  exit.code ?? (exit.signal === null ? 1 : 128 + (os.constants.signals[exit.signal] ?? 0))
