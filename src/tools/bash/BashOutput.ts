import { shownOutput } from "./resultText.js"

/** What a Bash call returns: the data behind its result text and its hook response. */

export interface BashOutput {
  /** stdout, or a preview of it (head and tail) when the output was too large. */
  readonly stdout: string
  readonly stderr: string
  /** Both streams in arrival order (the first 30,000 characters by default): what the model reads. */
  readonly combined: string
  /** Characters and bytes of the whole output, also past what was kept. */
  readonly totalChars: number
  readonly totalBytes: number
  /** True when the output passed the limit and was saved to `outputFile`. */
  readonly truncated: boolean
  /** The shell's exit code; 128 + the signal number when a signal ended it. */
  readonly exitCode: number
  /** True when the command did not run to its end (it timed out). */
  readonly interrupted: boolean
  readonly timedOut: boolean
  readonly timeoutMs: number
  /** Where the full output was saved when it was too large to keep (for a background run: its output file). */
  readonly outputFile?: string
  /** Set when the call moved the working directory (the model is told, as Claude Code does). */
  readonly cwdChange?: { readonly from: string; readonly to: string }
  /** Set when the command was started in the background (`run_in_background`). */
  readonly backgroundTaskId?: string
  /** What the sandbox refused the command: a `<sandbox_violations>` block, shown after the output. */
  readonly sandboxViolations?: string
  /** Lines appended to the result text: `Shell cwd was reset to <dir>`, the background notice. */
  readonly notices: ReadonlyArray<string>
  /** Every command of the line is one that prints nothing when it works (mv, mkdir, cd, …). */
  readonly noOutputExpected?: boolean
}

/** Commands that print nothing when they succeed (Claude Code's list). */
const SILENT_COMMANDS = new Set([
  "mv",
  "cp",
  "rm",
  "mkdir",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "ln",
  "cd",
  "export",
  "unset",
  "wait"
])

/** True when every command of the line is a silent one; a plain split on the operators is enough for a hint. */
export const noOutputExpected = (command: string): boolean => {
  const names = command
    .split(/&&|\|\||[;|\n]/)
    .map((part) => part.trim().split(/\s+/, 1)[0] ?? "")
    .filter((name) => name !== "")
  return names.length > 0 && names.every((name) => SILENT_COMMANDS.has(name))
}

/**
 * What PostToolUse / PostToolUseFailure hooks receive as `tool_response`: Claude Code's keys, with
 * both streams as one in `stdout`, trimmed as the model reads them.
 */
export const bashHookResponse = (output: BashOutput) => ({
  stdout: shownOutput(output),
  stderr: "",
  interrupted: output.interrupted,
  isImage: false,
  noOutputExpected: output.noOutputExpected ?? false,
  ...(output.backgroundTaskId !== undefined ? { backgroundTaskId: output.backgroundTaskId } : {})
})

/** An output a PostToolUse hook gives in place of Bash's own: the shape of `bashHookResponse`. */
export const bashHookOutput = (replacement: unknown): BashOutput | undefined => {
  if (typeof replacement !== "object" || replacement === null || Array.isArray(replacement)) return undefined
  const { stdout, stderr, interrupted } = replacement as Record<string, unknown>
  if (typeof stdout !== "string" || typeof stderr !== "string" || typeof interrupted !== "boolean") return undefined
  const combined = stderr === "" ? stdout : stdout === "" ? stderr : `${stdout}\n${stderr}`
  return {
    stdout,
    stderr,
    combined,
    totalChars: combined.length,
    totalBytes: Buffer.byteLength(combined),
    truncated: false,
    interrupted,
    exitCode: 0,
    timedOut: false,
    timeoutMs: 0,
    notices: []
  }
}
