/**
 * PDF files for Read: the whole file as a document block, or a range of pages rendered to JPEG
 * images by poppler's `pdftoppm` (100 dpi), with the page count from `pdfinfo`. The texts the
 * model sees are Claude Code's.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { ToolError } from "../../Errors.js"
import { formatFileSize } from "./format.js"

export const PDF_MAX_BYTES = 20 * 1024 * 1024
export const PDF_MAX_PAGES_PER_READ = 20
const RENDER_DPI = 100

export interface PageRange {
  readonly first: number
  readonly last: number
}

/** `"3"` or `"1-5"`, 1-based, the last page not before the first; anything else is undefined. */
export const parsePages = (spec: string): PageRange | undefined => {
  const match = /^(\d+)(?:-(\d+))?$/.exec(spec.trim())
  if (match === null) return undefined
  const first = Number(match[1])
  const last = match[2] === undefined ? first : Number(match[2])
  return first >= 1 && last >= first ? { first, last } : undefined
}

/** Why a `pages` input is refused before the call runs, or undefined when it is fine. */
export const pagesProblem = (spec: string): string | undefined => {
  const range = parsePages(spec)
  if (range === undefined) {
    return `Invalid pages parameter: "${spec}". Give one page ("3") or one range ("1-5"), not a list. To read several pages or ranges, read each one separately. Pages are 1-indexed.`
  }
  return range.last - range.first + 1 > PDF_MAX_PAGES_PER_READ
    ? `Page range "${spec}" exceeds maximum of ${PDF_MAX_PAGES_PER_READ} pages per request. Please use a smaller range.`
    : undefined
}

export const emptyPdfText = (file: string) => `PDF file is empty: ${file}`
export const TOO_LARGE_PDF = `PDF file exceeds maximum allowed size of ${formatFileSize(PDF_MAX_BYTES)}.`
export const missingHeaderText = (file: string) => `File is not a valid PDF (missing %PDF- header): ${file}`
export const hasPdfHeader = (bytes: Uint8Array): boolean =>
  Buffer.from(bytes.subarray(0, 5)).toString("latin1") === "%PDF-"
export const wholePdfText = (file: string, size: number) => `PDF file read: ${file} (${formatFileSize(size)})`
export const pagesText = (file: string, count: number, size: number) =>
  `PDF pages extracted: ${count} page(s) from ${file} (${formatFileSize(size)})`

const NO_PDFTOPPM =
  "pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or `apt-get install poppler-utils`) to enable PDF page rendering."
const CORRUPT = "PDF file is corrupted or invalid."

const outsideText = (page: number, pages: number) =>
  `Requested page ${page} is outside the document (PDF has ${pages} pages). Use a range within 1-${pages}, maximum ${PDF_MAX_PAGES_PER_READ} pages per request (e.g. pages: "1-${
    Math.min(pages, PDF_MAX_PAGES_PER_READ)
  }").`

const run = (program: string, args: ReadonlyArray<string>) =>
  Effect.async<{ readonly ok: boolean; readonly missing: boolean; readonly stdout: string }>((resume, signal) => {
    execFile(program, [...args], { signal, maxBuffer: 1024 * 1024 }, (error, stdout) => {
      const code = (error as NodeJS.ErrnoException | null)?.code
      resume(Effect.succeed({ ok: error === null, missing: code === "ENOENT", stdout: String(stdout) }))
    })
  })

const fail = (reason: string) => Effect.fail(new ToolError({ reason }))

/** Beyond this many pages a whole PDF is refused (when poppler can count them): read it by pages. */
const MAX_PAGES_WHOLE = 10

const tooManyPagesText = (pages: number) =>
  `This PDF has ${pages} pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: "1-5"). Maximum ${PDF_MAX_PAGES_PER_READ} pages per request.`

/** A private copy of the file for poppler, removed after `use`. */
const withCopy = <A, E, R>(bytes: Uint8Array, use: (copy: string, dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.try({
      try: () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pdf-"))
        fs.writeFileSync(path.join(dir, "document.pdf"), bytes)
        return dir
      },
      catch: (error) => new ToolError({ reason: String(error) })
    }),
    (dir) => use(path.join(dir, "document.pdf"), dir),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** The page count poppler's `pdfinfo` reads, undefined when it cannot (not installed, or the file is broken). */
const countPages = (copy: string) =>
  Effect.map(run("pdfinfo", [copy]), (info) => {
    const pages = Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1] ?? Number.NaN)
    return info.ok && Number.isSafeInteger(pages) ? pages : undefined
  })

/** Fails when a whole-file read of this PDF should be refused: too many pages, or not a PDF at all. */
export const checkWholePdf = (file: string, bytes: Uint8Array) =>
  Effect.gen(function*() {
    const pages = yield* withCopy(bytes, countPages)
    if (pages !== undefined && pages > MAX_PAGES_WHOLE) return yield* fail(tooManyPagesText(pages))
    if (!hasPdfHeader(bytes)) return yield* fail(missingHeaderText(file))
  })

/**
 * The pages of `bytes` (the file as read) in `range`, as base64 JPEG images, the range cut at the
 * document's end. poppler reads a private copy, never the path the model named.
 */
export const renderPages = (bytes: Uint8Array, range: PageRange) =>
  withCopy(bytes, (copy, dir) =>
    Effect.gen(function*() {
      const probe = yield* run("pdftoppm", ["-v"])
      if (probe.missing) return yield* fail(NO_PDFTOPPM)
      const pages = yield* countPages(copy)
      if (pages === undefined) return yield* fail(CORRUPT)
      if (range.first > pages) return yield* fail(outsideText(range.first, pages))
      const prefix = path.join(dir, "page")
      const rendered = yield* run("pdftoppm", [
        "-jpeg",
        "-r",
        String(RENDER_DPI),
        "-f",
        String(range.first),
        "-l",
        String(Math.min(range.last, pages)),
        copy,
        prefix
      ])
      if (!rendered.ok) return yield* fail(CORRUPT)
      // pdftoppm pads page numbers to the width of the last one, so names sort in page order
      const images = fs.readdirSync(dir).filter((name) => name.startsWith("page")).sort()
      return images.map((name) => fs.readFileSync(path.join(dir, name)).toString("base64"))
    }))
