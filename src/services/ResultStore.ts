/**
 * Keeps large results out of the conversation: over the tool's threshold
 * the full text is written once, with an exclusive create, to
 * `<sessionDir>/tool-results/<tool_use_id>.txt` (`.json` for block arrays), and the model gets a
 * preview that points to it. Results with images are never persisted. `layerSweep` keeps the
 * sessions' spilled files bounded by age and total size (see ResultStore/sessionFiles.ts).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ResultStoreError } from "../Errors.js"
import { positiveIntSetting } from "../internal/config.js"
import { contentLength, hasImage, type ToolResultContent } from "../Messages.js"
import { sessionsRoot } from "../Session.js"
import { sweepSessionFiles } from "./ResultStore/sessionFiles.js"
import { Settings } from "./Settings.js"

/**
 * Claude Code's global ceiling on a tool's persistence threshold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_INLINE_RESULT_CHARS = 50_000
const PREVIEW_CHARS = 2000

/**
 * @since 0.1.0
 * @category models
 */
export interface ResultStoreService {
  /** The content as the model should get it: unchanged under the threshold, else the preview. */
  readonly fit: (
    sessionDir: string,
    toolUseId: string,
    content: ToolResultContent,
    maxResultSizeChars: number
  ) => Effect.Effect<ToolResultContent, ResultStoreError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class ResultStore extends Context.Tag("toolgate/ResultStore")<ResultStore, ResultStoreService>() {}

/**
 * A tool without a finite threshold (Read) is never spilled: its own limits bound its results.
 *
 * @since 0.1.0
 * @category utils
 */
export const thresholdFor = (maxResultSizeChars: number): number =>
  Number.isFinite(maxResultSizeChars) ? Math.min(maxResultSizeChars, MAX_INLINE_RESULT_CHARS) : Number.POSITIVE_INFINITY

/**
 * @since 0.1.0
 * @category utils
 */
export const formatSize = (chars: number): string => {
  if (chars < 1024) return `${chars} bytes`
  const kb = chars / 1024
  if (kb < 1024) return `${trimZero(kb.toFixed(1))}KB`
  return `${trimZero((kb / 1024).toFixed(1))}MB`
}

const trimZero = (text: string) => text.replace(/\.0$/, "")

/**
 * The first 2000 characters, cut back to the last newline if that keeps more than 1000.
 *
 * @since 0.1.0
 * @category utils
 */
export const previewOf = (text: string): string => {
  if (text.length <= PREVIEW_CHARS) return text
  const head = text.slice(0, PREVIEW_CHARS)
  const lastNewline = head.lastIndexOf("\n")
  return lastNewline > PREVIEW_CHARS / 2 ? head.slice(0, lastNewline) : head
}

/**
 * @since 0.1.0
 * @category utils
 */
export const persistedMessage = (file: string, fullText: string): string =>
  [
    "<persisted-output>",
    `Output too large (${formatSize(fullText.length)}). Full output saved to: ${file}`,
    "",
    "Preview (first 2KB):",
    previewOf(fullText),
    "...",
    "</persisted-output>"
  ].join("\n")

const safeFileName = (toolUseId: string) => toolUseId.replace(/[^A-Za-z0-9_-]/g, "_")

const persist = (file: string, body: string) =>
  Effect.tryPromise({
    try: async () => {
      await fs.promises.mkdir(path.dirname(file), { recursive: true })
      try {
        await fs.promises.writeFile(file, body, { flag: "wx" })
      } catch (e) {
        // Written once: a second result for the same id keeps the first file.
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      }
    },
    catch: (e) => new ResultStoreError({ path: file, reason: (e as Error).message })
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: ResultStoreService = {
  fit: (sessionDir, toolUseId, content, maxResultSizeChars) => {
    const threshold = thresholdFor(maxResultSizeChars)
    if (contentLength(content) <= threshold || hasImage(content)) return Effect.succeed(content)
    const isText = typeof content === "string"
    const file = path.join(sessionDir, "tool-results", `${safeFileName(toolUseId)}.${isText ? "txt" : "json"}`)
    const fullText = isText ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n")
    const body = isText ? content : JSON.stringify(content, null, 2)
    return persist(file, body).pipe(
      Effect.as<ToolResultContent>(persistedMessage(file, fullText)),
      Effect.withSpan("ResultStore.fit", { attributes: { toolUseId, chars: fullText.length } })
    )
  }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ResultStore> = Layer.succeed(ResultStore, make)

/**
 * Never persists: for tests of other stages.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInline: Layer.Layer<ResultStore> = Layer.succeed(ResultStore, {
  fit: (_dir, _id, content) => Effect.succeed(content)
})

const DAY_MS = 24 * 60 * 60 * 1000
/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_CLEANUP_PERIOD_DAYS = 30
/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_SESSION_FILES_MAX_MB = 1024
/** Files changed this recently may belong to a running session: never removed for size. */
const KEEP_RECENT_MS = 10 * 60 * 1000

/**
 * Removes spilled results and task files of the sessions under `~/.toolgate/projects` when the
 * runtime starts: older than `TOOLGATE_CLEANUP_PERIOD_DAYS`, else the settings'
 * `cleanupPeriodDays` (Claude Code's key), else 30 days; then the oldest, until the rest fit in
 * `TOOLGATE_SESSION_FILES_MAX_MB` (default 1024). Sessions kept elsewhere (`--session-dir`) are
 * left alone.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSweep: Layer.Layer<never, never, Settings> = Layer.effectDiscard(
  Effect.gen(function*() {
    const loaded = yield* (yield* Settings).current
    const fromSettings = loaded.value("cleanupPeriodDays")
    const envDays = yield* Config.option(Config.number("TOOLGATE_CLEANUP_PERIOD_DAYS")).pipe(
      Effect.orElseSucceed(() => Option.none<number>())
    )
    const days = Option.getOrElse(
      Option.filter(envDays, (d) => d > 0),
      () => (typeof fromSettings === "number" && fromSettings > 0 ? fromSettings : DEFAULT_CLEANUP_PERIOD_DAYS)
    )
    const maxMb = yield* positiveIntSetting("TOOLGATE_SESSION_FILES_MAX_MB", DEFAULT_SESSION_FILES_MAX_MB)
    const now = Date.now()
    yield* Effect.sync(() =>
      sweepSessionFiles(sessionsRoot(), {
        maxAgeMs: days * DAY_MS,
        maxTotalBytes: maxMb * 1024 * 1024,
        keepRecentMs: KEEP_RECENT_MS,
        now
      })
    )
  })
)
