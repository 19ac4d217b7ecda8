/**
 * Write: creates a file (and its parent directories) or replaces one
 * the session has read in full and that has not changed since. The content is written as given
 * (no line-ending rewriting) but for trailing whitespace, which goes from each line outside
 * Markdown as in Claude Code; atomically, keeping an existing file's encoding and mode.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileAt } from "./files/pathTraits.js"
import { Effect, Option, Schema } from "effect"
import { buildTool, reject, type ToolCheckContext, type ToolContext, type ToolResult } from "../Tool.js"
import { ToolError } from "../Errors.js"
import { deny, passthrough, type ToolCheck } from "../Permission.js"
import { expandPath } from "../internal/expandPath.js"
import { deniedAccessMessage } from "./files/denials.js"
import { oneLine, plural } from "./files/format.js"
import { errorText, pathProblem, statOrUndefined } from "./files/paths.js"
import { isDirectoryText, writeCreatedText, writeUpdatedText } from "./files/messages.js"
import { NOT_UTF8_TEXT, readCurrentFile } from "./files/currentFile.js"
import { FileGuard } from "../internal/fileGuard.js"
import {
  freshness,
  MODIFIED_SINCE_READ_MESSAGE,
  NOT_READ_MESSAGE,
  snapshotMtime,
  UNEXPECTEDLY_MODIFIED_MESSAGE
} from "./files/freshness.js"
import { mayChangeUnread } from "./files/readBeforeWrite.js"
import { encodeText, snapshotHash, toLf } from "./files/textCodec.js"
import { countChanges, structuredPatch, type Hunk } from "./files/structuredPatch.js"
import { writtenText } from "./files/trailingWhitespace.js"
import { makeParentDirectories, writeAtomically } from "./files/atomic.js"

export const WRITE_TOOL_NAME = "Write"

export const WriteInput = Schema.Struct({
  file_path: Schema.String.annotations({
    description: "The absolute path to the file to write (must be absolute, not relative)"
  }),
  content: Schema.String.annotations({ description: "The content to write to the file" })
})
export type WriteInput = typeof WriteInput.Type

export interface WriteOutput {
  readonly type: "create" | "update"
  /** The file_path as the model gave it (relative paths are resolved against the working directory). */
  readonly filePath: string
  readonly content: string
  /** Empty for a new file. */
  readonly structuredPatch: ReadonlyArray<Hunk>
  /** The previous content, LF-normalised; null for a new file. */
  readonly originalFile: string | null
}

const PROMPT = `Writes a file to the local filesystem.

Usage:
- file_path should be an absolute path (a relative one is taken from the working directory). Missing parent directories are created.
- An existing file is overwritten. Read an existing file with the Read tool before writing it; writing a file you have not read in full (or that changed since you read it) fails.
- Prefer the Edit tool for changes to existing files: it only sends what changes. Use Write for new files or complete rewrites.
- Do not create documentation files (*.md, README) unless asked to.`

const toolError = (reason: string) => new ToolError({ reason })

/** Where a symbolic link at `file` points when its target does not exist (Claude Code will not create a file through it). */
const danglingLinkTarget = (file: string): string | undefined => {
  try {
    return fs.lstatSync(file).isSymbolicLink() ? path.resolve(path.dirname(file), fs.readlinkSync(file)) : undefined
  } catch {
    return undefined
  }
}

/** Claude Code's own permission check: a write through a dangling symbolic link is refused. */
const checkPermissions = (input: WriteInput, ctx: ToolCheckContext): Effect.Effect<ToolCheck> =>
  Effect.sync(() => {
    const file = expandPath(input.file_path, ctx.session.cwd)
    const target = danglingLinkTarget(file)
    return target === undefined
      ? passthrough
      : deny(`Refusing to write ${file}: it is a symbolic link. Write to the link's target path instead: ${target}.`)
  })

