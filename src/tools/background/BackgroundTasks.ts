/**
 * Background shells (Bash `run_in_background`, TaskOutput, TaskStop):
 * each task is a shell in its own process group whose output goes to
 * `<sessionDir>/tasks/<id>.output`. A supervisor fiber per task ends it at its timeout, or when
 * its output file passes the limit (`taskOutputMaxBytes`: the file is cut there and ends with a
 * notice), and stops what the shell left behind when it exits. Everything lives in the layer's scope: when it closes
 * (the end of `toolgate exec` / `run`, or of a library user's runtime), every task still running
 * is stopped, whole process group (no process outlives its task).
 *
 * @since 0.1.0
 */
import { Clock, Context, Deferred, Duration, Effect, ExecutionStrategy, Exit, Layer, Option, Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolError } from "../../Errors.js"
import { killGroup, signalGroup } from "../../internal/processGroup.js"
import { TaskNotRunning, UnknownTask } from "./errors.js"
import { openOutputFile, readNewOutput, type OutputSlice } from "./outputFile.js"
import { EXIT_WAIT_MS, OUTPUT_CHECK_MS, outputLimitNotice, taskOutputMaxBytes } from "./settings.js"
import { exitCodeOf, spawnTask, type TaskProcess } from "./taskProcess.js"
import type { ShellPlumbing } from "../bash/runShell.js"
import type { SandboxedShell } from "../../services/Sandbox.js"

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStatus = "running" | "completed" | "failed" | "killed"

/**
 * Who ended a task that did not end by itself.
 *
 * @since 0.1.0
 * @category models
 */
export type StopCause = "TaskStop" | "timeout" | "session end" | "output limit"

/**
 * A snapshot of one task.
 *
 * @since 0.1.0
 * @category models
 */
export interface BackgroundTask {
  readonly id: string
  readonly command: string
  readonly description: string | undefined
  readonly outputFile: string
  /** The shell's pid, which is also the process group id. */
  readonly pid: number
  readonly startedAt: number
  readonly timeoutMs: number
  /** running; completed (exit 0); failed (any other exit); killed (stopped, see `stoppedBy`). */
  readonly status: TaskStatus
  /** The shell's exit code (128 + n for signal n); undefined while running. */
  readonly exitCode: number | undefined
  readonly stoppedBy: StopCause | undefined
  readonly endedAt: number | undefined
  /** The output limit in force (see `taskOutputMaxBytes`). */
  readonly maxOutputBytes: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StartRequest {
  readonly command: string
  readonly description?: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly shell: string
  readonly timeoutMs: number
  /** The output goes to `<sessionDir>/tasks/<id>.output`. */
  readonly sessionDir: string
  /** Puts the shell into a sandbox (undefined result: none); what it needs lives as long as the task. */
  readonly sandbox?: (plumbing: ShellPlumbing) => Effect.Effect<SandboxedShell | undefined, ToolError, Scope.Scope>
  /** This task's output limit (a foreground command's: `TOOLGATE_BASH_OUTPUT_MAX_BYTES`); default the service's. */
  readonly maxOutputBytes?: number
}

/**
 * What waiting gave: the task ended (success), the wait ran out (timeout), or no wait was asked for while it runs (not_ready).
 *
 * @since 0.1.0
 * @category models
 */
export type RetrievalStatus = "success" | "timeout" | "not_ready"

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskReading {
  readonly task: BackgroundTask
  readonly retrieval: RetrievalStatus
  /** The output written since the previous read of this task. */
  readonly output: OutputSlice
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ReadOptions {
  /** Wait for the task to end (up to `waitMs`). */
  readonly block: boolean
  readonly waitMs: number
  /** Most bytes of new output returned; the newest part is kept. */
  readonly maxBytes: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface BackgroundTasksService {
  readonly start: (request: StartRequest) => Effect.Effect<BackgroundTask, ToolError>
  readonly get: (taskId: string) => Effect.Effect<Option.Option<BackgroundTask>>
  /** Output since the last read, after waiting when asked to. */
  readonly read: (taskId: string, options: ReadOptions) => Effect.Effect<TaskReading, UnknownTask>
  /** Stops the task's whole process group and waits (bounded) for the shell to be gone. */
  readonly stop: (taskId: string) => Effect.Effect<BackgroundTask, UnknownTask | TaskNotRunning>
  readonly list: Effect.Effect<ReadonlyArray<BackgroundTask>>
}

/**
 * @since 0.1.0
 * @category services
 */
export class BackgroundTasks
  extends Context.Tag("toolgate/BackgroundTasks")<BackgroundTasks, BackgroundTasksService>()
{}

/**
 * @since 0.1.0
 * @category models
 */
export interface BackgroundTasksOptions {
  /** Time between SIGTERM and SIGKILL when a task is stopped (default 1000 ms). */
  readonly killGraceMs?: number
  /** Largest output file of a task (default `TOOLGATE_TASK_OUTPUT_MAX_BYTES`, else 5 GB). */
  readonly maxOutputBytes?: number
}

interface TaskState {
  readonly id: string
  readonly command: string
  readonly description: string | undefined
  readonly outputFile: string
  readonly startedAt: number
  readonly timeoutMs: number
  readonly process: TaskProcess
  readonly done: Deferred.Deferred<void>
  /** Holds what the task's sandbox needs; closed once the task has ended. */
  readonly scope: Scope.CloseableScope
  status: TaskStatus
  exitCode: number | undefined
  stoppedBy: StopCause | undefined
  endedAt: number | undefined
  readOffset: number
  readonly maxOutputBytes: number
}

const ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"

/**
 * `b` and 8 random characters, as Claude Code names background shells.
 *
 * @since 0.1.0
 * @category constructors
 */
export const newTaskId = (): string => {
  const bytes = randomBytes(8)
  let id = "b"
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length]
  return id
}

const snapshot = (state: TaskState): BackgroundTask => ({
  id: state.id,
  command: state.command,
  description: state.description,
  outputFile: state.outputFile,
  pid: state.process.pid,
  startedAt: state.startedAt,
  timeoutMs: state.timeoutMs,
  status: state.status,
  exitCode: state.exitCode,
  stoppedBy: state.stoppedBy,
  endedAt: state.endedAt,
  maxOutputBytes: state.maxOutputBytes
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: BackgroundTasksOptions = {}) =>
  Effect.gen(function*() {
    const graceMs = options.killGraceMs ?? 1000
    const maxOutputBytes = options.maxOutputBytes ?? (yield* taskOutputMaxBytes)
    const tasks = new Map<string, TaskState>()
    const scope = yield* Effect.scope
    // Runs last: whatever a supervisor could not stop gets SIGKILL.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const state of tasks.values()) {
          if (state.process.exit() === undefined) signalGroup(state.process.pid, "SIGKILL")
        }
      })
    )
    // Supervisors live here; closing it interrupts them all at once, so tasks stop in parallel.
    const supervisors = yield* Scope.fork(scope, ExecutionStrategy.parallel)

