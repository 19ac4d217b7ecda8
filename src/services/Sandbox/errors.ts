/** Why a command could not be put into its sandbox (the Bash call then fails: nothing runs unconfined by mistake). */
import { Schema } from "effect"

export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  /** What was being prepared: `read-only profile`, `settings profile`, `hidden paths`. */
  stage: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `The sandbox could not be prepared (${this.stage}): ${this.reason}`
  }
}
