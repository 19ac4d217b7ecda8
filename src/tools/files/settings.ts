/**
 * Settings the file tools read from the environment, through Config (so a ConfigProvider can
 * set them in tests). A missing or malformed value falls back to the default.
 */
import { Config, Effect, Option } from "effect"
import { positiveIntSetting } from "../../internal/config.js"

export { positiveIntSetting }

export const stringSetting = (name: string): Effect.Effect<string | undefined> =>
  Config.string(name).pipe(
    Config.option,
    Effect.map(Option.getOrUndefined),
    Effect.orElseSucceed(() => undefined)
  )

export type SearchEngine = "auto" | "rg" | "js"

/** `TOOLGATE_GREP_ENGINE` / `TOOLGATE_GLOB_ENGINE`: `rg`, `js`, or `auto` (ripgrep when on PATH). */
export const engineSetting = (name: string): Effect.Effect<SearchEngine> =>
  stringSetting(name).pipe(
    Effect.map((value) => {
      const v = value?.trim().toLowerCase()
      return v === "rg" || v === "ripgrep" ? "rg" : v === "js" || v === "node" ? "js" : "auto"
    })
  )

export const READ_MAX_OUTPUT_TOKENS = positiveIntSetting("CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS", 25_000)
export const GLOB_TIMEOUT_SECONDS = positiveIntSetting("CLAUDE_CODE_GLOB_TIMEOUT_SECONDS", 20)

/** `CLAUDE_CODE_GLOB_NO_IGNORE`: Glob ignores .gitignore unless this says false. */
export const GLOB_RESPECTS_IGNORE = stringSetting("CLAUDE_CODE_GLOB_NO_IGNORE").pipe(
  Effect.map((value) => {
    const v = value?.trim().toLowerCase()
    return v === "false" || v === "0" || v === "no"
  })
)
