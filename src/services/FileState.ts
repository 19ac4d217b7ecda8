/**
 * What each file looked like when a tool last read or wrote it, so Edit and Write can refuse
 * unread or stale files (Edit's "modified since read" and "read it first" checks).
 */
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type { FileSnapshot, FileStateService } from "../Tool.js"

export type { FileSnapshot, FileStateService } from "../Tool.js"

export class FileState extends Context.Tag("toolgate/FileState")<FileState, FileStateService>() {}

export const hashContent = (content: string): string =>
  createHash("sha256").update(content).digest("hex")

/** An in-memory store for one session. */
export const make: Effect.Effect<FileStateService> = Effect.sync(() => {
  const files = new Map<string, FileSnapshot>()
  return FileState.of({
    record: (path, snapshot) => Effect.sync(() => void files.set(path, snapshot)),
    get: (path) => Effect.sync(() => Option.fromNullable(files.get(path))),
    forget: (path) => Effect.sync(() => void files.delete(path))
  })
})

export const layer: Layer.Layer<FileState> = Layer.effect(FileState, make)
