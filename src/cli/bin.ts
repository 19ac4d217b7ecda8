/**
 * The `toolgate` executable: runs the command tree with Node's platform services, turns
 * failures into one-line errors with a non-zero exit, and routes Ctrl-C to the running calls.
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import { cli, prepareArgv } from "./Cli.js"
import { deliverInterrupt } from "./interrupts.js"
import { USAGE_EXIT_CODE } from "./usageError.js"

// help, version and usage errors are answered before @effect/cli runs
const prepared = prepareArgv(process.argv.slice(2))
const argv = [...process.argv.slice(0, 2), ...(prepared ?? [])]
const program = prepared === undefined ? Effect.void : Effect.suspend(() => cli(argv)).pipe(Effect.provide(NodeContext.layer))

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
    process.exitCode = USAGE_EXIT_CODE
    return
  }
  const error = Option.getOrElse(failure, () => Cause.squash(exit.cause))
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`toolgate: ${message.split("\n")[0]}\n`)
  process.exitCode = (error as { _tag?: unknown })._tag === "UsageError" ? USAGE_EXIT_CODE : 1
})
