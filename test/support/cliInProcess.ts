/**
 * Runs a toolgate command line inside the test process: the same command tree the executable
 * runs (`programOf`, and `exitOutcome` for the exit code and error line), with the process's
 * environment, working folder, stdout and stderr swapped for the run's own and restored after.
 * A warm process replays a scripted session in a tenth of the CPU a fresh `node` needs to start
 * the CLI. What only a real process shows (start-up, signals, the bundle) stays with the tests
 * that spawn `dist/toolgate.cjs`.
 *
 * The environment, folder and standard streams belong to the whole process, so runs take turns.
 */
import { Console as EffectConsole, Effect, Fiber } from "effect"
import { Console as NodeConsole } from "node:console"
import { Readable } from "node:stream"
import type { LaunchOptions, ProcessOutcome } from "../../conformance/src/runScenario.js"
import { exitOutcome, programOf } from "../../src/cli/program.js"

/** The run's folder, environment and bound, as for a process; and what it reads on stdin (empty when not given). */
export type InProcessOptions = LaunchOptions & { readonly input?: string }

type Write = typeof process.stdout.write

const capture = (into: Array<string>): Write =>
  ((chunk: string | Uint8Array, encodingOrDone?: unknown, done?: unknown) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
    const callback = typeof encodingOrDone === "function" ? encodingOrDone : done
    if (typeof callback === "function") queueMicrotask(() => callback())
    return true
  }) as Write

/**
 * Effect's default Console writes through `globalThis.console`, which the test runner intercepts;
 * this one is Node's console over the process's streams (captured during a run), as in the CLI.
 */
const processConsole = (): EffectConsole.Console => {
  const node: Console = new NodeConsole({ stdout: process.stdout, stderr: process.stderr })
  const method = (name: keyof Console) => (...args: ReadonlyArray<unknown>) =>
    Effect.sync(() => void (node[name] as (...a: ReadonlyArray<unknown>) => void)(...args))
  return {
    [EffectConsole.TypeId]: EffectConsole.TypeId,
    assert: (condition: boolean, ...args: ReadonlyArray<unknown>) => method("assert")(condition, ...args),
    clear: method("clear")(),
    count: method("count"),
    countReset: method("countReset"),
    debug: method("debug"),
    dir: method("dir"),
    dirxml: method("dirxml"),
    error: method("error"),
    group: () => method("group")(),
    groupEnd: method("groupEnd")(),
    info: method("info"),
    log: method("log"),
    table: method("table"),
    time: method("time"),
    timeEnd: method("timeEnd"),
    timeLog: method("timeLog"),
    trace: method("trace"),
    warn: method("warn"),
    unsafe: node
  }
}

const replaceEnv = (env: Readonly<Record<string, string | undefined>>) => {
  for (const key of Object.keys(process.env)) delete process.env[key]
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value
}

const stdinDescriptor = Object.getOwnPropertyDescriptor(process, "stdin")!

const replaceStdin = (input: string) =>
  Object.defineProperty(process, "stdin", {
    configurable: true,
    enumerable: stdinDescriptor.enumerable ?? true,
    value: Readable.from(input === "" ? [] : [Buffer.from(input)])
  })

const turns = Effect.runSync(Effect.makeSemaphore(1))

/** Runs `toolgate <args>` in this process; never fails (a failed command is its exit code and stderr). */
export const cliInProcess = (args: ReadonlyArray<string>, options: InProcessOptions): Effect.Effect<ProcessOutcome> =>
  turns.withPermits(1)(
    Effect.suspend(() => {
      const started = Date.now()
      const stdout: Array<string> = []
      const stderr: Array<string> = []
      const saved = {
        env: { ...process.env },
        cwd: process.cwd(),
        exitCode: process.exitCode,
        out: process.stdout.write,
        err: process.stderr.write
      }
      const enter = Effect.sync(() => {
        replaceEnv(options.env)
        process.chdir(options.cwd)
        replaceStdin(options.input ?? "")
        process.exitCode = undefined
        process.stdout.write = capture(stdout)
        process.stderr.write = capture(stderr)
      })
      const leave = Effect.sync(() => {
        process.stdout.write = saved.out
        process.stderr.write = saved.err
        process.exitCode = saved.exitCode
        Object.defineProperty(process, "stdin", stdinDescriptor)
        process.chdir(saved.cwd)
        replaceEnv(saved.env)
      })
      const run = Effect.gen(function*() {
        const fiber = yield* Effect.fork(EffectConsole.withConsole(programOf(args), processConsole()))
        const exit = yield* Fiber.await(fiber).pipe(
          Effect.timeoutTo({ duration: options.timeoutMs, onTimeout: () => undefined, onSuccess: (e) => e })
        )
        if (exit === undefined) {
          yield* Fiber.interrupt(fiber)
          return { exitCode: null, timedOut: true }
        }
        const outcome = exitOutcome(exit, args)
        if (outcome.errorLine !== undefined) stderr.push(outcome.errorLine)
        return { exitCode: outcome.exitCode ?? Number(process.exitCode ?? 0), timedOut: false }
      })
      return Effect.acquireUseRelease(enter, () => run, () => leave).pipe(
        Effect.map(({ exitCode, timedOut }) => ({
          exitCode,
          timedOut,
          stdout: stdout.join(""),
          stderr: stderr.join(""),
          wallMs: Date.now() - started
        }))
      )
    })
  )
