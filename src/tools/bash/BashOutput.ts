/** What a Bash call returns: the data behind its result text and its hook response. */

export interface BashOutput {
  /** stdout, or a preview of it (head and tail) when the output was too large. */
  readonly stdout: string
  readonly stderr: string
  /** The shell's exit code; 128 + the signal number when a signal ended it. */
  readonly exitCode: number
  /** True when the command did not run to its end (it timed out). */
  readonly interrupted: boolean
  readonly timedOut: boolean
  readonly timeoutMs: number
  /** Where the full output was saved when it was too large to keep (for a background run: its output file). */
  readonly outputFile?: string
  /** Set when the command was started in the background (`run_in_background`). */
  readonly backgroundTaskId?: string
  /** Lines appended to the result text: the output-saved notice, `Shell cwd was reset to <dir>`. */
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
