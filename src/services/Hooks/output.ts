/**
 * What one hook's run means: stdout starting with `{` is JSON
 * (text that does not parse is plain text), exit 0 applies the JSON, exit 2 blocks, other exits
 * are non-blocking errors unless stdout holds a valid JSON answer, which then decides alone. A
 * JSON answer that does not match the protocol (decoded with `outputSchema.ts`) is ignored with a
 * notice. Output past the capture bound is never guessed at: the run counts as failing closed.
 */
import { Either } from "effect"
import { isRecord } from "../../internal/json.js"
import { decodeHookOutput } from "./outputSchema.js"
import { MAX_STDOUT_BYTES, type ProcessOutcome } from "./runProcess.js"
import type { HookEvent, HookJsonOutput } from "./types.js"

/** One hook's run, reduced to what aggregation needs. */
export interface HookRun {
  /** The hook command as configured (or the in-process hook's name). */
  readonly label: string
  /** 1 for the first hook to finish, 2 for the next… */
  readonly order: number
  /** Exit code 2: a blocking error, with its stderr. */
  readonly exit2?: { readonly stderr: string }
  /** A valid JSON answer for this event. */
  readonly json?: HookJsonOutput
  /** Exit 0 with stdout that is not a JSON answer (context for UserPromptSubmit and SessionStart). */
  readonly plainStdout?: string
  /**
   * The hook gave no answer that can be trusted (an in-process PreToolUse hook that timed out,
   * output over the capture bound): an event that can block treats it as blocking, with this reason.
   */
  readonly failClosed?: string
  readonly notices: ReadonlyArray<string>
}

export type HookRunBody = Omit<HookRun, "order" | "label">

const firstLine = (text: string) => text.split(/\r?\n/).find((l) => l.trim() !== "")?.trim() ?? ""

/** Parses stdout as JSON when it starts with `{`; anything else (or text that does not parse) is plain text. */
export const parseStdout = (stdout: string): Record<string, unknown> | undefined => {
  const text = stdout.trimStart()
  if (!text.startsWith("{")) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** Reads a parsed answer: the JSON if it matches the protocol, else a non-blocking error notice. */
export const acceptJson = (
  event: HookEvent,
  hookName: string,
  label: string,
  parsed: unknown
): { readonly json?: HookJsonOutput; readonly notice?: string } =>
  Either.match(decodeHookOutput(label, event, parsed), {
    onLeft: (invalid) => ({ notice: `${hookName} hook error: ${invalid.message}` }),
    onRight: (json) => ({ json })
  })

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

/** Interprets a finished hook process. */
export const interpretProcess = (
  event: HookEvent,
  hookName: string,
  label: string,
  outcome: ProcessOutcome
): HookRunBody => {
  switch (outcome._tag) {
    case "SpawnFailed":
      return { notices: [`${hookName} hook error: could not start the hook: ${outcome.message}`] }
    case "TimedOut":
      return { notices: [`${hookName} hook error: the hook timed out and was cancelled; its output was discarded`] }
    case "Signalled":
      return {
        notices: [
          `${hookName} hook error: the hook was killed by ${outcome.signal}${
            outcome.stderr.trim() === "" ? "" : `: ${firstLine(outcome.stderr)}`
          }`
        ]
      }
    case "Exited": {
      if (outcome.stdoutTruncated) {
        const reason = `the hook's output is larger than ${
          megabytes(MAX_STDOUT_BYTES)
        } and was not read whole, so its answer is unknown`
        return { failClosed: reason, notices: [`${hookName} hook error: ${reason}`] }
      }
      const parsed = parseStdout(outcome.stdout)
      const accepted = parsed === undefined ? {} : acceptJson(event, hookName, label, parsed)
      const notices: Array<string> = accepted.notice === undefined ? [] : [accepted.notice]
      if (outcome.exitCode === 2) {
        return accepted.json === undefined
          ? { exit2: { stderr: outcome.stderr }, notices }
          : { exit2: { stderr: outcome.stderr }, json: accepted.json, notices }
      }
      if (accepted.json !== undefined) return { json: accepted.json, notices }
      if (outcome.exitCode !== 0 && accepted.notice === undefined) {
        const line = firstLine(outcome.stderr)
        notices.push(
          `${hookName} hook error: Failed with non-blocking status code: ${line === "" ? "No stderr output" : line}`
        )
      }
      if (outcome.exitCode === 0 && parsed === undefined && outcome.stdout.trim() !== "") {
        return { plainStdout: outcome.stdout, notices }
      }
      return { notices }
    }
  }
}
