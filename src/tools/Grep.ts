/**
 * Grep: a ripgrep search with Claude Code 2.1.332's result shapes — `Found N files` + paths (newest
 * first) for files_with_matches, `path:line:text` lines for content, `path:count` lines + a total
 * over every file for count — with paths relative to the working directory (absolute outside it),
 * paginated by head_limit (default 250, 0 = all) and offset, with `[Showing results with pagination
 * = limit: N, offset: M]` when that cut the output. A missing path and ripgrep's refusal of a
 * pattern, glob or type are errors of the call (no `<tool_use_error>` wrapper). Honours
 * .gitignore, searches hidden files, never enters VCS directories.
 * ripgrep when on PATH, a JS fallback with the same output otherwise (`TOOLGATE_GREP_ENGINE=js|rg|auto`).
 */
import { searchUnder } from "./files/pathTraits.js"
import { Effect, Schema } from "effect"
import { buildTool, reject, type ToolCheckContext, type ToolContext, type ToolResult } from "../Tool.js"
import { ToolError } from "../Errors.js"
import { BooleanLike, NumberLike, optional } from "./schemas.js"
import { expandPath } from "../internal/expandPath.js"
import { readableOnly } from "./files/denials.js"
import { oneLine, plural } from "./files/format.js"
import {
  blockedDeviceText,
  displayPath,
  errorText,
  isBlockedDevice,
  missingSearchPathMessage,
  pathProblem,
  statOrUndefined
} from "./files/paths.js"
import { splitGlobParameter } from "./files/globPattern.js"
import { runGrepSearch, type GrepMode } from "./files/grepSearch.js"
import { sortByMtimeNewestFirst } from "./files/mtimeOrder.js"
import { engineSetting } from "./files/settings.js"
import { pinSearchRoot } from "./files/pinnedRoot.js"

export const GREP_TOOL_NAME = "Grep"
export const DEFAULT_HEAD_LIMIT = 250

export const GrepInput = Schema.Struct({
  pattern: Schema.String.annotations({ description: "The regular expression pattern to search for in file contents" }),
  path: optional(Schema.String).annotations({
    description: "File or directory to search in (rg PATH). Defaults to current working directory."
  }),
  glob: optional(Schema.String).annotations({
    description: "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"
  }),
  output_mode: optional(Schema.Literal("content", "files_with_matches", "count")).annotations({
    description:
      "Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."
  }),
  "-B": optional(NumberLike).annotations({
    description:
      "Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."
  }),
  "-A": optional(NumberLike).annotations({
    description:
      "Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."
  }),
  "-C": optional(NumberLike).annotations({ description: "Alias for context." }),
  context: optional(NumberLike).annotations({
    description:
      "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."
  }),
  "-n": optional(BooleanLike).annotations({
    description:
      "Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."
  }),
  "-i": optional(BooleanLike).annotations({ description: "Case insensitive search (rg -i)" }),
  "-o": optional(BooleanLike).annotations({
    description:
      "Print only the matched parts of matching lines (rg -o). Requires output_mode: \"content\", ignored otherwise."
  }),
  type: optional(Schema.String).annotations({
    description:
      "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."
  }),
  head_limit: optional(NumberLike).annotations({
    description:
      "Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250. Pass 0 for unlimited (use sparingly: large result sets waste context)."
  }),
  offset: optional(NumberLike).annotations({
    description:
      "Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0."
  }),
  multiline: optional(BooleanLike).annotations({
    description:
      "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."
  })
})
export type GrepInput = typeof GrepInput.Type

export interface GrepOutput {
  readonly mode: GrepMode
  readonly numFiles: number
  readonly filenames: ReadonlyArray<string>
  readonly content?: string
  readonly numLines?: number
  /** Content lines before pagination. */
  readonly totalLines?: number
  readonly numMatches?: number
  /** Matching files before pagination. */
  readonly totalFiles?: number
  readonly appliedLimit?: number
  readonly appliedOffset?: number
}

/** What PostToolUse hooks receive as `tool_response`: Claude Code's keys, in its order. */
const grepHookResponse = (output: GrepOutput) => {
  if (output.mode !== "files_with_matches") return output
  const { mode, filenames, numFiles, ...rest } = output
  return { mode, filenames, numFiles, ...rest }
}

const PROMPT = `A search tool built on ripgrep.

Usage:
- Use Grep for content searches instead of running grep or rg through Bash: it is set up for the right permissions and access.
- Full regular-expression syntax (ripgrep's, not grep's), e.g. "log.*Error" or "function\\s+\\w+". Literal braces need escaping: use interface\\{\\} to find interface{} in Go code.
- Narrow the files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "rust").
- output_mode: "files_with_matches" (default) lists matching files, most recently modified first; "content" shows matching lines (with -A/-B/-C context and -n line numbers); "count" shows the number of matching lines per file.
- Patterns match within one line unless multiline is true (then "." also matches newlines, e.g. "struct \\{[\\s\\S]*?field").
- Results are limited to head_limit entries (default ${DEFAULT_HEAD_LIMIT}); use offset to page through more.
- For open-ended searches that need several rounds, use the Agent tool.`

