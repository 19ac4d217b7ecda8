/**
 * Glob's file listing: `rg --files --glob <pattern>` when ripgrep is on PATH, the JS walk
 * otherwise, selecting the same files. Hidden files are listed; version-control directories are
 * not; ignore files are honoured only when asked.
 */
import { Effect } from "effect"
import { ToolError } from "../../Errors.js"
import { findRipgrep, runRipgrep } from "./ripgrep.js"
import { SearchSandbox } from "../../internal/searchSandbox.js"
import { compileOverrides } from "./globPattern.js"
import { walkFiles, walkFilesAt, type OpenedRoot } from "./walk.js"
import { VCS_DIRECTORIES, errorText } from "./paths.js"
import type { SearchEngine } from "./settings.js"
import { openedRoot, type PinnedRoot } from "./pinnedRoot.js"
import { FileGuard } from "../../internal/fileGuard.js"

export interface GlobSearch {
  /** An absolute directory. */
  readonly root: string
  /** Relative to `root`, gitignore-style. */
  readonly pattern: string
  readonly respectIgnoreFiles: boolean
}

const overrideGlobs = (
  search: GlobSearch
): ReadonlyArray<string> => [search.pattern, ...VCS_DIRECTORIES.map((d) => `!${d}`)]

export const ripgrepGlobArgs = (search: GlobSearch): ReadonlyArray<string> => [
  "--no-config",
  "--files",
  "--null",
  "--hidden",
  ...(search.respectIgnoreFiles ? [] : ["--no-ignore"]),
  ...overrideGlobs(search).flatMap((glob) => ["--glob", glob]),
  "--",
  search.root
]

const withRipgrep = (rg: string, search: GlobSearch): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  runRipgrep(rg, ripgrepGlobArgs(search), search.root).pipe(
    Effect.flatMap((result) => {
      const stdout = result.stdout.toString("utf8")
      if (result.exitCode === 2 && stdout === "") {
        return Effect.fail(
          new ToolError({ reason: result.stderr.trim() === "" ? "ripgrep failed" : result.stderr.trim() })
        )
      }
      return Effect.succeed(stdout.split("\0").filter((f) => f !== ""))
    })
  )

/** `opened`: the root opened and checked, walked without following a symlink swapped in (see walk.ts). */
const withJs = (search: GlobSearch, opened?: OpenedRoot): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const options = {
        root: search.root,
        overrides: compileOverrides(overrideGlobs(search)),
        respectIgnoreFiles: search.respectIgnoreFiles,
        signal
      }
      const files: Array<string> = []
      if (opened === undefined) { for await (const file of walkFiles(options)) files.push(file) }
      else for await (const file of walkFilesAt({ ...options, ...opened })) files.push(file.path)
      return files
    },
    catch: (error) => new ToolError({ reason: errorText(error) })
  })

/**
 * The listing. When the root is held open (see pinnedRoot.ts) and ripgrep cannot run in a
 * sandbox, the JS walk lists from the open root, entering no folder through a symlink (ripgrep
 * would follow one swapped in during the walk out of the root), naming files under the root.
 */
export const listGlobFiles = (
  search: GlobSearch,
  engine: SearchEngine,
  pinned?: PinnedRoot
): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  Effect.flatMap(SearchSandbox, (sandbox) =>
    // in the sandbox only the session's directories exist: the root is listed by its name there
    pinned === undefined || (sandbox !== undefined && engine !== "js" && findRipgrep() !== undefined)
      ? listByName(search, engine)
      : Effect.flatMap(FileGuard, (guard) => withJs(search, openedRoot(pinned, guard))))

const listByName = (
  search: GlobSearch,
  engine: SearchEngine
): Effect.Effect<ReadonlyArray<string>, ToolError> => {
  if (engine === "js") return withJs(search)
  const rg = findRipgrep()
  if (rg !== undefined) return withRipgrep(rg, search)
  return engine === "rg"
    ? Effect.fail(
      new ToolError({ reason: "ripgrep (rg) was not found on PATH, and TOOLGATE_GLOB_ENGINE=rg requires it." })
    )
    : withJs(search)
}
