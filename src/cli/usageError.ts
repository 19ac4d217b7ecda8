/**
 * A command line that cannot work as given (flags that conflict, a flag a mode needs): one line
 * naming the flag, and a usage exit code — like the argv front end's errors.
 */
import { Data } from "effect"

export class UsageError extends Data.TaggedError("UsageError")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export const USAGE_EXIT_CODE = 2

/**
 * The exit code of a usage error for this command line: `run` is `claude -p`'s stand-in, and
 * Claude Code exits 1 on a usage error (an unknown option, a bad value, no prompt), so a script
 * written for it sees the same code; every other command keeps 2, apart from the 1 of a failed call.
 */
export const usageExitCodeFor = (
  args: ReadonlyArray<string>
): number => (args.find((a) => !a.startsWith("-")) === "run" ? 1 : USAGE_EXIT_CODE)
