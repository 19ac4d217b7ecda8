/**
 * Streams a text file and keeps only the lines Read asked for, while counting every line and
 * hashing the whole (LF-normalised) content for the FileState snapshot. Memory stays bounded by
 * the requested range, whatever the file size.
 */
import * as fs from "node:fs"
import { createHash } from "node:crypto"
import { isUtf8 } from "node:buffer"
import { StringDecoder } from "node:string_decoder"
import { detectEncoding, type TextEncoding } from "./textCodec.js"
import { looksBinary } from "./binary.js"

export interface LineRange {
  /** The requested lines, LF-normalised (a trailing CR of a CRLF line end is gone). */
  readonly lines: ReadonlyArray<string>
  /** Lines in the file: 0 for an empty file, else the number of LF + 1. */
  readonly totalLines: number
  readonly contentHash: string
  readonly encoding: TextEncoding
  /** UTF-8 was expected and some bytes were not UTF-8 (they read as U+FFFD). */
  readonly invalidUtf8: boolean
}

export type LineRangeResult = LineRange | { readonly binary: true }

/** Reads lines [firstIndex, firstIndex + maxLines) (0-based). */
export const readLineRange = async (
  file: string,
  firstIndex: number,
  maxLines: number,
  signal?: AbortSignal
): Promise<LineRangeResult> => {
  const stream = fs.createReadStream(file, { highWaterMark: 64 * 1024, ...(signal === undefined ? {} : { signal }) })
  const hash = createHash("sha256")
  const lines: Array<string> = []
  const endIndex = firstIndex + maxLines
  let decoder: StringDecoder | undefined
  let encoding: TextEncoding = "utf8"
  let pendingCr = false
  let current = ""
  let lineIndex = 0
  let sawText = false
  let invalidUtf8 = false

  const take = (text: string): void => {
    if (text === "") return
    sawText = true
    hash.update(text)
    let from = 0
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      if (lineIndex >= firstIndex && lineIndex < endIndex) lines.push(current + text.slice(from, nl))
      current = ""
      lineIndex++
      from = nl + 1
    }
    if (lineIndex >= firstIndex && lineIndex < endIndex) current += text.slice(from)
  }

  const feed = (decoded: string, final: boolean): void => {
    let text = pendingCr ? `\r${decoded}` : decoded
    pendingCr = false
    if (!final && text.endsWith("\r")) {
      pendingCr = true
      text = text.slice(0, -1)
    }
    take(text.replaceAll("\r\n", "\n"))
  }

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (decoder === undefined) {
      encoding = detectEncoding(chunk)
      if (encoding === "utf8" && looksBinary(chunk)) {
        stream.destroy()
        return { binary: true }
      }
      decoder = new StringDecoder(encoding)
    }
    const decoded = decoder.write(chunk)
    if (encoding === "utf8" && !invalidUtf8 && decoded.includes("\uFFFD") && !isUtf8(chunk)) invalidUtf8 = true
    feed(decoded, false)
  }
  const rest = decoder?.end() ?? ""
  // a multi-byte sequence cut off by the end of the file
  if (encoding === "utf8" && rest.includes("\uFFFD")) invalidUtf8 = true
  feed(rest, true)
  // a CR at the very end is shown as a line end, as Claude Code shows it (a CR-only file's last CR)
  if (sawText && lineIndex >= firstIndex && lineIndex < endIndex) {
    lines.push(current.endsWith("\r") ? current.slice(0, -1) : current)
  }
  return { lines, totalLines: sawText ? lineIndex + 1 : 0, contentHash: hash.digest("hex"), encoding, invalidUtf8 }
}
