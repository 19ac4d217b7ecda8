/**
 * The WebFetch page cache: converted pages keyed by the URL fetched, kept
 * for `CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS` (15 minutes by default) and bounded in total size, the
 * oldest entries going first. Time comes from Effect's Clock so tests can move it.
 */
import { Clock, Effect } from "effect"

export interface CachedPage {
  readonly url: string
  readonly code: number
  readonly codeText: string
  readonly contentType: string
  readonly bytes: number
  readonly truncated: boolean
  /** Markdown for HTML, the text itself otherwise. */
  readonly content: string
}

export interface PageCache {
  readonly get: (key: string, ttlMs: number) => Effect.Effect<CachedPage | undefined>
  readonly set: (key: string, page: CachedPage) => Effect.Effect<void>
  readonly clear: Effect.Effect<void>
}

export const DEFAULT_CACHE_CHARS = 50 * 1024 * 1024

export const makePageCache = (maxChars: number = DEFAULT_CACHE_CHARS): PageCache => {
  const entries = new Map<string, { readonly page: CachedPage; readonly at: number }>()
  let size = 0
  const drop = (key: string) => {
    const entry = entries.get(key)
    if (entry === undefined) return
    size -= entry.page.content.length
    entries.delete(key)
  }
  return {
    get: (key, ttlMs) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const entry = entries.get(key)
        if (entry === undefined) return undefined
        if (now - entry.at >= ttlMs) {
          drop(key)
          return undefined
        }
        return entry.page
      }),
    set: (key, page) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (page.content.length > maxChars) return
        drop(key)
        entries.set(key, { page, at: now })
        size += page.content.length
        for (const oldest of entries.keys()) {
          if (size <= maxChars) break
          drop(oldest)
        }
      }),
    clear: Effect.sync(() => {
      entries.clear()
      size = 0
    })
  }
}
