/**
 * Read: numbered lines of a text file, an image as an image block, a PDF as a document block
 * (or some of its pages as images), or a notebook's cells as text. Records what was seen in FileState so Edit and Write can check it.
 *
 * Size limits follow 2.1.112: a whole-file read of more than 262,144 bytes, or any read whose text
 * would exceed 25,000 tokens (chars / 4; `CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS`), is an error
 * that tells the model to use offset and limit.
 */
import * as fs from "node:fs"
import { fileAt } from "./files/pathTraits.js"
import { Effect, Schema } from "effect"
import { buildTool, reject, type ToolContext, type ToolResult } from "../Tool.js"
import { ToolError } from "../Errors.js"
import type { ToolResultContent } from "../Messages.js"
import { BooleanLike, optional, SafeIntLike } from "./schemas.js"
import { repairReadInput } from "./inputRepairs.js"
import { expandPath } from "../internal/expandPath.js"
import { FileGuard, openForRead } from "../internal/fileGuard.js"
import { deniedAccessMessage } from "./files/denials.js"
import { formatFileSize, numberLines, oneLine, plural } from "./files/format.js"
import {
  blockedDeviceText,
  errorText,
  fileNotFoundMessage,
  isBlockedDevice,
  pathProblem,
  statOrUndefined
} from "./files/paths.js"
import {
  binaryContentMessage,
  binaryExtensionMessage,
  extensionOf,
  hasBinaryExtension,
  IMAGE_EXTENSIONS
} from "./files/binary.js"
import {
  emptyImageText,
  MAX_IMAGE_BYTES,
  notAnImageText,
  sniffImage,
  UNREADABLE_IMAGE_SIZE,
  type ImageMediaType
} from "./files/image.js"
import { NotebookUnreadable, parseNotebook, renderNotebook, type NotebookCellView } from "./files/notebook.js"
import { readLineRange } from "./files/lineReader.js"
import { decodeText, snapshotHash, stripBom } from "./files/textCodec.js"
import { snapshotMtime } from "./files/freshness.js"
import { READ_MAX_OUTPUT_TOKENS } from "./files/settings.js"
import {
  checkWholePdf,
  emptyPdfText,
  pagesProblem,
  pagesText,
  parsePages,
  PDF_MAX_BYTES,
  renderPages,
  TOO_LARGE_PDF,
  wholePdfText
} from "./files/pdf.js"

export const READ_TOOL_NAME = "Read"
export const MAX_READ_BYTES = 262_144
const MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024

export const ReadInput = Schema.Struct({
  file_path: Schema.String.annotations({ description: "The absolute path to the file to read" }),
  offset: optional(SafeIntLike({ minimum: 0 })).annotations({
    description: "The line number to start reading from. Only provide if the file is too large to read at once"
  }),
  limit: optional(SafeIntLike({ exclusiveMinimum: 0 })).annotations({
    description: "The number of lines to read. Only provide if the file is too large to read at once."
  }),
  pages: optional(Schema.String).annotations({
    description:
      "Page range for PDF files (e.g., \"1-5\", \"3\", \"10-20\"). Only applicable to PDF files. Maximum 20 pages per request."
  }),
  allow_large: optional(BooleanLike).annotations({
    description:
      "Read a text file (or a line range of it) past the usual size limits; only when all of it is really needed."
  })
})
export type ReadInput = typeof ReadInput.Type

export type ReadOutput =
  | {
    readonly type: "text"
    readonly file: {
      readonly filePath: string
      readonly content: string
      readonly numLines: number
      readonly startLine: number
      readonly totalLines: number
      /** Set when a whole-file read was cut to its first page (over the token limit). */
      readonly truncationNote?: string
      /** The file is not valid UTF-8 (its undecodable bytes show as U+FFFD). */
      readonly notUtf8?: true
    }
  }
  | {
    readonly type: "image"
    readonly file: {
      readonly filePath: string
      readonly base64: string
      readonly type: ImageMediaType
      readonly originalSize: number
    }
  }
  | {
    readonly type: "notebook"
    readonly file: { readonly filePath: string; readonly cells: ReadonlyArray<NotebookCellView> }
  }
  | {
    readonly type: "pdf"
    readonly file: { readonly filePath: string; readonly base64: string; readonly originalSize: number }
  }
  | {
    /** Pages of a PDF, rendered to JPEG images. */
    readonly type: "parts"
    readonly file: {
      readonly filePath: string
      readonly originalSize: number
      readonly count: number
      readonly images: ReadonlyArray<string>
    }
  }

