/**
 * The texts the model reads for a Bash call (claude-code-spec §3.3, §4.3): on success stdout
 * (leading blank lines stripped, trailing whitespace trimmed), then stderr (trimmed), then any
 * notices; on failure `Exit code N` (or the timeout notice) first, then stderr, then stdout.
 */
import type { BashOutput } from "./BashOutput.js"

export const ABORTED_MARKER = "<error>Command was aborted before completion</error>"

const stripLeadingBlankLines = (text: string): string => text.replace(/^(?:[ \t\r\f\v]*\n)+/, "")

const cleanStdout = (stdout: string): string => stripLeadingBlankLines(stdout).trimEnd()

const joinNonEmpty = (parts: ReadonlyArray<string | undefined>): string =>
  parts.filter((part): part is string => part !== undefined && part !== "").join("\n")

export const successText = (output: BashOutput): string =>
  joinNonEmpty([
    cleanStdout(output.stdout),
    output.stderr.trim(),
    output.interrupted && !output.timedOut ? ABORTED_MARKER : undefined,
    ...output.notices
  ])

export const failureText = (output: BashOutput): string =>
  joinNonEmpty([
    output.timedOut ? timeoutNotice(output.timeoutMs) : `Exit code ${output.exitCode}`,
    output.stderr.trim(),
    cleanStdout(output.stdout),
    ...output.notices
  ])

export const timeoutNotice = (timeoutMs: number): string =>
  `Command timed out after ${formatDuration(timeoutMs)}; the command and every process it started were killed`

export const formatDuration = (ms: number): string =>
  ms < 1000 ? `${ms}ms` : ms < 60_000 ? `${Number((ms / 1000).toFixed(1))}s` : `${Math.floor(ms / 60_000)}m ${Number(((ms % 60_000) / 1000).toFixed(1))}s`

export const formatBytes = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`

/** The line that says the output was cut and where the whole of it is. */
export const spillNotice = (output: {
  readonly totalChars: number
  readonly totalBytes: number
  readonly outputFile: string | undefined
  readonly spillError: string | undefined
}): string =>
  output.outputFile !== undefined
    ? `[Output too large (${output.totalChars} characters, ${formatBytes(output.totalBytes)}): only the start and end of each stream are shown. Full output (stdout and stderr interleaved) saved to: ${output.outputFile}]`
    : `[Output too large (${output.totalChars} characters, ${formatBytes(output.totalBytes)}): only the start and end of each stream are shown. The full output could not be saved: ${output.spillError ?? "unknown error"}]`
