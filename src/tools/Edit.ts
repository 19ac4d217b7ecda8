/**
 * Edit: exact string replacement in a file the session has read.
 * `validateInput` runs Claude Code's checks 1 and 3–10 in order with their exact texts (check 2, the
 * Edit deny rule, belongs to the permission engine). `call` reads the file again and refuses it if
 * it changed since it was read, then writes atomically, keeping the file's encoding, line endings
 * and permission bits.
 *
 * A read with offset/limit is enough to edit (as in 2.1.112: the replaced text is verified), but
 * then any later mtime change refuses the edit.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileAt } from "./files/pathTraits.js"
import { Effect, Option, Schema } from "effect"
import { buildTool, reject, type ToolCheckContext, type ToolContext, type ToolResult } from "../Tool.js"
import { ToolError } from "../Errors.js"
import { BooleanLike, optional } from "./schemas.js"
import { repairEditInput } from "./inputRepairs.js"
import { expandPath } from "../internal/expandPath.js"
import { deniedAccessMessage } from "./files/denials.js"
import { formatFileSize, oneLine, plural } from "./files/format.js"
import { errorText, fileNotFoundMessage, pathProblem, statOrUndefined } from "./files/paths.js"
import { EDIT_DIRECTORY_TEXT, editAppliedText } from "./files/messages.js"
import { NOT_UTF8_TEXT, readCurrentFile, type CurrentFile } from "./files/currentFile.js"
import { FileGuard } from "../internal/fileGuard.js"
import {
  freshness,
  MODIFIED_SINCE_READ_MESSAGE,
  NOT_READ_MESSAGE,
  snapshotMtime,
  UNEXPECTEDLY_MODIFIED_MESSAGE
} from "./files/freshness.js"
import { mayChangeUnread } from "./files/readBeforeWrite.js"
import { findActualString, preserveQuoteStyle } from "./files/quotes.js"
import { applyEdit, countOccurrences } from "./files/editText.js"
import { encodeText, snapshotHash, withLineEndings } from "./files/textCodec.js"
import { countChanges, structuredPatch, type Hunk } from "./files/structuredPatch.js"
import { makeParentDirectories, writeAtomically } from "./files/atomic.js"
import { keepsTrailingWhitespace, writtenText } from "./files/trailingWhitespace.js"

export const EDIT_TOOL_NAME = "Edit"
export const MAX_EDIT_FILE_BYTES = 1024 * 1024 * 1024

export const EditInput = Schema.Struct({
  file_path: Schema.String.annotations({ description: "The absolute path to the file to modify" }),
  old_string: Schema.String.annotations({ description: "The text to replace" }),
  new_string: Schema.String.annotations({
    description: "The text to replace it with (must be different from old_string)"
  }),
  replace_all: optional(
    BooleanLike.annotations({
      jsonSchema: {
        type: "boolean",
        default: false,
        description: "Replace all occurrences of old_string (default false)"
      }
    })
  )
})
export type EditInput = typeof EditInput.Type

export interface EditOutput {
  /** The file_path as the model gave it (relative paths are resolved against the working directory). */
  readonly filePath: string
  /** The text that was replaced, as it is in the file (after quote normalisation). */
  readonly oldString: string
  readonly newString: string
  /** The content before the edit, LF-normalised; "" for a file the edit created. */
  readonly originalFile: string
  readonly structuredPatch: ReadonlyArray<Hunk>
  readonly userModified: boolean
  readonly replaceAll: boolean
  /** The file had changed on disk since it was read, and the edit still applied. */
  readonly staleRecovered: boolean
  /** Only part of the file had been read: the result does not claim the model holds it all. */
  readonly contentNotInContext: boolean
}

const PROMPT = `Performs exact string replacements in a file.

Usage:
- Read the file with the Read tool at least once in this conversation before editing it; an edit of a file you have not read fails. If the file changes after your read, read it again.
- Copy old_string from the Read output exactly as it appears after the line-number prefix (a line number and a tab). Keep the indentation (tabs or spaces) exactly; never include any part of the prefix.
- Prefer editing existing files; create new files only when asked to.
- The edit fails if old_string occurs more than once: give more surrounding context to make it unique, or set replace_all to change every occurrence (useful for renaming a variable across the file).
- An empty old_string creates a file that does not exist yet (or fills an empty one).`

const notFoundText = (oldString: string) => `String to replace not found in file.\nString: ${oldString}`

const tooManyText = (count: number, oldString: string) =>
  `Found ${count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${oldString}`

const toolError = (reason: string) => new ToolError({ reason })

