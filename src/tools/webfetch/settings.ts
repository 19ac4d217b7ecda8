/**
 * WebFetch settings read through Config. A value that is missing,
 * not a number or not positive falls back to the default.
 */
import { Effect } from "effect"
import { positiveIntConfig } from "../../internal/config.js"

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_CACHE_TTL_MS = 15 * 60_000
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024
export const MAX_REDIRECTS = 10
/** Markdown handed to the model that answers the prompt is cut to this many characters. */
export const MAX_MARKDOWN_FOR_MODEL = 100_000

export interface WebFetchSettings {
  /** The whole fetch, redirects and body included. */
  readonly timeoutMs: number
  readonly cacheTtlMs: number
  /** Bytes of body read; the rest is not downloaded. */
  readonly maxBytes: number
}

export const webFetchSettings: Effect.Effect<WebFetchSettings> = Effect.gen(function*() {
  return {
    timeoutMs: yield* positiveIntConfig("TOOLGATE_WEBFETCH_TIMEOUT_MS", DEFAULT_TIMEOUT_MS),
    cacheTtlMs: yield* positiveIntConfig("CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS", DEFAULT_CACHE_TTL_MS),
    maxBytes: yield* positiveIntConfig("TOOLGATE_WEBFETCH_MAX_BYTES", DEFAULT_MAX_BYTES)
  }
}).pipe(Effect.orDie)
