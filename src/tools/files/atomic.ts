/**
 * The file tools' one way to change a file: `writeFileAtomic` (temp file, fsync, rename) run so
 * that interrupting the Effect aborts the write and waits for the temp file to be removed. The
 * target then holds its old content (or does not exist), never a partial one.
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import { writeFileAtomic } from "../../internal/atomicWrite.js"
import { ToolError } from "../../Errors.js"
import { errorText } from "./paths.js"

export const writeAtomically = (file: string, data: Uint8Array, mode?: number): Effect.Effect<void, ToolError> =>
  Effect.async<void, ToolError>((resume) => {
    const controller = new AbortController()
    const done = writeFileAtomic(file, data, {
      signal: controller.signal,
      ...(mode === undefined ? {} : { mode: mode & 0o7777 })
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
  }).pipe(Effect.zipRight(mode === undefined ? Effect.void : keepMode(file, mode)))

/** The temp file was created under the umask; give the file back its exact permission bits. */
const keepMode = (file: string, mode: number): Effect.Effect<void> =>
  Effect.promise(async () => {
    const wanted = mode & 0o7777
    const stat = await fs.promises.stat(file).catch(() => undefined)
    if (stat !== undefined && (stat.mode & 0o7777) !== wanted) await fs.promises.chmod(file, wanted).catch(() => undefined)
  })

export const makeParentDirectories = (file: string, dir: string): Effect.Effect<void, ToolError> =>
  Effect.tryPromise({
    try: () => fs.promises.mkdir(dir, { recursive: true }),
    catch: (error) => new ToolError({ reason: `Failed to create the directory for ${file}: ${errorText(error)}` })
  }).pipe(Effect.asVoid)
