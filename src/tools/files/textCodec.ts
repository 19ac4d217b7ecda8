/**
 * How the file tools turn bytes into text and back: UTF-8, or UTF-16LE when the file starts with
 * the BOM FF FE; CRLF normalised to LF for matching and hashing; the file's line endings kept for
 * writing back.
 */
import { hashContent } from "../../services/FileState.js"

export type TextEncoding = "utf8" | "utf16le"
export type LineEndings = "LF" | "CRLF"

export const detectEncoding = (bytes: Uint8Array): TextEncoding =>
  bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe ? "utf16le" : "utf8"

/** The decoded text keeps a BOM as U+FEFF, so writing it back keeps the BOM. */
export const decodeText = (bytes: Buffer): { readonly text: string; readonly encoding: TextEncoding } => {
  const encoding = detectEncoding(bytes)
  return { text: bytes.toString(encoding), encoding }
}

export const encodeText = (text: string, encoding: TextEncoding): Buffer => Buffer.from(text, encoding)

export const toLf = (text: string): string => text.replaceAll("\r\n", "\n")

/** CRLF when the head of the file has more CRLF than bare LF line ends. */
export const detectLineEndings = (raw: string): LineEndings => {
  const head = raw.slice(0, 4096)
  let crlf = 0
  let lf = 0
  for (let i = head.indexOf("\n"); i !== -1; i = head.indexOf("\n", i + 1)) {
    if (i > 0 && head.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return crlf > lf ? "CRLF" : "LF"
}

export const withLineEndings = (text: string, endings: LineEndings): string =>
  endings === "CRLF" ? toLf(text).replaceAll("\n", "\r\n") : text

/** The FileState hash of a text: sha256 of its LF-normalised form. */
export const snapshotHash = (text: string): string => hashContent(toLf(text))

export const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