const validate = Effect.fn("Edit.validateInput")(function*(input: EditInput, ctx: ToolCheckContext) {
  const rejectWith = (text: string) => reject(EDIT_TOOL_NAME, text)
  const problem = pathProblem(input.file_path)
  if (problem !== undefined) return yield* rejectWith(problem)
  // 1 (new_string as it would be written: trailing whitespace goes when the file exists)
  const file = expandPath(input.file_path, ctx.session.cwd)
  const newString = yield* Effect.promise(() => writtenNewString(file, input))
  if (input.old_string === newString) {
    return yield* rejectWith("No changes to make: old_string and new_string are exactly the same.")
  }
  // 2: the deny rules (checked again by the permission stage after hooks)
  const denied = deniedAccessMessage(ctx, file, "edit")
  if (denied !== undefined) return yield* rejectWith(denied)
  const stat = yield* Effect.tryPromise(() => statOrUndefined(file)).pipe(
    Effect.catchAll((error) => rejectWith(`Cannot access ${file}: ${errorText(error.cause)}`))
  )
  // 3
  if (stat !== undefined && stat.size > MAX_EDIT_FILE_BYTES) {
    return yield* rejectWith(
      `File is too large to edit (${formatFileSize(stat.size)}). Maximum editable file size is ${
        formatFileSize(MAX_EDIT_FILE_BYTES)
      }.`
    )
  }
  if (stat?.isDirectory()) return yield* rejectWith(EDIT_DIRECTORY_TEXT)
  const guard = yield* FileGuard
  const current = stat === undefined ? undefined : yield* Effect.tryPromise(() => readCurrentFile(file, guard)).pipe(
    Effect.catchAll((error) => rejectWith(`Cannot read ${file}: ${errorText(error.cause)}`))
  )
  // 4
  if (current === undefined) {
    if (input.old_string === "") return
    return yield* rejectWith(yield* Effect.promise(() => fileNotFoundMessage(file, ctx.session.cwd)))
  }
  // 5
  if (input.old_string === "") {
    if (current.lf.trim() !== "") return yield* rejectWith("Cannot create new file - file already exists.")
    return
  }
  // 6
  if (path.extname(file).toLowerCase() === ".ipynb") {
    return yield* rejectWith("File is a Jupyter Notebook. Use the NotebookEdit to edit this file.")
  }
  // 7, 8
  const seen = yield* ctx.fileState.get(file)
  const state = freshness(Option.getOrUndefined(seen), {
    mtimeMs: current.stat.mtimeMs,
    contentHash: current.contentHash
  })
  if (state === "unread" && !(yield* mayChangeUnread(ctx, file))) return yield* rejectWith(NOT_READ_MESSAGE)
  if (state === "stale" && !editApplies(current.lf, input)) return yield* rejectWith(MODIFIED_SINCE_READ_MESSAGE)
  if (!current.writable) return yield* rejectWith(NOT_UTF8_TEXT)
  // 9
  const actual = findActualString(current.lf, input.old_string)
  if (actual === undefined) return yield* rejectWith(notFoundText(input.old_string))
  // 10
  const count = countOccurrences(current.lf, actual)
  if (count > 1 && input.replace_all !== true) return yield* rejectWith(tooManyText(count, input.old_string))
})

/**
 * Whether the edit applies to the file as it is now: old_string found, once or with replace_all.
 * A file that changed since it was read is still edited when it does (Claude Code 2.1.332); the
 * result then says that the file holds changes the model has not seen.
 */
const editApplies = (text: string, input: EditInput): boolean => {
  const actual = findActualString(text, input.old_string)
  return actual !== undefined && (input.replace_all === true || countOccurrences(text, actual) === 1)
}

/**
 * new_string as Claude Code writes it: in a file that exists, trailing whitespace is stripped from
 * each line (not in Markdown); a file the edit creates gets it as given.
 */
const newStringFor = (
  input: EditInput,
  exists: boolean
): string => (exists ? writtenText(input.file_path, input.new_string) : input.new_string)

const writtenNewString = async (file: string, input: EditInput): Promise<string> =>
  keepsTrailingWhitespace(file)
    ? input.new_string
    : newStringFor(input, (await statOrUndefined(file).catch(() => undefined)) !== undefined)

/** The whole change, decided on the file as it is right before the write. */
const plan = (
  input: EditInput,
  current: CurrentFile | undefined
): Effect.Effect<{ oldString: string; newString: string; updated: string }, ToolError> => {
  const original = current?.lf ?? ""
  const newString = newStringFor(input, current !== undefined)
  if (input.old_string === "") {
    if (original.trim() !== "") return Effect.fail(toolError("Cannot create new file - file already exists."))
    return Effect.succeed({ oldString: "", newString, updated: newString })
  }
  const actual = findActualString(original, input.old_string)
  if (actual === undefined) return Effect.fail(toolError(notFoundText(input.old_string)))
  const count = countOccurrences(original, actual)
  const replaceAll = input.replace_all === true
  if (count > 1 && !replaceAll) return Effect.fail(toolError(tooManyText(count, input.old_string)))
  const replacement = preserveQuoteStyle(input.old_string, actual, newString)
  return Effect.succeed({ oldString: actual, newString, updated: applyEdit(original, actual, replacement, replaceAll) })
}

