/**
 * Glob: files whose path under the search directory matches a glob, oldest first (as Claude Code
 * 2.1.332's `rg --sort=modified`), at most 100 (a notice with the total beyond that), relative to
 * the working directory (absolute outside it). A missing or non-directory path is an error of the
 * call, not of validation (no `<tool_use_error>` wrapper), as in Claude Code. Hidden files
 * are listed; `.gitignore` is not honoured unless `CLAUDE_CODE_GLOB_NO_IGNORE=false`. ripgrep
 * (`rg --files --glob`) when on PATH, a JS walk with the same selection otherwise
 * (`TOOLGATE_GLOB_ENGINE=js|rg|auto`). Times out after `CLAUDE_CODE_GLOB_TIMEOUT_SECONDS` (20).
 */
import * as path from "node:path"
import { searchUnder } from "./files/pathTraits.js"
import { Clock, Duration, Effect, Schema } from "effect"
import { buildTool, reject, type ToolContext, type ToolResult } from "../Tool.js"
import { ToolError } from "../Errors.js"
import { optional } from "./schemas.js"
import { expandPath } from "../internal/expandPath.js"
import { oneLine, plural } from "./files/format.js"
import { displayPath, errorText, missingSearchPathMessage, pathProblem, statOrUndefined } from "./files/paths.js"
import { splitAbsoluteGlob } from "./files/globPattern.js"
import { listGlobFiles } from "./files/globSearch.js"
import { sortByMtimeOldestFirst } from "./files/mtimeOrder.js"
import { readableOnly } from "./files/denials.js"
import { pinSearchRoot } from "./files/pinnedRoot.js"
import { engineSetting, GLOB_RESPECTS_IGNORE, GLOB_TIMEOUT_SECONDS } from "./files/settings.js"

export const GLOB_TOOL_NAME = "Glob"
export const GLOB_MAX_RESULTS = 100

/** The line after a list cut at the limit. */
export const globTruncatedNotice = (shown: number, total: number): string =>
  `(Showing ${shown} of ${total} matching files; ${
    total - shown
  } more are not listed. Narrow the pattern or path to see the rest.)`

export const GlobInput = Schema.Struct({
  pattern: Schema.String.annotations({ description: "The glob pattern to match files against" }),
  path: optional(Schema.String).annotations({
    description:
      "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."
  })
})
export type GlobInput = typeof GlobInput.Type

export interface GlobOutput {
  readonly filenames: ReadonlyArray<string>
  readonly durationMs: number
  readonly numFiles: number
  readonly truncated: boolean
  /** Matching files before the cut. */
  readonly totalMatches: number
}

const PROMPT = `Fast file pattern matching for a codebase of any size.
- Supports glob patterns such as "**/*.js" or "src/**/*.ts"; a pattern without "/" (like "*.ts") matches at any depth.
- Returns the matching file paths, least recently modified first, at most ${GLOB_MAX_RESULTS}.
- Use it to find files by name. For open-ended searches that need several rounds of globbing and grepping, use the Agent tool instead.
- Run several searches in one response when they may be useful: they run in parallel.`

const searchTraits = searchUnder<GlobInput>()

const validate = (input: GlobInput) => {
  const problem = input.path === undefined ? undefined : pathProblem(input.path)
  return problem === undefined ? Effect.void : reject(GLOB_TOOL_NAME, problem)
}

/** A given search directory must exist and be a directory (skipped when an absolute pattern names the directory). */
const checkSearchDirectory = (given: string, dir: string, cwd: string) =>
  Effect.gen(function*() {
    const stat = yield* Effect.promise(() => statOrUndefined(dir).catch(() => undefined))
    if (stat === undefined) {
      return yield* new ToolError({
        reason: yield* Effect.promise(() => missingSearchPathMessage("Directory", given, dir, cwd))
      })
    }
    if (!stat.isDirectory()) return yield* new ToolError({ reason: `Path is not a directory: ${given}` })
  })

const run = Effect.fn("Glob.call")(function*(input: GlobInput, ctx: ToolContext) {
  const started = yield* Clock.currentTimeMillis
  let root = yield* Effect.try({
    try: () => expandPath(input.path ?? ctx.session.cwd, ctx.session.cwd),
    catch: (e) => new ToolError({ reason: errorText(e) })
  })
  // an empty pattern lists every file, as Claude Code's does
  let pattern = input.pattern === "" ? "**" : input.pattern
  if (path.isAbsolute(pattern)) {
    const split = splitAbsoluteGlob(pattern)
    root = path.resolve(split.base)
    pattern = split.rest
  } else if (input.path !== undefined) yield* checkSearchDirectory(input.path, root, ctx.session.cwd)
  const rootStat = yield* Effect.promise(() => statOrUndefined(root).catch(() => undefined))
  const seconds = yield* GLOB_TIMEOUT_SECONDS
  const respectIgnoreFiles = yield* GLOB_RESPECTS_IGNORE
  const engine = yield* engineSetting("TOOLGATE_GLOB_ENGINE")
  const files: ReadonlyArray<string> = rootStat?.isDirectory() === true && pattern !== ""
    ? yield* Effect.scoped(
      Effect.flatMap(
        pinSearchRoot(root, "directory"),
        (pinned) => listGlobFiles({ root, pattern, respectIgnoreFiles }, engine, pinned)
      )
    ).pipe(
      Effect.timeoutFail({
        duration: Duration.seconds(seconds),
        onTimeout: () =>
          new ToolError({
            reason:
              `Glob timed out after ${seconds} seconds. Use a more specific path or pattern (CLAUDE_CODE_GLOB_TIMEOUT_SECONDS sets the limit).`
          })
      })
    )
    : []
  const { keepFile } = readableOnly(ctx)
  const sorted = yield* Effect.promise(() =>
    sortByMtimeOldestFirst(keepFile === undefined ? files : files.filter(keepFile))
  )
  const filenames = sorted.slice(0, GLOB_MAX_RESULTS).map((file) => displayPath(file, ctx.session.cwd))
  const output: GlobOutput = {
    filenames,
    durationMs: (yield* Clock.currentTimeMillis) - started,
    numFiles: filenames.length,
    truncated: sorted.length > GLOB_MAX_RESULTS,
    totalMatches: sorted.length
  }
  const result: ToolResult<GlobOutput> = { data: output }
  return result
})

export const GlobTool = buildTool<GlobInput, GlobOutput>({
  name: GLOB_TOOL_NAME,
  inputSchema: GlobInput,
  description: "Find files by glob pattern (e.g. \"**/*.ts\"), least recently modified first.",
  prompt: PROMPT,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  maxResultSizeChars: 100_000,
  ...searchTraits,
  validateInput: validate,
  call: run,
  hookResponse: (output) => ({ ...output, countIsComplete: true }),
  mapResult: (output) =>
    output.numFiles === 0
      ? "No files found"
      : `${output.filenames.join("\n")}${
        output.truncated ? `\n${globTruncatedNotice(output.numFiles, output.totalMatches)}` : ""
      }`,
  userFacingName: () => "Search",
  renderUse: (input) =>
    oneLine(`pattern: "${input.pattern}"${input.path === undefined ? "" : `, path: "${input.path}"`}`, 200),
  renderResult: (output) =>
    `Found ${output.numFiles} ${plural(output.numFiles, "file", "files")}${output.truncated ? " (truncated)" : ""}`
})
