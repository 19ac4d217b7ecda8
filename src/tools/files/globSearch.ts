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
import { walkFiles } from "./walk.js"
import { VCS_DIRECTORIES, errorText } from "./paths.js"
import type { SearchEngine } from "./settings.js"
import { unpin, type PinnedRoot } from "./pinnedRoot.js"

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

const withJs = (search: GlobSearch): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const files: Array<string> = []
      for await (
        const file of walkFiles({
          root: search.root,
          overrides: compileOverrides(overrideGlobs(search)),
          respectIgnoreFiles: search.respectIgnoreFiles,
          signal
        })
      ) {
        files.push(file)
      }
      return files
    },
    catch: (error) => new ToolError({ reason: errorText(error) })
  })

/** The listing, from `pinned.searchFrom` when the root is held open (see pinnedRoot.ts) and ripgrep runs on the host, named under the root. */
export const listGlobFiles = (
  search: GlobSearch,
  engine: SearchEngine,
  pinned?: PinnedRoot
): Effect.Effect<ReadonlyArray<string>, ToolError> =>
  Effect.flatMap(SearchSandbox, (sandbox) =>
    // in the sandbox only the session's directories exist: the root is listed by its name there
    pinned === undefined || (sandbox !== undefined && engine !== "js" && findRipgrep() !== undefined)
      ? listByName(search, engine)
      : Effect.map(listByName({ ...search, root: pinned.searchFrom }, engine), (files) => files.map(unpin(pinned))))

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