const PROMPT =
  `Reads a file from the local filesystem. Any file on the machine can be read with this tool; if the user gives a path, assume it is valid. Reading a file that does not exist is fine: you get an error back.

Usage:
- file_path must be an absolute path.
- By default the whole file is read. offset (a 1-based line number) and limit let you read part of a long file; otherwise prefer reading the whole file.
- Lines come back numbered: the line number, a tab, then the line exactly as in the file. Never include the number or the tab in text you pass to Edit.
- A whole-file read of a file larger than ${
    formatFileSize(MAX_READ_BYTES)
  }, or any read whose text exceeds the token limit, returns an error; read such files in parts with offset and limit, or search them with Grep.
- Images (PNG, JPG, GIF, WEBP) come back as images you can see.
- Jupyter notebooks (.ipynb) come back as all their cells with outputs.
- PDFs (up to ${
    formatFileSize(PDF_MAX_BYTES)
  }) come back whole as a document; with pages ("3" or "1-5", at most 20 pages) the pages come back as images (needs poppler's pdftoppm).
- Only files can be read, not directories; list a directory with Glob (or ls through Bash).
- Read several files in one response when they may be useful: the reads run in parallel.
- An empty file, or an offset past the end, returns a warning instead of content.`

const EMPTY_FILE_NOTICE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"

const offsetNotice = (startLine: number, totalLines: number) =>
  `<system-reminder>Warning: the file exists but is shorter than the provided offset (${startLine}). The file has ${totalLines} lines.</system-reminder>`

/** Claude Code's hint after a read over a limit (its `allow_large` input). */
const ALLOW_LARGE_HINT =
  " To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."

const tooLargeMessage = (size: number) =>
  `File content (${formatFileSize(size)}) exceeds maximum allowed size (${
    formatFileSize(MAX_READ_BYTES)
  }). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.${ALLOW_LARGE_HINT}`

const tooManyTokensMessage = (tokens: number, max: number) =>
  `File content (${tokens} tokens) exceeds maximum allowed tokens (${max}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.${ALLOW_LARGE_HINT}`

/** The note after the first page of a whole-file read over the token limit. */
const partialPageNote = (file: string, page: PartialPage, totalLines: number, tokens: number, max: number): string =>
  page.byLines
    ? `[Truncated: PARTIAL view \u2014 ${file}: showing lines 1-${page.lines} of ${totalLines} total (${tokens} tokens, cap ${max}). Call Read with offset=${
      page.lines + 1
    } limit=${page.lines} for the next page, or Grep to find a specific section.${ALLOW_LARGE_HINT} Do NOT answer from this page alone if the answer may be further in the file.]`
    : `[Truncated: PARTIAL view \u2014 ${file}: showing the first ${page.text.length} of ${page.of} characters (${tokens} tokens, cap ${max}); this file has very long lines and cannot be paginated by line. Use Grep to find a specific section, or Read with offset/limit to page through it.${ALLOW_LARGE_HINT} Do NOT answer from this excerpt alone if the answer may be elsewhere in the file.]`

interface PartialPage {
  readonly text: string
  readonly lines: number
  readonly byLines: boolean
  readonly of: number
}

/**
 * The first page of a text over the token cap, as Claude Code cuts it: about 85% of the cap's share
 * of the lines, shrunk until it fits; by characters when even one line does not fit.
 */
const firstPage = (content: string, tokens: number, max: number): PartialPage => {
  const lines = content.split("\n")
  const charsPerToken = Math.max(0.5, content.length / Math.max(1, tokens))
  const estimate = (text: string) => text.length / charsPerToken
  let count = Math.max(1, Math.min(lines.length, Math.floor(((lines.length * max) / Math.max(1, tokens)) * 0.85)))
  let text = lines.slice(0, count).join("\n")
  for (let i = 0; i < 6 && estimate(text) > max && count > 1; i++) {
    count = Math.max(1, Math.floor(count * 0.7))
    text = lines.slice(0, count).join("\n")
  }
  if (estimate(text) <= max && text.trim() !== "") return { text, lines: count, byLines: true, of: content.length }
  let chars = Math.max(1, Math.floor(max * charsPerToken * 0.85))
  for (let i = 0; i < 6; i++) {
    text = content.slice(0, chars)
    if (estimate(text) <= max) break
    chars = Math.max(1, Math.floor(chars * 0.7))
  }
  const last = text.charCodeAt(text.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1)
  return { text, lines: text.split("\n").length, byLines: false, of: content.length }
}

