/**
 * Limits of background tasks (Bash `run_in_background`, TaskOutput,
 * `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`).
 */
import { Effect } from "effect"
import { positiveIntSetting } from "../../internal/config.js"
import { flag } from "../bash/settings.js"

/** With `run_in_background`, `timeout` bounds the whole background run. */
export const BACKGROUND_DEFAULT_TIMEOUT_MS = 1_800_000
export const BACKGROUND_MAX_TIMEOUT_MS = 7_200_000

/** TaskOutput waits this long when `block` is true and no timeout is given; never longer than the max. */
export const TASK_OUTPUT_DEFAULT_WAIT_MS = 30_000
export const TASK_OUTPUT_MAX_WAIT_MS = 600_000

/** How long a stop waits for the shell to be gone after the group was killed. */
export const EXIT_WAIT_MS = 5_000

const clamp = (requested: number | undefined, fallback: number, max: number, min = 1): number =>
  requested === undefined || !Number.isFinite(requested) || requested < min
    ? fallback
    : Math.min(Math.ceil(requested), max)

/** The lifetime of a background run: the default when absent or not positive, clamped to the max. */
export const backgroundTimeoutMs = (requested: number | undefined): number =>
  clamp(requested, BACKGROUND_DEFAULT_TIMEOUT_MS, BACKGROUND_MAX_TIMEOUT_MS)

/** How long TaskOutput waits; 0 is allowed (look, do not wait). */
export const taskOutputWaitMs = (requested: number | undefined): number =>
  clamp(requested, TASK_OUTPUT_DEFAULT_WAIT_MS, TASK_OUTPUT_MAX_WAIT_MS, 0)

/** `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`: no background runs at all. */
export const backgroundTasksDisabled: Effect.Effect<boolean> = flag("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS").pipe(
  Effect.orElseSucceed(() => false)
)

export const BACKGROUND_DISABLED =
  "Background tasks are disabled in this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS is set). Run the command in the foreground: leave run_in_background out, and give a timeout if it may take long."

/**
 * The largest a background task's output file may grow: past it the task is stopped (whole
 * process group) and the file is cut to the limit, with a notice at its end. Claude Code stops a
 * command at 5 GB of output; `TOOLGATE_TASK_OUTPUT_MAX_BYTES` sets another limit.
 */
export const TASK_OUTPUT_DEFAULT_MAX_BYTES = 5 * 1024 * 1024 * 1024
export const taskOutputMaxBytes: Effect.Effect<number> = positiveIntSetting(
  "TOOLGATE_TASK_OUTPUT_MAX_BYTES",
  TASK_OUTPUT_DEFAULT_MAX_BYTES
)

/** How often a running task's output file is measured. */
export const OUTPUT_CHECK_MS = 250

/** `5GB`, `512MB`, `300KB`: the limit as the notice names it. */
export const limitText = (bytes: number): string => {
  const units: ReadonlyArray<readonly [number, string]> = [[1024 ** 3, "GB"], [1024 ** 2, "MB"], [1024, "KB"]]
  for (const [size, unit] of units) if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10}${unit}`
  return `${bytes}B`
}

/** The line that ends the output file of a task stopped at the limit (Claude Code's wording). */
export const outputLimitNotice = (bytes: number): string => `Command killed: output file exceeded ${limitText(bytes)}`
