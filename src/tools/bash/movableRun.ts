/**
 * A foreground command that moves to the background when it passes its timeout, as Claude Code
 * 2.1.332 does: the command runs as a background task from the start (its output goes to the
 * task's file), the call waits for it up to the timeout, and then either answers as a foreground
 * call would (the task file becomes the spilled output or goes away) or leaves the task running
 * and says where its output is. Interrupting the call stops the task, whole process group.
 */
import { Duration, Effect, Fiber, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ToolError } from "../../Errors.js"
import type { SandboxedShell } from "../../services/Sandbox.js"
import type { BackgroundTask, BackgroundTasksService } from "../background/BackgroundTasks.js"
import { outputLimitNotice } from "../background/settings.js"
import { readFinalCwd, shellTempDir } from "./cwdTrap.js"
import { OutputFollower } from "./followOutput.js"
import type { CapturedOutput } from "./OutputCapture.js"
import type { ShellOutcome, ShellPlumbing, ShellProgress } from "./runShell.js"

/** How long a moved command may go on running before it is stopped (Claude Code's 10 minutes). */
export const MOVED_LIFETIME_MS = 600_000

/** Characters of the output so far shown when a command is moved. */
export const MOVED_TAIL_CHARS = 2000

export interface MovableRun {
  readonly command: string
  readonly description: string | undefined
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly shell: string
  readonly timeoutMs: number
  readonly maxOutputChars: number
  /** Where the full output is kept when it is over `maxOutputChars` (the task file is moved there). */
  readonly spillPath: string
  /** Past this much output the command is stopped and its file cut there, with the limit's notice. */
  readonly maxSpillBytes?: number
  readonly sessionDir: string
  readonly progressIntervalMs: number
  readonly onProgress: (progress: ShellProgress) => Effect.Effect<void>
  readonly sandbox?: (plumbing: ShellPlumbing) => Effect.Effect<SandboxedShell | undefined, ToolError, Scope.Scope>
  readonly background: BackgroundTasksService
}

export type MovableOutcome =
  | { readonly _tag: "Finished"; readonly outcome: ShellOutcome }
  | {
    readonly _tag: "Moved"
    readonly task: BackgroundTask
    /** The last characters written before the move, and how many were written in all. */
    readonly tail: string
    readonly totalChars: number
    readonly totalBytes: number
  }

/** Claude Code does not move a command that starts by sleeping: it is stopped at its timeout. */
export const startsWithSleep = (command: string): boolean => /^\s*sleep(?:\s|$)/.test(command)

export const runMovable = (run: MovableRun): Effect.Effect<MovableOutcome, ToolError, Scope.Scope> =>
  Effect.gen(function*() {
    const temp = yield* shellTempDir
    let sandboxed: SandboxedShell | undefined
    const sandbox = run.sandbox
    let moved = false
    // Whatever ends the call early (an interrupt, a defect) stops the task; only a move leaves it running.
    const task = yield* Effect.acquireRelease(
      run.background.start({
        command: run.command,
        ...(run.description !== undefined ? { description: run.description } : {}),
        cwd: run.cwd,
        env: { ...run.env, ...temp.env },
        shell: run.shell,
        timeoutMs: run.timeoutMs + MOVED_LIFETIME_MS,
        sessionDir: run.sessionDir,
        ...(run.maxSpillBytes === undefined ? {} : { maxOutputBytes: run.maxSpillBytes }),
        ...(sandbox === undefined
          ? {}
          : {
            sandbox: (given: ShellPlumbing) =>
              sandbox({
                innerEnv: { ...given.innerEnv, ...temp.env },
                writableFiles: [...given.writableFiles, temp.cwdFile]
              }).pipe(
                Effect.tap((shell) => Effect.sync(() => void (sandboxed = shell)))
              )
          })
      }),
      (started) => (moved ? Effect.void : run.background.stop(started.id).pipe(Effect.ignore))
    )
    const follower = new OutputFollower(task.outputFile, run.maxOutputChars, MOVED_TAIL_CHARS)
    const startedAt = Date.now()
    const progress = yield* Effect.sleep(Duration.millis(run.progressIntervalMs)).pipe(
      Effect.zipRight(
        Effect.suspend(() => {
          follower.poll(false)
          return run.onProgress({
            elapsedMs: Date.now() - startedAt,
            lines: follower.lines,
            chars: follower.totalChars,
            tail: follower.lastLines(3)
          })
        })
      ),
      Effect.forever,
      Effect.forkScoped
    )
    // Waiting reads nothing (maxBytes 0): the output is followed from the file itself.
    const waited = yield* run.background.read(task.id, { block: true, waitMs: run.timeoutMs, maxBytes: 0 }).pipe(
      Effect.orDie
    )
    yield* Fiber.interrupt(progress)
    if (waited.retrieval !== "success") {
      moved = true
      follower.poll(false)
      return {
        _tag: "Moved",
        task,
        tail: follower.tail,
        totalChars: follower.totalChars,
        totalBytes: follower.totalBytes
      } as const
    }
    follower.poll(true)
    const outputLimited = waited.task.stoppedBy === "output limit"
    const kept = keepOutput(follower, run.spillPath)
    const output = outputLimited ? { ...kept, limitNotice: outputLimitNotice(waited.task.maxOutputBytes) } : kept
    const violations = sandboxed?.violations()
    const outcome: ShellOutcome = {
      exitCode: waited.task.exitCode ?? 1,
      signal: null,
      timedOut: false,
      outputLimited,
      output,
      finalCwd: readFinalCwd(temp.cwdFile),
      ...(violations === undefined ? {} : { sandboxViolations: violations })
    }
    return { _tag: "Finished", outcome } as const
  })

/** The result's view of a finished command; its file becomes the spilled output, or goes when the result holds it all. */
const keepOutput = (follower: OutputFollower, spillPath: string): CapturedOutput => {
  const truncated = follower.totalChars > follower.head.length
  let outputFile: string | undefined
  let spillError: string | undefined
  if (truncated) {
    try {
      fs.mkdirSync(path.dirname(spillPath), { recursive: true, mode: 0o700 })
      fs.renameSync(follower.file, spillPath)
      outputFile = spillPath
    } catch (cause) {
      // the task's own file still holds it all
      outputFile = follower.file
      spillError = cause instanceof Error ? cause.message : String(cause)
    }
  } else fs.rmSync(follower.file, { force: true })
  return {
    stdout: follower.head,
    stderr: "",
    combined: follower.head,
    totalChars: follower.totalChars,
    totalBytes: follower.totalBytes,
    lines: follower.lines,
    truncated,
    outputFile,
    spillError: outputFile === undefined ? spillError : undefined,
    limitNotice: undefined
  }
}