    const waitForExit = (state: TaskState) =>
      Effect.interruptible(state.process.awaitExit).pipe(Effect.timeoutOption(Duration.millis(EXIT_WAIT_MS)))

    const finish = (state: TaskState) =>
      Effect.gen(function*() {
        if (state.status !== "running") return
        const exit = state.process.exit()
        state.exitCode = exit === undefined ? undefined : exitCodeOf(exit)
        state.status = state.stoppedBy !== undefined ? "killed" : state.exitCode === 0 ? "completed" : "failed"
        state.endedAt = yield* Clock.currentTimeMillis
        yield* Deferred.succeed(state.done, undefined)
      })

    const stopGroup = (state: TaskState, cause: StopCause) =>
      Effect.gen(function*() {
        if (state.status === "running" && state.stoppedBy === undefined && state.process.exit() === undefined) {
          state.stoppedBy = cause
        }
        yield* killGroup(state.process.pid, graceMs)
        yield* waitForExit(state)
      })

    /** Completes once the task's output file is over the limit (measured every OUTPUT_CHECK_MS). */
    const outputOverLimit = (state: TaskState) =>
      Effect.gen(function*() {
        for (;;) {
          yield* Effect.sleep(Duration.millis(OUTPUT_CHECK_MS))
          if (fileSize(state.outputFile) > state.maxOutputBytes) return
        }
      })

    /** Cuts the output file back to the limit and says why it ends there. */
    const capOutput = (state: TaskState) =>
      Effect.sync(() => {
        try {
          fs.truncateSync(state.outputFile, state.maxOutputBytes)
          fs.appendFileSync(state.outputFile, `\n${outputLimitNotice(state.maxOutputBytes)}\n`)
        } catch {
          // the file is gone or unwritable: the task is stopped either way
        }
      })

    /**
     * Ends the task at its timeout, or when its output passes the limit; when the shell exits,
     * stops whatever it left in its group.
     */
    const supervise = (state: TaskState) =>
      Effect.gen(function*() {
        const ended = yield* Effect.raceAll([
          state.process.awaitExit.pipe(Effect.as(undefined)),
          Effect.sleep(Duration.millis(state.timeoutMs)).pipe(Effect.as("timeout" as const)),
          outputOverLimit(state).pipe(Effect.as("output limit" as const))
        ])
        if (ended !== undefined) yield* stopGroup(state, ended)
        if (ended === "output limit") yield* capOutput(state)
        // What the shell started and left running ends with it, as in the foreground.
        yield* killGroup(state.process.pid, graceMs)
        yield* finish(state)
      }).pipe(
        Effect.onInterrupt(() => stopGroup(state, "session end").pipe(Effect.zipRight(finish(state)))),
        Effect.ensuring(Scope.close(state.scope, Exit.void))
      )

