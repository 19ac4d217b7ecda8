/**
 * The `toolgate` executable: runs the command tree with Node's platform services, turns
 * failures into one-line errors with a non-zero exit, and routes Ctrl-C to the running calls.
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import { BROKEN_SETTINGS_EXIT_CODE, BrokenSettings } from "../Errors.js"
import { normalizeArgv } from "./argv.js"
import { cli, SUBCOMMANDS } from "./Cli.js"
import { deliverInterrupt } from "./interrupts.js"

const argv = [...process.argv.slice(0, 2), ...normalizeArgv(process.argv.slice(2), SUBCOMMANDS)]
const program = Effect.suspend(() => cli(argv)).pipe(Effect.provide(NodeContext.layer))

const fiber = Effect.runFork(program)
// Three Ctrl-C within two seconds end the process whatever is running.
let recentPresses: Array<number> = []
process.on("SIGINT", () => {
  const now = Date.now()
  recentPresses = [...recentPresses.filter((t) => now - t < 2000), now]
  if (recentPresses.length >= 3) process.exit(130)
  if (!deliverInterrupt()) Effect.runFork(Fiber.interrupt(fiber))
})

fiber.addObserver((exit) => {
  if (Exit.isSuccess(exit)) return
  if (Cause.isInterruptedOnly(exit.cause)) {
    process.exitCode = 130
    return
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
    process.exitCode = 1
    return
  }
  const error = Option.getOrElse(failure, () => Cause.squash(exit.cause))
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`toolgate: ${message.split("\n")[0]}\n`)
  process.exitCode = error instanceof BrokenSettings ? BROKEN_SETTINGS_EXIT_CODE : 1
})
