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
  /** Lines appended to the result text: `Shell cwd was reset to <dir>`, the background notice. */
  readonly notices: ReadonlyArray<string>
}

/** What PostToolUse / PostToolUseFailure hooks receive as `tool_response`. */
export const bashHookResponse = (output: BashOutput) => ({
  stdout: output.stdout,
  stderr: output.stderr,
  interrupted: output.interrupted,
  isImage: false,
  exitCode: output.exitCode,
  ...(output.backgroundTaskId !== undefined ? { backgroundTaskId: output.backgroundTaskId } : {})
})
