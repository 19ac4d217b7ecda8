/**
 * What the model reads when a foreground command passed its timeout and was moved to the
 * background (Claude Code 2.1.332's wording): the output so far (its end, when long), then where
 * the output goes on and what to do about the running command.
 */
import { MOVED_LIFETIME_MS, MOVED_TAIL_CHARS } from "./movableRun.js"
import { formatTimeout } from "./resultText.js"

export interface MovedCommand {
  readonly taskId: string
  readonly outputFile: string
  readonly timeoutMs: number
  /** The last characters written before the move, and how many were written in all. */
  readonly tail: string
  readonly totalChars: number
  /** The session's working directory, named when the command changes directory. */
  readonly sessionCwd: string
  readonly changesDirectory: boolean
}

const stripLeadingBlankLines = (text: string): string => text.replace(/^(?:[ \t\r\f\v]*\n)+/, "")

/** The output so far: whole when short; else its last characters from the first full line, after a pointer to the file. */
const outputSoFar = (moved: MovedCommand): string => {
  if (moved.totalChars <= MOVED_TAIL_CHARS) return stripLeadingBlankLines(moved.tail).trimEnd()
  const newline = moved.tail.indexOf("\n")
  const lines = newline < 0 ? moved.tail : moved.tail.slice(newline + 1)
  return `[… earlier output omitted; full output: ${moved.outputFile}]\n${lines.trimEnd()}`
}

const lifetime = (ms: number): string => `${Math.round(ms / 60_000)}m`

/** A timeout in whole seconds, rounded, as the move notice names it. */
const movedTimeout = (ms: number): string => formatTimeout(Math.round(ms / 1000) * 1000)

export const movedText = (moved: MovedCommand): string => {
  const silent = moved.totalChars === 0
  const notice =
    `Command did not complete within its ${
      movedTimeout(moved.timeoutMs)
    } timeout and was moved to the background (ID: ${moved.taskId}). ` +
    `Output is being written to: ${moved.outputFile} You will be notified when it completes. ` +
    `If it is still running after ${
      lifetime(MOVED_LIFETIME_MS)
    } in the background, it will be stopped and you will be notified. ` +
    "It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop. " +
    (silent
      ? "No output had been read from it when it was moved. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes. "
      : "") +
    "To check interim output, use Read on that file path."
  const cwdLine = moved.changesDirectory
    ? `\nSession cwd remains ${moved.sessionCwd}; directory changes made by the backgrounded command do not apply to subsequent commands.`
    : ""
  const shown = outputSoFar(moved)
  return `${shown === "" ? "" : `${shown}\n`}${notice}${cwdLine}`
}

/** A cd, pushd or popd as a command of the line (a plain split on the operators is enough for a notice). */
export const changesDirectory = (command: string): boolean =>
  command.split(/&&|\|\||[;|&\n]/).some((part) => /^\s*[({]?\s*(?:cd|pushd|popd)(?:\s|$)/.test(part))
