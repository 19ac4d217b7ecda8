/**
 * One Grep search, run by ripgrep when it is on PATH or by the JS fallback otherwise, giving the
 * same raw result either way: ripgrep's output lines (content, count) or the matching files.
 */
import * as path from "node:path"
import { Effect } from "effect"
import { ToolError } from "../../Errors.js"
import { findRipgrep, runRipgrep } from "./ripgrep.js"
import { SearchSandbox } from "../../internal/searchSandbox.js"
import { runJsGrep } from "./grepJs.js"
import { VCS_DIRECTORIES, errorText } from "./paths.js"
import type { SearchEngine } from "./settings.js"
import { openedRoot, type PinnedRoot } from "./pinnedRoot.js"
import { FileGuard } from "../../internal/fileGuard.js"
import type { OpenedRoot } from "./walk.js"

export type GrepMode = "content" | "files_with_matches" | "count"

export interface GrepSearch {
  /** Absolute path of the directory or file searched. */
  readonly root: string
  readonly rootIsFile: boolean
  readonly pattern: string
  readonly mode: GrepMode
  readonly caseInsensitive: boolean
  readonly multiline: boolean
  readonly lineNumbers: boolean
  readonly onlyMatching: boolean
  readonly before: number
  readonly after: number
  readonly globs: ReadonlyArray<string>
  readonly type: string | undefined
  /** Stop once this many output lines exist (content and count modes). */
  readonly maxRecords: number | undefined
  /** Leaves out every record of a file this rejects (files a Read deny rule covers). */
  readonly keepFile?: (absolutePath: string) => boolean
}

/**
 * Content and count lines name their file as `path\0rest` (no path when one file was searched in
 * content mode); content lines are `--` between context groups.
 */
export type GrepRawResult =
  | { readonly kind: "lines"; readonly lines: ReadonlyArray<string> }
  | { readonly kind: "files"; readonly files: ReadonlyArray<string> }

export const ripgrepArgs = (search: GrepSearch): ReadonlyArray<string> => {
  const args = ["--no-config", "--hidden", "--max-columns", "500"]
  for (const dir of VCS_DIRECTORIES) args.push("--glob", `!${dir}`)
  if (search.multiline) args.push("-U", "--multiline-dotall")
  if (search.caseInsensitive) args.push("-i")
  if (search.mode === "files_with_matches") args.push("-l", "--null")
  else if (search.mode === "count") args.push("-c", "-H", "--null", "--sort", "path")
  else {
    args.push("--null", "--sort", "path")
    if (search.lineNumbers) args.push("-n")
    if (search.onlyMatching) args.push("-o")
    if (search.before > 0) args.push("-B", String(search.before))
    if (search.after > 0) args.push("-A", String(search.after))
  }
  if (search.type !== undefined) args.push("--type", search.type)
  for (const glob of search.globs) args.push("--glob", glob)
  args.push("-e", search.pattern, "--", search.root)
  return args
}

/** ripgrep refused its arguments (pattern, glob or type) before searching anything. */
const USAGE_ERROR =
  /^(?:rg: )?(?:regex parse error|error parsing glob|unrecognized file type|error parsing flag|compiled regex exceeds size limit|the literal|pattern contains)/m

/** ripgrep 14 prefixes its errors with `rg: ` and shows a pattern that fails to parse as `(?:pattern)`. */
const usageErrorText = (stderr: string): string =>
  stderr
    .trim()
    .split("\n")
    .map((line, i) => (i === 0 && !line.startsWith("rg: ") ? `rg: ${line}` : line))
    .join("\n")

export const searchRejectedMessage = (stderr: string): string => {
  const text = usageErrorText(stderr)
  return `Search failed \u2014 ripgrep rejected the pattern, glob, or file type without searching:\n${
    text.length > 2000 ? text.slice(0, 2000) : text
  }`
}

const rejectedSearch = (rg: string, search: GrepSearch, stderr: string): Effect.Effect<never, ToolError> =>
  (/^(?:rg: )?regex parse error/.test(stderr) && !search.pattern.startsWith("(?:")
    ? runRipgrep(rg, ripgrepArgs({ ...search, pattern: `(?:${search.pattern})` }), cwdFor(search)).pipe(
      Effect.map((wrapped) => (/^(?:rg: )?regex parse error/.test(wrapped.stderr) ? wrapped.stderr : stderr)),
      Effect.orElseSucceed(() => stderr)
    )
    : Effect.succeed(stderr)).pipe(
      Effect.flatMap((text) => Effect.fail(new ToolError({ reason: searchRejectedMessage(text) })))
    )

const cwdFor = (search: GrepSearch): string => (search.rootIsFile ? path.dirname(search.root) : search.root)