    const start = Effect.fn("BackgroundTasks.start")(function*(request: StartRequest) {
      return yield* Effect.uninterruptible(
        Effect.gen(function*() {
          const opened = yield* Effect.try({
            try: () => openOutputFile(path.join(request.sessionDir, "tasks"), () => nextFreeId(tasks)),
            catch: (cause) =>
              new ToolError({ reason: `Could not create the output file for a background task: ${describe(cause)}` })
          })
          const taskScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
          const proc = yield* Effect.gen(function*() {
            const sandboxed = request.sandbox === undefined
              ? undefined
              : yield* Scope.extend(request.sandbox({ innerEnv: {}, writableFiles: [] }), taskScope)
            return yield* spawnTask({
              shell: request.shell,
              command: request.command,
              cwd: request.cwd,
              env: request.env,
              outputFd: opened.fd,
              ...(sandboxed === undefined ? {} : { invocation: sandboxed.invocation })
            })
          }).pipe(
            Effect.ensuring(Effect.sync(() => fs.closeSync(opened.fd))),
            Effect.tapError(() =>
              Effect.sync(() => fs.rmSync(opened.file, { force: true })).pipe(
                Effect.zipRight(Scope.close(taskScope, Exit.void))
              )
            )
          )
          const state: TaskState = {
            id: opened.id,
            command: request.command,
            description: request.description,
            outputFile: opened.file,
            startedAt: yield* Clock.currentTimeMillis,
            timeoutMs: request.timeoutMs,
            process: proc,
            done: yield* Deferred.make<void>(),
            scope: taskScope,
            status: "running",
            exitCode: undefined,
            stoppedBy: undefined,
            endedAt: undefined,
            readOffset: 0,
            maxOutputBytes: request.maxOutputBytes ?? maxOutputBytes
          }
          tasks.set(state.id, state)
          // Forked from an uninterruptible region: the supervisor itself must stay interruptible.
          yield* Effect.forkIn(Effect.interruptible(supervise(state)), supervisors)
          return snapshot(state)
        })
      )
    })

    const lookup = (taskId: string) => {
      const state = tasks.get(taskId)
      return state === undefined ? Effect.fail(new UnknownTask({ taskId })) : Effect.succeed(state)
    }

    const get = (taskId: string) =>
      Effect.sync(() => {
        const state = tasks.get(taskId)
        return state === undefined ? Option.none<BackgroundTask>() : Option.some(snapshot(state))
      })

    const read = Effect.fn("BackgroundTasks.read")(function*(taskId: string, readOptions: ReadOptions) {
      const state = yield* lookup(taskId)
      if (state.status === "running" && readOptions.block) {
        yield* Deferred.await(state.done).pipe(Effect.timeoutOption(Duration.millis(readOptions.waitMs)))
      }
      const running = state.status === "running"
      const output = readNewOutput(state.outputFile, state.readOffset, readOptions.maxBytes, !running)
      state.readOffset = output.toByte
      const retrieval: RetrievalStatus = !running ? "success" : readOptions.block ? "timeout" : "not_ready"
      return { task: snapshot(state), retrieval, output } satisfies TaskReading
    })

    const stop = Effect.fn("BackgroundTasks.stop")(function*(taskId: string) {
      const state = yield* lookup(taskId)
      if (state.status !== "running") return yield* new TaskNotRunning({ taskId, status: state.status })
      yield* stopGroup(state, "TaskStop")
      yield* Deferred.await(state.done).pipe(Effect.timeoutOption(Duration.millis(EXIT_WAIT_MS)))
      return snapshot(state)
    })

    const list = Effect.sync(() => Array.from(tasks.values(), snapshot))

    return BackgroundTasks.of({ start, get, read, stop, list })
  })

const nextFreeId = (tasks: ReadonlyMap<string, unknown>): string => {
  for (;;) {
    const id = newTaskId()
    if (!tasks.has(id)) return id
  }
}

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

const fileSize = (file: string): number => {
  try {
    return fs.statSync(file).size
  } catch {
    return 0
  }
}

/**
 * Scoped: closing the scope stops every task still running.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: BackgroundTasksOptions = {}): Layer.Layer<BackgroundTasks> =>
  Layer.scoped(BackgroundTasks, make(options))
