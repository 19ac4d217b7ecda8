/**
 * The texts the model reads for a Bash call, as Claude Code 2.1.332 sends them: stdout and stderr
 * together in the order they were written (leading blank lines stripped, trailing whitespace
 * trimmed), then any notices; over 30,000 characters the persisted-output preview; on failure
 * `Exit code N` first (and the timeout line), then the output.
 */
import type { BashOutput } from "./BashOutput.js"
import { formatSize, previewOf } from "../../services/ResultStore.js"

export const ABORTED_MARKER = "<error>Command was aborted before completion</error>"

const stripLeadingBlankLines = (text: string): string => text.replace(/^(?:[ \t\r\f\v]*\n)+/, "")

const cleanStdout = (stdout: string): string => stripLeadingBlankLines(stdout).trimEnd()

const joinNonEmpty = (parts: ReadonlyArray<string | undefined>): string =>
  parts.filter((part): part is string => part !== undefined && part !== "").join("\n")

/** What the command printed, both streams in arrival order, as Claude Code 2.1.332 shows it. */
export const shownOutput = (output: Pick<BashOutput, "combined">): string => cleanStdout(output.combined)

/** Over the limit the whole output is in a file and the model gets its start (Claude Code's persisted-output form). */
const persistedText = (output: BashOutput, file: string): string =>
  [
    "<persisted-output>",
    `Output too large (${formatSize(output.totalChars)}). Full output saved to: ${file}`,
    "",
    "Preview (first 2KB):",
    previewOf(shownOutput(output)),
    "...",
    "</persisted-output>"
  ].join("\n")

export const successText = (output: BashOutput): string =>
  output.truncated && output.outputFile !== undefined && output.backgroundTaskId === undefined
    ? persistedText(output, output.outputFile)
    : joinNonEmpty([
      shownOutput(output),
      output.sandboxViolations,
      output.interrupted && !output.timedOut ? ABORTED_MARKER : undefined,
      ...output.notices
    ])

/** `Exit code N`, the timeout line when it timed out, then the output (its first 30,000 characters). */
export const failureText = (output: BashOutput): string =>
  joinNonEmpty([
    `Exit code ${output.exitCode}`,
    output.timedOut ? timeoutNotice(output.timeoutMs) : undefined,
    shownOutput(output),
    output.sandboxViolations,
    ...output.notices
  ])

export const timeoutNotice = (timeoutMs: number): string => `Command timed out after ${formatTimeout(timeoutMs)}`

/** `1s`, `59s`, `2m 0s`, `1h 0m 0s`: whole seconds, as Claude Code writes a timeout. */
export const formatTimeout = (ms: number): string => {
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`
  const totalSeconds = Math.round(ms / 1000)
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  return hours > 0 ? `${hours}h ${minutes}m ${seconds}s` : `${minutes}m ${seconds}s`
}

/** The reminder after a call that moved the working directory (inside the working directories). */
export const cwdChangedReminder = (from: string, to: string): string =>
  `<system-reminder>\n# Environment update\n - Primary working directory: ${to} (was ${from})\n</system-reminder>`

export const formatDuration = (ms: number): string =>
  ms < 1000
    ? `${ms}ms`
    : ms < 60_000
    ? `${Number((ms / 1000).toFixed(1))}s`
    : `${Math.floor(ms / 60_000)}m ${Number(((ms % 60_000) / 1000).toFixed(1))}s`

export const formatBytes = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / (1024 * 1024)).toFixed(1)} MB`