const withRipgrep = (rg: string, search: GrepSearch): Effect.Effect<GrepRawResult, ToolError> =>
  runRipgrep(
    rg,
    ripgrepArgs(search),
    cwdFor(search),
    search.maxRecords === undefined || search.mode === "files_with_matches" || search.keepFile !== undefined
      ? undefined
      : { records: search.maxRecords, separator: 10 }
  ).pipe(
    Effect.flatMap((result) => {
      const stdout = result.stdout.toString("utf8")
      // 1 = no match; 2 = an error, which still may come with results from the readable files
      if (result.exitCode === 2 && stdout === "" && !result.stoppedEarly) {
        if (USAGE_ERROR.test(result.stderr)) return rejectedSearch(rg, search, result.stderr)
        return Effect.fail(
          new ToolError({ reason: result.stderr.trim() === "" ? "ripgrep failed" : result.stderr.trim() })
        )
      }
      if (result.exitCode !== 0 && result.exitCode !== 1 && result.exitCode !== 2 && !result.stoppedEarly) {
        return Effect.fail(new ToolError({ reason: `ripgrep exited with ${result.exitCode}: ${result.stderr.trim()}` }))
      }
      if (search.mode === "files_with_matches") {
        return Effect.succeed<GrepRawResult>({
          kind: "files",
          files: keepFiles(search, stdout.split("\0").filter((f) => f !== ""))
        })
      }
      const lines = outputLines(stdout)
      if (
        search.rootIsFile && search.mode === "content" && lines.length === 1 && BINARY_NOTICE.test(lines[0]!)
      ) return binaryFileLines(rg, search, lines[0]!)
      return Effect.succeed<GrepRawResult>({
        kind: "lines",
        lines: search.keepFile === undefined || search.rootIsFile ? lines : keepLines(search.keepFile, lines)
      })
    })
  )

/** ripgrep's output as lines: a CR before the newline goes, as Claude Code splits it (a CRLF or CR-only file's line end). */
const outputLines = (stdout: string): Array<string> => {
  const lines = stdout.split(/\r?\n/)
  // the last piece is "" after a final newline, or a cut record when ripgrep was stopped
  lines.pop()
  return lines
}

const BINARY_NOTICE = /^binary file matches \(found "\\0" byte around offset \d+\)$/

/**
 * A file searched on its own that has a NUL byte: ripgrep only says that it matches; Claude Code
 * shows the matching lines too (those without a NUL byte), then that notice.
 */
const binaryFileLines = (rg: string, search: GrepSearch, notice: string): Effect.Effect<GrepRawResult, ToolError> =>
  runRipgrep(rg, ["--text", ...ripgrepArgs(search)], cwdFor(search)).pipe(
    Effect.map((result) =>
      outputLines(result.stdout.toString("utf8")).filter((line) => !line.includes("\0") && line !== "--")
    ),
    Effect.orElseSucceed((): ReadonlyArray<string> => []),
    Effect.map((lines): GrepRawResult => ({ kind: "lines", lines: [...lines, notice] }))
  )

const keepFiles = (search: GrepSearch, files: ReadonlyArray<string>): ReadonlyArray<string> =>
  search.keepFile === undefined || search.rootIsFile ? files : files.filter(search.keepFile)

/** Drops the records (`path\0rest`) of rejected files; a `--` group separator is kept only between kept groups. */
export const keepLines = (
  keepFile: (absolutePath: string) => boolean,
  lines: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const verdicts = new Map<string, boolean>()
  const kept: Array<string> = []
  for (const line of lines) {
    if (line === "--") {
      if (kept.length > 0 && kept[kept.length - 1] !== "--") kept.push(line)
      continue
    }
    const nul = line.indexOf("\0")
    if (nul === -1) continue // not a record of a named file: nothing to vouch for
    const file = line.slice(0, nul)
    let keep = verdicts.get(file)
    if (keep === undefined) verdicts.set(file, keep = keepFile(file))
    if (keep) kept.push(line)
  }
  if (kept[kept.length - 1] === "--") kept.pop()
  return kept
}

const withJs = (search: GrepSearch, opened?: OpenedRoot): Effect.Effect<GrepRawResult, ToolError> =>
  Effect.tryPromise({
    try: (signal) => runJsGrep(search, signal, opened),
    catch: (error) =>
      new ToolError({
        reason: USAGE_ERROR.test(errorText(error)) ? searchRejectedMessage(errorText(error)) : errorText(error)
      })
  })

/**
 * The search. When the root is held open (see pinnedRoot.ts) and ripgrep cannot run in a sandbox,
 * the JS search walks from the open root, entering no folder and reading no file through a
 * symlink (ripgrep, which opens what it finds by name, would follow one swapped in during the
 * search out of the root); files are judged and shown by their paths under the root.
 */
export const runGrepSearch = (
  search: GrepSearch,
  engine: SearchEngine,
  pinned?: PinnedRoot
): Effect.Effect<GrepRawResult, ToolError> =>
  Effect.flatMap(SearchSandbox, (sandbox) =>
    // in the sandbox only the session's directories exist: the root is searched by its name there
    pinned === undefined || (sandbox !== undefined && usesRipgrep(engine))
      ? searchByName(search, engine)
      : Effect.flatMap(FileGuard, (guard) => withJs(search, openedRoot(pinned, guard))))

const usesRipgrep = (engine: SearchEngine) => engine !== "js" && findRipgrep() !== undefined

const searchByName = (search: GrepSearch, engine: SearchEngine): Effect.Effect<GrepRawResult, ToolError> => {
  if (engine === "js") return withJs(search)
  const rg = findRipgrep()
  if (rg !== undefined) return withRipgrep(rg, search)
  return engine === "rg"
    ? Effect.fail(
      new ToolError({ reason: "ripgrep (rg) was not found on PATH, and TOOLGATE_GREP_ENGINE=rg requires it." })
    )
    : withJs(search)
}
