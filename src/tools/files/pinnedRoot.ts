/**
 * A search root held to the call's `FileGuard`: Grep and Glob check their path by name, then start
 * a search, so a symlink swapped in between would take the search anywhere. Under a guard the root
 * is opened first, the folder or file really opened is checked, and the search starts from that
 * descriptor, named `/proc/<server pid>/fd/N` so ripgrep (a child process) reaches the same open
 * folder. The search's paths are named by the root again before anyone sees them. Without a guard
 * (the CLI) nothing changes.
 */
import * as fs from "node:fs"
import { Effect, type Scope } from "effect"
import { ToolError } from "../../Errors.js"
import { FileGuard, openForRead } from "../../internal/fileGuard.js"
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

/** A path of the search, named under the root again. */
export const unpin = (pinned: PinnedRoot) => (p: string): string =>
  p === pinned.searchFrom
    ? pinned.root
    : p.startsWith(`${pinned.searchFrom}/`)
    ? `${pinned.root}${p.slice(pinned.searchFrom.length)}`
    : p
