/**
 * The file tools' one way to change a file: `writeFileAtomic` (temp file, fsync, rename) run so
 * that interrupting the Effect aborts the write and waits for the temp file to be removed. The
 * target then holds its old content (or does not exist), never a partial one.
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import { writeFileAtomic } from "../../internal/atomicWrite.js"
import { FileGuard, makeDirectories, openParentForWrite, type FileGuardService } from "../../internal/fileGuard.js"
import { ToolError } from "../../Errors.js"
import { errorText } from "./paths.js"

export const writeAtomically = (file: string, data: Uint8Array, mode?: number): Effect.Effect<void, ToolError> =>
  Effect.flatMap(
    FileGuard,
    (guard) => (guard === undefined ? writeByName(file, data, mode) : writeGuarded(guard, file, data, mode))
  )

/**
 * Under a guard: written inside the checked folder, by name there (the rename replaces a symlink
 * swapped in, never follows it), with the exact mode set on the temp file before it lands.
 */
const writeGuarded = (
  guard: FileGuardService,
  file: string,
  data: Uint8Array,
  mode: number | undefined
): Effect.Effect<void, ToolError> =>
  Effect.acquireUseRelease(
    Effect.try({
      try: () => openParentForWrite(guard, file),
      catch: (error) => new ToolError({ reason: `Failed to write ${file}: ${errorText(error)}` })
    }),
    (folder) =>
      writeAbortably(file, folder.via, data, mode === undefined ? {} : { mode: mode & 0o7777, exactMode: true }),
    (folder) => Effect.sync(folder.close)
  )

const writeByName = (file: string, data: Uint8Array, mode?: number): Effect.Effect<void, ToolError> =>
  writeAbortably(file, file, data, mode === undefined ? {} : { mode: mode & 0o7777 }).pipe(
    Effect.zipRight(mode === undefined ? Effect.void : keepMode(file, mode))
  )

const writeAbortably = (
  file: string,
  target: string,
  data: Uint8Array,
  options: { readonly mode?: number; readonly exactMode?: boolean }
): Effect.Effect<void, ToolError> =>
  Effect.async<void, ToolError>((resume) => {
    const controller = new AbortController()
    const done = writeFileAtomic(target, data, {
      ...options,
      signal: controller.signal
    })
    done.then(
      () => resume(Effect.void),
      (error) => resume(Effect.fail(new ToolError({ reason: `Failed to write ${file}: ${errorText(error)}` })))
    )
    return Effect.promise(() => {
      controller.abort()
      return done.then(
        () => undefined,
        () => undefined
      )
    })
  })

/** The temp file was created under the umask; give the file back its exact permission bits. */
const keepMode = (file: string, mode: number): Effect.Effect<void> =>
  Effect.promise(async () => {
    const wanted = mode & 0o7777
    const stat = await fs.promises.stat(file).catch(() => undefined)
    if (stat !== undefined && (stat.mode & 0o7777) !== wanted) {
      await fs.promises.chmod(file, wanted).catch(() => undefined)
    }
  })

export const makeParentDirectories = (file: string, dir: string): Effect.Effect<void, ToolError> =>
  Effect.flatMap(FileGuard, (guard) =>
    Effect.tryPromise({
      try: async () => (guard === undefined
        ? void (await fs.promises.mkdir(dir, { recursive: true }))
        : makeDirectories(guard, dir)),
      catch: (error) => new ToolError({ reason: `Failed to create the directory for ${file}: ${errorText(error)}` })
    }))