const validate = Effect.fn("Write.validateInput")(function*(input: WriteInput, ctx: ToolCheckContext) {
  const rejectWith = (text: string) => reject(WRITE_TOOL_NAME, text)
  const problem = pathProblem(input.file_path)
  if (problem !== undefined) return yield* rejectWith(problem)
  const denied = deniedAccessMessage(ctx, expandPath(input.file_path, ctx.session.cwd), "write")
  if (denied !== undefined) return yield* rejectWith(denied)
  const file = expandPath(input.file_path, ctx.session.cwd)
  const guard = yield* FileGuard
  const stat = yield* Effect.tryPromise(() => statOrUndefined(file)).pipe(
    Effect.catchAll((error) => rejectWith(`Cannot access ${file}: ${errorText(error.cause)}`))
  )
  if (stat === undefined) return
  if (stat.isDirectory()) return yield* rejectWith(isDirectoryText(input.file_path))
  const current = yield* Effect.tryPromise(() => readCurrentFile(file, guard)).pipe(
    Effect.catchAll((error) => rejectWith(`Cannot read ${file}: ${errorText(error.cause)}`))
  )
  if (current === undefined) return
  const seen = Option.getOrUndefined(yield* ctx.fileState.get(file))
  const state = freshness(seen, { mtimeMs: current.stat.mtimeMs, contentHash: current.contentHash })
  if (state === "partial" || (state === "unread" && !(yield* mayChangeUnread(ctx, file)))) {
    return yield* rejectWith(NOT_READ_MESSAGE)
  }
  if (state === "stale") return yield* rejectWith(MODIFIED_SINCE_READ_MESSAGE)
})

const run = Effect.fn("Write.call")(function*(input: WriteInput, ctx: ToolContext) {
  const cwd = ctx.session.cwd
  const file = yield* Effect.try({ try: () => expandPath(input.file_path, cwd), catch: (e) => toolError(errorText(e)) })
  yield* makeParentDirectories(file, path.dirname(file))
  const guard = yield* FileGuard
  const current = yield* Effect.tryPromise({
    try: () => readCurrentFile(file, guard),
    catch: (error) => toolError(`Failed to read ${file}: ${errorText(error)}`)
  })
  if (current !== undefined) {
    // Re-check right before writing: a change since validateInput must be refused, not overwritten.
    const seen = Option.getOrUndefined(yield* ctx.fileState.get(file))
    const state = freshness(seen, { mtimeMs: current.stat.mtimeMs, contentHash: current.contentHash })
    if (state === "partial" || (state === "unread" && !(yield* mayChangeUnread(ctx, file)))) {
      return yield* Effect.fail(toolError(NOT_READ_MESSAGE))
    }
    if (state === "stale") return yield* Effect.fail(toolError(UNEXPECTEDLY_MODIFIED_MESSAGE))
    if (!current.writable) return yield* Effect.fail(toolError(NOT_UTF8_TEXT))
  }
  const encoding = current?.encoding ?? "utf8"
  // As in Claude Code, trailing whitespace goes from each line (not in Markdown).
  const content = writtenText(file, input.content)
  // A UTF-16 file only stays readable as UTF-16 with its BOM.
  const text = encoding === "utf16le" && !content.startsWith("\uFEFF") ? `\uFEFF${content}` : content
  const target = current?.realPath ?? file
  yield* writeAtomically(target, encodeText(text, encoding), current?.stat.mode)
  const written = yield* Effect.tryPromise({
    try: () => fs.promises.stat(target),
    catch: (error) => toolError(`Failed to stat ${target} after writing: ${errorText(error)}`)
  })
  yield* ctx.fileState.record(file, {
    mtimeMs: snapshotMtime(written.mtimeMs),
    contentHash: snapshotHash(text),
    partial: false
  })
  const output: WriteOutput = current === undefined
    ? { type: "create", filePath: input.file_path, content, structuredPatch: [], originalFile: null }
    : {
      type: "update",
      filePath: input.file_path,
      content,
      structuredPatch: structuredPatch(current.lf, toLf(content)),
      originalFile: current.lf
    }
  const result: ToolResult<WriteOutput> = { data: output }
  return result
})

const lineCount = (text: string): number => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0))

export const WriteTool = buildTool<WriteInput, WriteOutput>({
  name: WRITE_TOOL_NAME,
  knownAs: ["create_file"],
  inputSchema: WriteInput,
  description: "Create a file, or overwrite a file that has been read, with the given content.",
  prompt: PROMPT,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  isDestructive: () => true,
  interruptBehavior: () => "block",
  maxResultSizeChars: 100_000,
  ...fileAt<"file_path", WriteInput>("file_path", "write"),
  validateInput: validate,
  checkPermissions,
  call: run,
  hookResponse: (output) => ({ ...output, userModified: false }),
  mapResult: (
    output
  ) => (output.type === "create" ? writeCreatedText(output.filePath) : writeUpdatedText(output.filePath)),
  renderUse: (input) => oneLine(input.file_path, 200),
  renderResult: (output) => {
    if (output.type === "create") {
      const lines = lineCount(output.content)
      return `Wrote ${lines} ${plural(lines, "line", "lines")} to ${output.filePath}`
    }
    const { added, removed } = countChanges(output.structuredPatch)
    return `Updated ${output.filePath} with ${added} ${plural(added, "addition", "additions")} and ${removed} ${
      plural(removed, "removal", "removals")
    }`
  }
})
