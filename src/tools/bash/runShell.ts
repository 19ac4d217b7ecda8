/**
 * Runs one command string in `/bin/bash --noprofile --norc` (src/internal/shellScript.ts; argv, no extra shell
 * layer), stdin from /dev/null, as the leader of a new process
 * group. When the shell exits, times out or the fiber is interrupted, the whole group is stopped:
 * nothing the command started outlives the call (use run_in_background for
 * long-lived processes).
 */
import { Clock, Deferred, Duration, Effect, Exit, Fiber, Option, type Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import type { ToolError } from "../../Errors.js"
import { readFinalCwd, shellTempDir, type FinalCwd } from "./cwdTrap.js"
import { OutputCapture, type CapturedOutput } from "./OutputCapture.js"
import { killGroup } from "../../internal/processGroup.js"
import { exitCodeOf, spawnShell, trackExit } from "./spawnShell.js"
import type { SandboxedShell } from "../../services/Sandbox.js"

export interface ShellProgress {
  readonly elapsedMs: number
  readonly lines: number
  readonly chars: number
  /** The last lines of output so far. */
  readonly tail: ReadonlyArray<string>
}

export interface ShellRun {
  readonly command: string
  readonly cwd: string
  /** The environment of the shell (BASH_ENV and the cwd-file variable are added). */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number
  readonly maxOutputChars: number
  /** Where the full output goes once it passes `maxOutputChars`. */
  readonly spillPath: string
  /** Past this many bytes in `spillPath` the command is stopped and the file ends with `limitNotice`. */
  readonly maxSpillBytes?: number
  readonly limitNotice?: string
  /** How long processes get between SIGTERM and SIGKILL. */
  readonly killGraceMs: number
  readonly shell: string
  readonly progressIntervalMs: number
  readonly onProgress: (progress: ShellProgress) => Effect.Effect<void>
  /** Puts the shell into a sandbox (undefined result: none), given toolgate's own plumbing. */
  readonly sandbox?: (plumbing: ShellPlumbing) => Effect.Effect<SandboxedShell | undefined, ToolError, Scope.Scope>
}

/** What toolgate adds to every shell: variables only the shell itself may read, and the file it writes. */
export interface ShellPlumbing {
  readonly innerEnv: Readonly<Record<string, string>>
  readonly writableFiles: ReadonlyArray<string>
}

export interface ShellOutcome {
  /** The exit code; 128 + the signal number when a signal ended the shell. */
  readonly exitCode: number
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  /** The command was stopped because its output passed `maxSpillBytes`. */
  readonly outputLimited: boolean
  readonly output: CapturedOutput
  /** Where the shell ended; undefined when it did not report it (or timed out). */
  readonly finalCwd: FinalCwd | undefined
  /** What the sandbox refused the command (a `<sandbox_violations>` block). */
  readonly sandboxViolations?: string
}

/** How long to wait for the output pipes to close once the group is gone. */
const DRAIN_MS = 1000

/** A running shell: its exit and the close of its pipes, observable at any time. */
class ShellProcess {
  closed = false
  readonly exits: ReturnType<typeof trackExit>

  constructor(
    readonly child: ChildProcess,
    leashed: boolean
  ) {
    this.exits = trackExit(child, leashed)
    child.once("close", () => {
      this.closed = true
    })
  }

  readonly awaitClose: Effect.Effect<void> = Effect.async<void>((resume) => {
    if (this.closed) return resume(Effect.void)
    const onClose = () => resume(Effect.void)
    this.child.once("close", onClose)
    return Effect.sync(() => void this.child.off("close", onClose))
  })

  /** Kills what is left of the group, then waits (bounded) for the pipes to drain. */
  stop(graceMs: number): Effect.Effect<void> {
    return killGroup(this.child.pid!, graceMs).pipe(
      Effect.zipRight(this.awaitClose.pipe(Effect.timeoutOption(Duration.millis(DRAIN_MS)))),
      Effect.zipRight(
        Effect.sync(() => {
          // A process that left the group may still hold the pipes; stop reading them.
          this.child.stdout?.destroy()
          this.child.stderr?.destroy()
        })
      )
    )
  }
}

export const runShell = (run: ShellRun): Effect.Effect<ShellOutcome, ToolError, Scope.Scope> =>
  Effect.gen(function*() {
    const temp = yield* shellTempDir
    const limitReached = yield* Deferred.make<void>()
    const capture = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new OutputCapture({
            maxChars: run.maxOutputChars,
            spillPath: run.spillPath,
            ...(run.maxSpillBytes === undefined ? {} : { maxFileBytes: run.maxSpillBytes }),
            ...(run.limitNotice === undefined ? {} : { limitNotice: run.limitNotice }),
            onLimit: () => Deferred.unsafeDone(limitReached, Exit.void)
          })
      ),
      (capture) => Effect.sync(() => capture.close())
    )
    const env: NodeJS.ProcessEnv = { ...run.env, ...temp.env }
    const sandboxed = run.sandbox === undefined
      ? undefined
      : yield* run.sandbox({ innerEnv: temp.env, writableFiles: [temp.cwdFile] })
    const invocation = sandboxed === undefined ? {} : { invocation: sandboxed.invocation }
    const shell = yield* Effect.acquireRelease(
      spawnShell({ ...run, env, output: "pipe", ...invocation }, (child, leashed) => {
        child.stdout!.on("data", (chunk: Buffer) => capture.write("stdout", chunk))
        child.stderr!.on("data", (chunk: Buffer) => capture.write("stderr", chunk))
        return new ShellProcess(child, leashed)
      }),
      (shell) => shell.stop(run.killGraceMs)
    )
    const startedAt = yield* Clock.currentTimeMillis
    const progress = yield* Effect.sleep(Duration.millis(run.progressIntervalMs)).pipe(
      Effect.zipRight(
        Effect.suspend(() =>
          Clock.currentTimeMillis.pipe(
            Effect.flatMap((now) =>
              run.onProgress({
                elapsedMs: now - startedAt,
                lines: capture.lines,
                chars: capture.totalChars,
                tail: capture.tail(3)
              })
            )
          )
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    const ended = yield* Effect.raceFirst(
      shell.exits.awaitExit.pipe(
        Effect.timeoutOption(Duration.millis(run.timeoutMs)),
        Effect.map((exit) => ({ exited: exit, outputLimited: false }))
      ),
      Deferred.await(limitReached).pipe(Effect.as({ exited: Option.none(), outputLimited: true }))
    )
    const { exited, outputLimited } = ended
    yield* Fiber.interrupt(progress)
    const timedOut = Option.isNone(exited) && !outputLimited
    yield* shell.stop(run.killGraceMs)
    const exit = Option.getOrElse(exited, () => shell.exits.exit() ?? { code: null, signal: "SIGKILL" as const })
    const violations = sandboxed?.violations()
    return {
      exitCode: exitCodeOf(exit),
      signal: exit.signal,
      timedOut,
      outputLimited,
      output: capture.finish(),
      finalCwd: timedOut || outputLimited ? undefined : readFinalCwd(temp.cwdFile),
      ...(violations === undefined ? {} : { sandboxViolations: violations })
    }
  })