const searchTraits = searchUnder<GrepInput>()

const isCount = (n: number | undefined) => n === undefined || (Number.isInteger(n) && n >= 0)

const validate = (input: GrepInput, ctx: ToolCheckContext) => {
  if (!isCount(input.head_limit)) {
    return reject(
      GREP_TOOL_NAME,
      `head_limit must be a whole number of 0 or more, got ${input.head_limit}. Pass 0 for unlimited.`
    )
  }
  if (!isCount(input.offset)) {
    return reject(GREP_TOOL_NAME, `offset must be a whole number of 0 or more, got ${input.offset}.`)
  }
  const problem = input.path === undefined ? undefined : pathProblem(input.path)
  if (problem !== undefined) return reject(GREP_TOOL_NAME, problem)
  if (input.path !== undefined && isBlockedDevice(expandPath(input.path, ctx.session.cwd))) {
    return reject(GREP_TOOL_NAME, blockedDeviceText(input.path))
  }
  return Effect.void
}

/** `| tail -n +offset | head -limit`, remembering whether the limit cut anything. */
export const paginate = <A>(items: ReadonlyArray<A>, headLimit: number | undefined, offset: number) => {
  const limit = headLimit ?? DEFAULT_HEAD_LIMIT
  const appliedOffset = offset > 0 ? offset : undefined
  if (limit === 0) return { items: items.slice(offset), appliedLimit: undefined, appliedOffset }
  return {
    items: items.slice(offset, offset + limit),
    appliedLimit: items.length - offset > limit ? limit : undefined,
    appliedOffset
  }
}

/** `path\0N:text` → `<shown path>:N:text`; without line numbers the number goes, its separator stays. */
const contentLine = (line: string, lineNumbers: boolean, cwd: string): string => {
  const nul = line.indexOf("\0")
  if (nul < 0) return lineNumbers ? line : line.replace(/^\d+[:-]/, "")
  const rest = line.slice(nul + 1)
  const number = /^(\d+)([:-])/.exec(rest)
  const separator = number?.[2] ?? ":"
  return `${displayPath(line.slice(0, nul), cwd)}${separator}${
    lineNumbers || number === null ? rest : rest.slice(number[0].length)
  }`
}

/** `path\0N` → the shown path and the count. */
const countLine = (line: string, cwd: string): { readonly text: string; readonly count: number } => {
  const nul = line.indexOf("\0")
  const count = Number.parseInt(nul < 0 ? line : line.slice(nul + 1), 10)
  return {
    text: nul < 0 ? line : `${displayPath(line.slice(0, nul), cwd)}:${line.slice(nul + 1)}`,
    count: Number.isNaN(count) ? 0 : count
  }
}

const run = Effect.fn("Grep.call")(function*(input: GrepInput, ctx: ToolContext) {
  const cwd = ctx.session.cwd
  const root = yield* Effect.try({
    try: () => expandPath(input.path ?? cwd, cwd),
    catch: (e) => new ToolError({ reason: errorText(e) })
  })
  const stat = yield* Effect.promise(() => statOrUndefined(root).catch(() => undefined))
  if (stat === undefined) {
    return yield* new ToolError({
      reason: yield* Effect.promise(() => missingSearchPathMessage("Path", input.path ?? root, root, cwd))
    })
  }
  if (!stat.isDirectory() && !stat.isFile()) {
    return yield* Effect.fail(
      new ToolError({ reason: `Cannot search ${root}: it is neither a regular file nor a directory.` })
    )
  }
  const mode: GrepMode = input.output_mode ?? "files_with_matches"
  const offset = input.offset ?? 0
  const headLimit = input.head_limit
  const limit = headLimit ?? DEFAULT_HEAD_LIMIT
  const content = mode === "content"
  const lineNumbers = content && input["-n"] !== false
  const around = input.context ?? input["-C"]
  // ripgrep takes line counts only; it refuses anything else before searching
  const badCount = content
    ? ([["-C", around], ["-B", input["-B"]], ["-A", input["-A"]]] as const).find(([, n]) => !isCount(n))
    : undefined
  if (badCount !== undefined) {
    return yield* Effect.fail(
      new ToolError({
        reason:
          `Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: error parsing flag ${
            badCount[0]
          }: value is not a valid number: invalid digit found in string`
      })
    )
  }
  const maxRecords = content && limit > 0 ? offset + limit + 1 : undefined
  const search = {
    root,
    rootIsFile: !stat.isDirectory(),
    pattern: input.pattern,
    mode,
    caseInsensitive: input["-i"] === true,
    multiline: input.multiline === true,
    lineNumbers: content,
    onlyMatching: content && input["-o"] === true,
    before: content ? (around ?? input["-B"] ?? 0) : 0,
    after: content ? (around ?? input["-A"] ?? 0) : 0,
    globs: input.glob === undefined ? [] : splitGlobParameter(input.glob),
    type: input.type,
    maxRecords,
    ...readableOnly(ctx)
  }
  const engine = yield* engineSetting("TOOLGATE_GREP_ENGINE")
  const raw = yield* Effect.scoped(
    Effect.flatMap(
      pinSearchRoot(root, stat.isDirectory() ? "directory" : "file"),
      (pinned) => runGrepSearch(search, engine, pinned)
    )
  )
  let output: GrepOutput
  if (raw.kind === "files") {
    const sorted = yield* Effect.promise(() => sortByMtimeNewestFirst(raw.files))
    const page = paginate(sorted, headLimit, offset)
    const filenames = page.items.map((file) => displayPath(file, cwd))
    output = { mode, numFiles: filenames.length, filenames, totalFiles: sorted.length, ...limits(page) }
  } else if (mode === "count") {
    const counted = raw.lines.map((line) => countLine(line, cwd))
    const page = paginate(counted, headLimit, offset)
    output = {
      mode,
      numFiles: counted.length,
      filenames: [],
      content: page.items.map((line) => line.text).join("\n"),
      numMatches: counted.reduce((sum, line) => sum + line.count, 0),
      ...limits(page)
    }
  } else {
    const page = paginate(raw.lines, headLimit, offset)
    const lines = page.items.map((line) => contentLine(line, lineNumbers, cwd))
    output = {
      mode,
      numFiles: 0,
      filenames: [],
      content: lines.join("\n"),
      numLines: lines.length,
      // the search may stop once it has enough lines: at most that many are counted
      totalLines: Math.min(raw.lines.length, maxRecords ?? Number.POSITIVE_INFINITY),
      ...limits(page)
    }
  }
  const result: ToolResult<GrepOutput> = { data: output }
  return result
})