const fail = (reason: string) => Effect.fail(new ToolError({ reason }))

const fsFailure = (file: string) => (error: unknown) =>
  new ToolError({ reason: `Failed to read ${file}: ${errorText(error)}` })

/** A whole-file read is counted as the API counts it (ceil(chars / 4), as Claude Code reports it); a ranged one is estimated. */
const countTokens = (
  text: string,
  whole: boolean
): number => (whole ? Math.ceil(text.length / 4) : Math.round(text.length / 4))

const withoutKey = <A extends object, K extends keyof A>(value: A, key: K): Omit<A, K> => {
  const { [key]: _, ...rest } = value
  return rest
}

const NOT_UTF8_NOTE =
  "[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"

const NOTHING_WRITING = "Nothing is writing to this pipe. Check that the app serving it is running and unlocked."

const readText = (file: string, source: string, stat: fs.Stats, input: ReadInput, ctx: ToolContext) =>
  Effect.gen(function*() {
    const maxTokens = yield* READ_MAX_OUTPUT_TOKENS
    // Claude Code takes a limit that is not positive as no limit, and numbers lines from offset 0 when given 0.
    const limit = input.limit !== undefined && input.limit > 0 ? input.limit : undefined
    const whole = input.offset === undefined && limit === undefined
    if (whole && stat.size > MAX_READ_BYTES) return yield* fail(tooLargeMessage(stat.size))
    const firstIndex = Math.max(0, (input.offset ?? 1) - 1)
    const startLine = input.offset === 0 ? 0 : firstIndex + 1
    const range = yield* Effect.tryPromise({
      // No line cap without a limit (Claude Code 2.1.332); memory stays bounded: more lines than this are over the token cap anyway.
      try: (signal) => readLineRange(source, firstIndex, limit ?? maxTokens * 4 + 2, signal),
      catch: fsFailure(file)
    })
    if ("binary" in range) return yield* fail(binaryContentMessage(file))
    let lines = firstIndex === 0 && range.lines.length > 0
      ? [stripBom(range.lines[0]!), ...range.lines.slice(1)]
      : range.lines
    const firstPageRead = (input.offset ?? 1) <= 1 && limit === undefined
    const tokens = countTokens(lines.join("\n"), firstPageRead)
    let note: string | undefined
    if (tokens > maxTokens) {
      if (!firstPageRead) return yield* fail(tooManyTokensMessage(tokens, maxTokens))
      const page = firstPage(lines.join("\n"), tokens, maxTokens)
      lines = page.text.split("\n")
      note = partialPageNote(file, page, range.totalLines, tokens, maxTokens)
    }
    const sawAll = firstIndex === 0 && lines.length >= range.totalLines
    yield* ctx.fileState.record(file, {
      mtimeMs: snapshotMtime(stat.mtimeMs),
      contentHash: range.contentHash,
      partial: note !== undefined || (!whole && !sawAll)
    })
    const output: ReadOutput = {
      type: "text",
      file: {
        filePath: file,
        content: lines.join("\n"),
        numLines: lines.length,
        startLine,
        totalLines: range.totalLines,
        ...(note === undefined ? {} : { truncationNote: note }),
        ...(range.invalidUtf8 ? { notUtf8: true as const } : {})
      }
    }
    return output
  })

const readImage = (file: string, source: string, stat: fs.Stats, ctx: ToolContext) =>
  Effect.gen(function*() {
    if (stat.size === 0) return yield* fail(emptyImageText(file))
    if (stat.size > MAX_IMAGE_BYTES) {
      return yield* fail(
        `The image is too large to return (${formatFileSize(stat.size)}); the maximum is ${
          formatFileSize(MAX_IMAGE_BYTES)
        } (images are not downscaled). Resize it first, e.g. with an image tool through Bash.`
      )
    }
    const bytes = yield* Effect.tryPromise({
      try: (signal) => fs.promises.readFile(source, { signal }),
      catch: fsFailure(file)
    })
    const image = sniffImage(bytes)
    if (image === undefined) return yield* fail(notAnImageText(file, bytes))
    if (image.size === undefined) return yield* fail(UNREADABLE_IMAGE_SIZE)
    yield* ctx.fileState.record(file, {
      mtimeMs: snapshotMtime(stat.mtimeMs),
      contentHash: snapshotHash(decodeText(bytes).text),
      partial: false
    })
    const output: ReadOutput = {
      type: "image",
      file: { filePath: file, base64: bytes.toString("base64"), type: image.mediaType, originalSize: stat.size }
    }
    return output
  })

