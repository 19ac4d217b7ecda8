/**
 * What each file looked like when a tool last read or wrote it, so Edit and Write can refuse
 * unread or stale files (Edit's "modified since read" and "read it first" checks).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type { FileSnapshot, FileStateService } from "../Tool.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  FileSnapshot,
  /**
   * @since 0.1.0
   * @category models
   */
  FileStateService
} from "../Tool.js"

/**
 * @since 0.1.0
 * @category services
 */
export class FileState extends Context.Tag("toolgate/FileState")<FileState, FileStateService>() {}

/**
 * @since 0.1.0
 * @category utils
 */
export const hashContent = (content: string): string => createHash("sha256").update(content).digest("hex")

/**
 * An in-memory store for one session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<FileStateService> = Effect.sync(() => {
  const files = new Map<string, FileSnapshot>()
  return FileState.of({
    record: (path, snapshot) => Effect.sync(() => void files.set(path, snapshot)),
    get: (path) => Effect.sync(() => Option.fromNullable(files.get(path))),
    forget: (path) => Effect.sync(() => void files.delete(path))
  })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<FileState> = Layer.effect(FileState, make)