const limits = (page: { readonly appliedLimit: number | undefined; readonly appliedOffset: number | undefined }) => ({
  ...(page.appliedLimit === undefined ? {} : { appliedLimit: page.appliedLimit }),
  ...(page.appliedOffset === undefined ? {} : { appliedOffset: page.appliedOffset })
})

const limitInfo = (output: GrepOutput): string =>
  [
    output.appliedLimit === undefined ? undefined : `limit: ${output.appliedLimit}`,
    output.appliedOffset === undefined ? undefined : `offset: ${output.appliedOffset}`
  ]
    .filter((part) => part !== undefined)
    .join(", ")

export const grepResultText = (output: GrepOutput): string => {
  const info = limitInfo(output)
  const offsetGiven = output.appliedOffset !== undefined
  switch (output.mode) {
    case "content": {
      const text = output.content ||
        (offsetGiven && (output.totalLines ?? 0) > 0 ? "No entries at this offset" : "No matches found")
      return info === "" ? text : `${text}\n\n[Showing results with pagination = ${info}]`
    }
    case "count": {
      const matches = output.numMatches ?? 0
      const text = output.content || (matches > 0 ? "No entries at this offset" : "No matches found")
      return `${text}\n\nFound ${matches} total ${
        plural(matches, "occurrence", "occurrences")
      } across ${output.numFiles} ${plural(output.numFiles, "file", "files")}.${
        info === "" ? "" : ` with pagination = ${info}`
      }`
    }
    case "files_with_matches":
      if (output.numFiles === 0) {
        return offsetGiven && (output.totalFiles ?? 0) > 0
          ? `No entries at this offset. [Showing results with pagination = ${info}]`
          : "No files found"
      }
      return `Found ${output.numFiles} ${plural(output.numFiles, "file", "files")}${info === "" ? "" : ` ${info}`}\n${
        output.filenames.join("\n")
      }`
  }
}

export const GrepTool = buildTool<GrepInput, GrepOutput>({
  name: GREP_TOOL_NAME,
  inputSchema: GrepInput,
  description: "Search file contents with a regular expression (ripgrep): matching files, lines, or counts.",
  prompt: PROMPT,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  maxResultSizeChars: 20_000,
  ...searchTraits,
  validateInput: validate,
  call: run,
  mapResult: grepResultText,
  hookResponse: grepHookResponse,
  userFacingName: () => "Search",
  renderUse: (input) =>
    oneLine(
      `pattern: "${input.pattern}"${input.path === undefined ? "" : `, path: "${input.path}"`}${
        input.output_mode === undefined ? "" : `, output_mode: "${input.output_mode}"`
      }`,
      200
    ),
  renderResult: (output) => {
    switch (output.mode) {
      case "content":
        return `Found ${output.numLines ?? 0} ${plural(output.numLines ?? 0, "line", "lines")}`
      case "count":
        return `Found ${output.numMatches ?? 0} ${
          plural(output.numMatches ?? 0, "match", "matches")
        } in ${output.numFiles} ${plural(output.numFiles, "file", "files")}`
      case "files_with_matches":
        return `Found ${output.numFiles} ${plural(output.numFiles, "file", "files")}`
    }
  }
})