const readPdf = (file: string, source: string, stat: fs.Stats, pages: string | undefined) =>
  Effect.gen(function*() {
    if (stat.size === 0) return yield* fail(emptyPdfText(file))
    const range = pages === undefined ? undefined : parsePages(pages)
    if (range === undefined && stat.size > PDF_MAX_BYTES) return yield* fail(TOO_LARGE_PDF)
    const bytes = yield* Effect.tryPromise({
      try: (signal) => fs.promises.readFile(source, { signal }),
      catch: fsFailure(file)
    })
    if (range !== undefined) {
      const images = yield* renderPages(bytes, range)
      const output: ReadOutput = {
        type: "parts",
        file: { filePath: file, originalSize: stat.size, count: images.length, images }
      }
      return output
    }
    yield* checkWholePdf(file, bytes)
    const output: ReadOutput = {
      type: "pdf",
      file: { filePath: file, base64: bytes.toString("base64"), originalSize: stat.size }
    }
    return output
  })

const readNotebook = (file: string, source: string, stat: fs.Stats, ctx: ToolContext) =>
  Effect.gen(function*() {
    if (stat.size > MAX_NOTEBOOK_BYTES) {
      return yield* fail(
        `The notebook is too large to read (${formatFileSize(stat.size)}; the maximum is ${
          formatFileSize(MAX_NOTEBOOK_BYTES)
        }). Use Bash with jq to read specific cells, e.g. jq '.cells[:20]' "${file}".`
      )
    }
    const maxTokens = yield* READ_MAX_OUTPUT_TOKENS
    const bytes = yield* Effect.tryPromise({
      try: (signal) => fs.promises.readFile(source, { signal }),
      catch: fsFailure(file)
    })
    const text = decodeText(bytes).text
    const cells = yield* Effect.try({
      try: () => parseNotebook(stripBom(text)),
      catch: (error) =>
        new ToolError({
          reason: error instanceof NotebookUnreadable
            ? error.message
            : `Notebook is not valid JSON: ${errorText(error)}`
        })
    })
    const tokens = countTokens(renderNotebook(cells), true)
    if (tokens > maxTokens) {
      return yield* fail(
        `Notebook content (${tokens} tokens) exceeds maximum allowed tokens (${maxTokens}). Use Bash with jq to read specific cells, e.g. jq '.cells[:20]' "${file}".`
      )
    }
    yield* ctx.fileState.record(file, {
      mtimeMs: snapshotMtime(stat.mtimeMs),
      contentHash: snapshotHash(text),
      partial: false
    })
    const output: ReadOutput = { type: "notebook", file: { filePath: file, cells } }
    return output
  })

const mapReadResult = (output: ReadOutput): ToolResultContent => {
  switch (output.type) {
    case "image":
      return [{ type: "image", source: { type: "base64", media_type: output.file.type, data: output.file.base64 } }]
    case "pdf":
      return [
        { type: "text", text: wholePdfText(output.file.filePath, output.file.originalSize) },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: output.file.base64 } }
      ]
    case "parts":
      return [
        { type: "text", text: pagesText(output.file.filePath, output.file.count, output.file.originalSize) },
        ...output.file.images.map((data) => ({
          type: "image" as const,
          source: { type: "base64" as const, media_type: "image/jpeg", data }
        }))
      ]
    case "notebook":
      return output.file.cells.length === 0
        ? "<system-reminder>Warning: the notebook exists but has no cells.</system-reminder>"
        : renderNotebook(output.file.cells)
    case "text": {
      const { content, numLines, notUtf8, startLine, totalLines, truncationNote } = output.file
      if (numLines > 0) {
        const text = truncationNote === undefined
          ? numberLines(content.split("\n"), startLine)
          : `${numberLines(content.split("\n"), startLine)}\n\n<system-reminder>\n${truncationNote}\n</system-reminder>`
        return notUtf8 === true ? `${text}\n\n${NOT_UTF8_NOTE}` : text
      }
      return totalLines === 0 ? EMPTY_FILE_NOTICE : offsetNotice(startLine, totalLines)
    }
  }
}

/** Opens and checks the file when the call runs under a guard (a served session's confinement); closed with the call. */
const guardedOpen = (file: string) =>
  Effect.flatMap(FileGuard, (guard) =>
    guard === undefined
      ? Effect.succeed(undefined)
      : Effect.acquireRelease(
        Effect.try({
          try: () => openForRead(guard, file),
          catch: (error) => new ToolError({ reason: errorText(error) })
        }),
        (opened) => Effect.sync(opened.close)
      ))

