/**
 * Bash settings read from the environment through Config. A value
 * that is missing, not a number or not positive falls back to the default, as Claude Code does.
 */
import { Config, Effect } from "effect"
import { positiveIntConfig } from "../../internal/config.js"

export const DEFAULT_TIMEOUT_MS = 120_000
export const MAX_TIMEOUT_MS = 600_000
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000
export const MAX_OUTPUT_CHARS_CEILING = 150_000
/** The most a foreground command's spilled output may take on disk: Claude Code stops a command at 5 GB of output. */
export const DEFAULT_SPILL_MAX_BYTES = 5 * 1024 * 1024 * 1024

export interface BashSettings {
  readonly defaultTimeoutMs: number
  /** The larger of `BASH_MAX_TIMEOUT_MS` and the default timeout. */
  readonly maxTimeoutMs: number
  /** Characters of output kept in memory for the result; beyond it the output goes to a file. */
  readonly maxOutputChars: number
  /** `CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR`: every call ends back in the project dir. */
  readonly maintainProjectDir: boolean
  /** `TOOLGATE_BASH_OUTPUT_MAX_BYTES`: past this much spilled output the command is stopped. */
  readonly maxSpillBytes: number
}

/** Claude Code's notion of a truthy environment flag. */
export const flag = (name: string): Config.Config<boolean> =>
  Config.string(name).pipe(
    Config.map((raw) => ["1", "true", "yes", "on"].includes(raw.trim().toLowerCase())),
    Config.orElse(() => Config.succeed(false))
  )

export const bashSettings: Effect.Effect<BashSettings> = Effect.gen(function*() {
  const defaultTimeoutMs = yield* positiveIntConfig("BASH_DEFAULT_TIMEOUT_MS", DEFAULT_TIMEOUT_MS)
  const maxTimeoutMs = yield* positiveIntConfig("BASH_MAX_TIMEOUT_MS", MAX_TIMEOUT_MS)
  const maxOutputChars = yield* positiveIntConfig("BASH_MAX_OUTPUT_LENGTH", DEFAULT_MAX_OUTPUT_CHARS)
  const maintainProjectDir = yield* flag("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR")
  const maxSpillBytes = yield* positiveIntConfig("TOOLGATE_BASH_OUTPUT_MAX_BYTES", DEFAULT_SPILL_MAX_BYTES)
  return {
    maxSpillBytes,
    defaultTimeoutMs,
    maxTimeoutMs: Math.max(maxTimeoutMs, defaultTimeoutMs),
    maxOutputChars: Math.min(maxOutputChars, MAX_OUTPUT_CHARS_CEILING),
    maintainProjectDir
  }
}).pipe(Effect.orDie)

/** The timeout of one call: the default when absent or not positive, clamped to the maximum. */
export const effectiveTimeoutMs = (requested: number | undefined, settings: BashSettings): number =>
  requested === undefined || !Number.isFinite(requested) || requested <= 0
    ? settings.defaultTimeoutMs
    : Math.min(Math.ceil(requested), settings.maxTimeoutMs)