const run = Effect.fn("Edit.call")(function*(input: EditInput, ctx: ToolContext) {
  const cwd = ctx.session.cwd
  const file = yield* Effect.try({ try: () => expandPath(input.file_path, cwd), catch: (e) => toolError(errorText(e)) })
  const guard = yield* FileGuard
  const current = yield* Effect.tryPromise({
    try: () => readCurrentFile(file, guard),
    catch: (error) => toolError(`Failed to read ${file}: ${errorText(error)}`)
  })
  if (current === undefined && input.old_string !== "") {
    return yield* Effect.fail(toolError(yield* Effect.promise(() => fileNotFoundMessage(file, cwd))))
  }
  // Re-check right before writing: a change since validateInput is refused unless the edit still applies.
  let staleRecovered = false
  let partialView = false
  if (current !== undefined && !(input.old_string === "" && current.lf === "")) {
    const seen = Option.getOrUndefined(yield* ctx.fileState.get(file))
    const state = freshness(seen, { mtimeMs: current.stat.mtimeMs, contentHash: current.contentHash })
    if (state === "unread" && !(yield* mayChangeUnread(ctx, file))) {
      return yield* Effect.fail(toolError(NOT_READ_MESSAGE))
    }
    // the model has not seen the whole file (a partial read, or none at all for a newer model)
    partialView = state === "unread" || seen?.partial === true
    if (state === "stale") {
      if (!editApplies(current.lf, input)) return yield* Effect.fail(toolError(UNEXPECTEDLY_MODIFIED_MESSAGE))
      staleRecovered = true
    }
  }
  const { oldString, newString, updated } = yield* plan(input, current)
  const target = current?.realPath ?? file
  if (current === undefined) yield* makeParentDirectories(file, path.dirname(file))
  const bytes = encodeText(withLineEndings(updated, current?.endings ?? "LF"), current?.encoding ?? "utf8")
  yield* writeAtomically(target, bytes, current?.stat.mode)
  const written = yield* Effect.tryPromise({
    try: () => fs.promises.stat(target),
    catch: (error) => toolError(`Failed to stat ${target} after writing: ${errorText(error)}`)
  })
  // After a recovered stale edit the model has not seen the whole file: only further edits may follow.
  yield* ctx.fileState.record(file, {
    mtimeMs: snapshotMtime(written.mtimeMs),
    contentHash: snapshotHash(updated),
    partial: staleRecovered || partialView
  })
  const original = current?.lf ?? ""
  const output: EditOutput = {
    filePath: input.file_path,
    oldString,
    newString,
    originalFile: original,
    structuredPatch: structuredPatch(original, updated),
    userModified: false,
    replaceAll: input.replace_all === true,
    staleRecovered,
    // a file ending in a lone CR is not what Read showed (it drops that CR): Claude Code then does not call the view current
    contentNotInContext: partialView || /\r$/.test(withLineEndings(updated, current?.endings ?? "LF"))
  }
  const result: ToolResult<EditOutput> = { data: output }
  return result
})

export const EditTool = buildTool<EditInput, EditOutput>({
  name: EDIT_TOOL_NAME,
  knownAs: ["str_replace"],
  repairInput: repairEditInput,
  inputSchema: EditInput,
  description: "Replace exact text in a file that has been read, once or everywhere (replace_all).",
  prompt: PROMPT,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  isDestructive: () => true,
  interruptBehavior: () => "block",
  maxResultSizeChars: 100_000,
  ...fileAt<"file_path", EditInput>("file_path", "write"),
  validateInput: validate,
  call: run,
  // Claude Code's keys: whether the edit recovered a stale read is the result text's business
  hookResponse: ({ staleRecovered: _stale, contentNotInContext: _partial, ...response }) => response,
  mapResult: (output) =>
    editAppliedText(
      output.filePath,
      output.replaceAll,
      output.staleRecovered ? "stale" : output.contentNotInContext ? "partial" : "current"
    ),
  userFacingName: (input) => (input?.old_string === "" ? "Create" : "Update"),
  renderUse: (input) => oneLine(input.file_path, 200),
  renderResult: (output) => {
    const { added, removed } = countChanges(output.structuredPatch)
    return `Updated ${output.filePath} with ${added} ${plural(added, "addition", "additions")} and ${removed} ${
      plural(removed, "removal", "removals")
    }`
  }
})
