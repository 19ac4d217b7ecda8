/**
 * Starting the shell on the command (src/internal/shellScript.ts; argv, no extra shell layer;
 * the sandbox layer) as the leader of a new process group, stdin from /dev/null,
 * for foreground and background Bash alike; on a leash (src/internal/leash.ts), so that nothing
 * it starts outlives toolgate.
 */
import { Effect } from "effect"
import { spawn, type ChildProcess, type StdioNull, type StdioPipe } from "node:child_process"
import * as os from "node:os"
import { ToolError } from "../../Errors.js"
import { exitOf, leash } from "../../internal/leash.js"
import { commandArgs } from "../../internal/shellScript.js"
import { forgetIfEmpty, trackGroup } from "../../internal/processGroup.js"
import type { ShellInvocation } from "../../services/Sandbox.js"

export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ShellSpawn {
  readonly shell: string
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Where stdout and stderr go: pipes, or a file descriptor. */
  readonly output: StdioPipe | StdioNull | number
  /** What to start instead of the shell itself: the sandbox around it (it runs the same command). */
  readonly invocation?: ShellInvocation
}

/**
 * Spawns the shell and succeeds once it runs. `attach` sees the child synchronously, before any of
 * its events can fire (so a very fast exit or the first output is never missed), and whether it is
 * on a leash (then its exit is read with `trackExit(child, true)`).
 */
export const spawnShell = <A>(
  options: ShellSpawn,
  attach: (child: ChildProcess, leashed: boolean) => A
): Effect.Effect<A, ToolError> =>
  Effect.async<A, ToolError>((resume) => {
    let child: ChildProcess
    const env = options.invocation?.env ?? options.env
    const started = leash(
      options.invocation?.file ?? options.shell,
      options.invocation?.args ?? commandArgs(options.command),
      env.PATH
    )
    try {
      child = spawn(started.file, [...started.args], {
        cwd: options.cwd,
        env,
        detached: true,
        stdio: ["ignore", options.output, options.output],
        windowsHide: true
      })
    } catch (cause) {
      return resume(Effect.fail(startFailure(options, cause)))
    }
    trackGroup(child.pid, { leashed: started.leashed })
    child.once("exit", () => forgetIfEmpty(child.pid!))
    const attached = attach(child, started.leashed)
    const onSpawn = () => {
      child.off("error", onError)
      resume(Effect.succeed(attached))
    }
    const onError = (cause: Error) => {
      child.off("spawn", onSpawn)
      resume(Effect.fail(startFailure(options, cause)))
    }
    child.once("spawn", onSpawn)
    child.once("error", onError)
  })

const startFailure = (options: ShellSpawn, cause: unknown) =>
  new ToolError({
    reason: `Could not start ${options.invocation?.file ?? options.shell} in ${options.cwd}: ${
      cause instanceof Error ? cause.message : String(cause)
    }`
  })

/** The child's exit (as if it had not been on a leash): known once it happened, and awaitable at any time. */
export const trackExit = (child: ChildProcess, leashed: boolean) => {
  let exit: ExitInfo | undefined
  child.once("exit", (code, signal) => {
    exit = exitOf(leashed, code, signal)
  })
  return {
    exit: (): ExitInfo | undefined => exit,
    awaitExit: Effect.async<ExitInfo>((resume) => {
      if (exit !== undefined) return resume(Effect.succeed(exit))
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        resume(Effect.succeed(exitOf(leashed, code, signal)))
      child.once("exit", onExit)
      return Effect.sync(() => void child.off("exit", onExit))
    })
  }
}

/** The exit code as a shell reports it: 128 + the signal number when a signal ended it. */
export const exitCodeOf = (exit: ExitInfo): number =>
  exit.code ?? (exit.signal === null ? 1 : 128 + (os.constants.signals[exit.signal] ?? 0))
