/**
 * A search root held to the call's `FileGuard`: Grep and Glob check their path by name, then start
 * a search, so a symlink swapped in between would take the search anywhere. Under a guard the root
 * is opened first, the folder or file really opened is checked, and the search starts from that
 * descriptor, named `/proc/<server pid>/fd/N`: the JS search walks down from it without following
 * a symlink (see walk.ts), and ripgrep in the session's sandbox starts from the root's name there.
 * Without a guard (the CLI) nothing changes.
 */
import * as fs from "node:fs"
import { Effect, type Scope } from "effect"
import { ToolError } from "../../Errors.js"
import { FileGuard, openForRead, type FileGuardService } from "../../internal/fileGuard.js"
import { errorText } from "./paths.js"

/** Where the search starts from (`searchFrom`) and the path its results are shown under (`root`). */
export interface PinnedRoot {
  readonly root: string
  readonly searchFrom: string
}

/**
 * Under a guard: `root` opened, checked and still a `kind` (it may have been swapped since it was
 * looked at), held open for the scope. Without a guard: undefined.
 */
export const pinSearchRoot = (
  root: string,
  kind: "directory" | "file"
): Effect.Effect<PinnedRoot | undefined, ToolError, Scope.Scope> =>
  Effect.flatMap(FileGuard, (guard) =>
    guard === undefined
      ? Effect.succeed(undefined)
      : Effect.acquireRelease(
        Effect.try({
          try: () => {
            const opened = openForRead(guard, root)
            try {
              const stat = fs.fstatSync(opened.fd)
              if (kind === "directory" ? !stat.isDirectory() : !stat.isFile()) {
                throw new Error(`${root} changed while it was being searched; search it again`)
              }
            } catch (error) {
              opened.close()
              throw error
            }
            return opened
          },
          catch: (error) => new ToolError({ reason: errorText(error) })
        }),
        (opened) => Effect.sync(opened.close)
      ).pipe(Effect.map((opened) => ({ root, searchFrom: `/proc/${process.pid}/fd/${opened.fd}` }))))

/** The pinned root as the JS search walks it: what it may enter and read is what the guard lets it read. */
export const openedRoot = (pinned: PinnedRoot, guard: FileGuardService | undefined) => ({
  at: pinned.searchFrom,
  allowed: guard === undefined ? undefined : (realPath: string) => guard.refuses(realPath, "read") === undefined
})
