/**
 * Starts a background command in `<shell> --noprofile --norc` (src/internal/shellScript.ts) as the leader of a new
 * process group (so the whole tree can be stopped at once), stdin from /dev/null, stdout and
 * stderr both written straight to the task's output file.
 */
import type { Effect } from "effect"
import type { ToolError } from "../../Errors.js"
import { spawnShell, trackExit, type ExitInfo } from "../bash/spawnShell.js"
import type { ShellInvocation } from "../../services/Sandbox.js"

export { exitCodeOf, type ExitInfo } from "../bash/spawnShell.js"

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
  /** The sandbox around the shell, when it has one. */
  readonly invocation?: ShellInvocation
}

/** Starts the task's shell; its output goes straight to the task's output file. */
export const spawnTask = (options: TaskSpawn): Effect.Effect<TaskProcess, ToolError> =>
  spawnShell(
    { ...options, output: options.outputFd },
    (child, leashed): TaskProcess => ({ pid: child.pid!, ...trackExit(child, leashed) })
  )
