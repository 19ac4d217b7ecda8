/**
 * A command line that cannot work as given (flags that conflict, a flag a mode needs): one line
 * naming the flag, exit code 2 — like the argv front end's errors.
 */
import { Data } from "effect"

export class UsageError extends Data.TaggedError("UsageError")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export const USAGE_EXIT_CODE = 2