export const ReadTool = buildTool<ReadInput, ReadOutput>({
  name: READ_TOOL_NAME,
  knownAs: ["view"],
  repairInput: repairReadInput,
  inputSchema: ReadInput,
  description: "Read a file from the local filesystem: text with line numbers, images, PDFs, or Jupyter notebooks.",
  prompt: PROMPT,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  ...fileAt<"file_path", ReadInput>("file_path", "read"),
  validateInput: (input, ctx) => {
    const problem = pathProblem(input.file_path)
    if (problem !== undefined) return reject(READ_TOOL_NAME, problem)
    const file = expandPath(input.file_path, ctx.session.cwd)
    const denied = deniedAccessMessage(ctx, file, "read")
    if (denied !== undefined) return reject(READ_TOOL_NAME, denied)
    const pages = input.pages === undefined ? undefined : pagesProblem(input.pages)
    if (pages !== undefined) return reject(READ_TOOL_NAME, pages)
    if (hasBinaryExtension(file)) return reject(READ_TOOL_NAME, binaryExtensionMessage(file))
    if (isBlockedDevice(file)) return reject(READ_TOOL_NAME, blockedDeviceText(input.file_path))
    return Effect.void
  },
  call: Effect.fn("Read.call")(function*(input: ReadInput, ctx: ToolContext) {
    const cwd = ctx.session.cwd
    const file = yield* Effect.try({
      try: () => expandPath(input.file_path, cwd),
      catch: (error) => new ToolError({ reason: errorText(error) })
    })
    const named = yield* Effect.tryPromise({ try: () => statOrUndefined(file), catch: fsFailure(file) })
    if (named === undefined) return yield* fail(yield* Effect.promise(() => fileNotFoundMessage(file, cwd)))
    // Opening a pipe waits for a writer: never open one.
    if (named.isFIFO()) return yield* fail(NOTHING_WRITING)
    // under a guard, what is read is the file opened and checked, whatever the name leads to now
    const opened = yield* guardedOpen(file)
    const stat = opened === undefined ? named : fs.fstatSync(opened.fd)
    const source = opened?.via ?? file
    if (stat.isDirectory()) {
      return yield* fail(`EISDIR: illegal operation on a directory, read '${file}'`)
    }
    if (!stat.isFile()) return yield* fail(`Cannot read '${input.file_path}': it is not a regular file.`)
    const extension = extensionOf(file)
    const data: ReadOutput = IMAGE_EXTENSIONS.has(extension)
      ? yield* readImage(file, source, stat, ctx)
      : extension === "ipynb"
      ? yield* readNotebook(file, source, stat, ctx)
      : extension === "pdf"
      ? yield* readPdf(file, source, stat, input.pages)
      : yield* readText(file, source, stat, input, ctx)
    const result: ToolResult<ReadOutput> = { data }
    return result
  }, Effect.scoped),
  mapResult: mapReadResult,
  hookResponse: (output) =>
    output.type === "image"
      ? {
        type: "image",
        file: { filePath: output.file.filePath, type: output.file.type, originalSize: output.file.originalSize }
      }
      : output.type === "pdf" || output.type === "parts"
      ? { type: output.type, file: { filePath: output.file.filePath, originalSize: output.file.originalSize } }
      : output.type === "text" && output.file.notUtf8 === true
      ? { ...output, file: withoutKey(output.file, "notUtf8") }
      : output,
  renderUse: (input) => {
    const range = input.offset === undefined && input.limit === undefined
      ? ""
      : ` (lines ${input.offset ?? 1}${input.limit === undefined ? "+" : `-${(input.offset ?? 1) + input.limit - 1}`})`
    return oneLine(`${input.file_path}${range}`, 200)
  },
  renderResult: (output) => {
    switch (output.type) {
      case "image":
        return `Read image (${formatFileSize(output.file.originalSize)})`
      case "pdf":
        return `Read PDF (${formatFileSize(output.file.originalSize)})`
      case "parts":
        return `Read ${output.file.count} ${plural(output.file.count, "page", "pages")} of a PDF`
      case "notebook":
        return `Read ${output.file.cells.length} ${plural(output.file.cells.length, "cell", "cells")}`
      case "text": {
        const { numLines, totalLines, startLine } = output.file
        if (numLines > 0) return `Read ${numLines} ${plural(numLines, "line", "lines")}`
        return totalLines === 0
          ? "Read an empty file"
          : `Offset ${startLine} is past the end of the file (${totalLines} lines)`
      }
    }
  }
})
