/**
 * Read-before-write: a file may be changed only if it was read (or written) in this session and
 * has not changed since (Edit's "read it first" and "modified since read" checks).
 */
import type { FileSnapshot } from "../../services/FileState.js"

export const NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
export const MODIFIED_SINCE_READ_MESSAGE =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
/** The same race found by `call`, after `validateInput` passed. */
export const UNEXPECTEDLY_MODIFIED_MESSAGE =
  "File has been unexpectedly modified. Read it again before attempting to write it."

export type Freshness = "fresh" | "unread" | "partial" | "stale"

/**
 * Compares what the session saw with the file now. Stale when the content differs (whatever the
 * mtime says), or when the mtime moved on and only part of the file was seen.
 */
export const freshness = (
  snapshot: FileSnapshot | undefined,
  current: { readonly mtimeMs: number; readonly contentHash: string }
): Freshness => {
  if (snapshot === undefined) return "unread"
  if (current.contentHash !== snapshot.contentHash) return "stale"
  if (Math.floor(current.mtimeMs) > snapshot.mtimeMs && snapshot.partial) return "stale"
  return snapshot.partial ? "partial" : "fresh"
}

export const snapshotMtime = (mtimeMs: number): number => Math.floor(mtimeMs)
