/**
 * A command line as an Effect, and what its end means for the process. The executable runs it
 * and applies the outcome; tests that run the command tree in-process do the same.
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Logger, Option } from "effect"
import { BROKEN_SETTINGS_EXIT_CODE, BrokenSettings } from "../Errors.js"
import { cli, prepareArgv } from "./Cli.js"
import { usageExitCodeFor } from "./usageError.js"

/** Every log line goes to stderr: stdout carries results only (Effect's default logger writes to stdout). */
const stderrLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.map(Logger.logfmtLogger, (line) => void process.stderr.write(`${line}\n`))
)

/**
 * The command `args` (the arguments after the executable) ask for, with Node's platform
 * services. Help, version and usage errors are answered at once, before @effect/cli runs.
 */
export const programOf = (args: ReadonlyArray<string>): Effect.Effect<void, unknown> => {
  const prepared = prepareArgv(args)
  if (prepared === undefined) return Effect.void
  return Effect.suspend(() => cli([...process.argv.slice(0, 2), ...prepared])).pipe(
    Effect.provide(NodeContext.layer),
    Effect.provide(stderrLogger)
  )
}

/** What a finished command means for the process. */
export interface ExitOutcome {
  /** undefined: the command set its own exit code (or succeeded). */
  readonly exitCode: number | undefined
  readonly errorLine: string | undefined
}

/** `args`: the command line, whose command decides a usage error's exit code. */
export const exitOutcome = (exit: Exit.Exit<unknown, unknown>, args: ReadonlyArray<string>): ExitOutcome => {
  if (Exit.isSuccess(exit)) return { exitCode: undefined, errorLine: undefined }
  if (Cause.isInterruptedOnly(exit.cause)) return { exitCode: 130, errorLine: undefined }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
    return { exitCode: usageExitCodeFor(args), errorLine: undefined }
  }
  const error = Option.getOrElse(failure, () => Cause.squash(exit.cause))
  const message = error instanceof Error ? error.message : String(error)
  return {
    exitCode: (error as { _tag?: unknown })._tag === "UsageError"
      ? usageExitCodeFor(args)
      : error instanceof BrokenSettings
      ? BROKEN_SETTINGS_EXIT_CODE
      : 1,
    errorLine: `toolgate: ${message.split("\n")[0]}\n`
  }
}
