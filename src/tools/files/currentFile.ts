/** What Edit and Write need to know about a file before changing it. */
import { isUtf8 } from "node:buffer"
import * as fs from "node:fs"
import { decodeText, detectLineEndings, snapshotHash, toLf, type LineEndings, type TextEncoding } from "./textCodec.js"
import { isNotFound } from "./paths.js"
import { openForRead, type FileGuardService } from "../../internal/fileGuard.js"

/** Why Edit and Write leave a file alone whose bytes are not UTF-8 (they would change its encoding). */
export const NOT_UTF8_TEXT =
  "File is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it."

export interface CurrentFile {
  /** Where the bytes live: symlinks resolved, so an atomic rename replaces the target, not the link. */
  readonly realPath: string
  readonly stat: fs.Stats
  /** The decoded text, BOM kept. */
  readonly text: string
  /** The decoded text with CRLF normalised to LF. */
  readonly lf: string
  readonly encoding: TextEncoding
  /** UTF-16 behind its BOM, or bytes that are valid UTF-8: the file tools write it back as it was. */
  readonly writable: boolean
  readonly endings: LineEndings
  readonly contentHash: string
}

/** The file as it is now, or undefined when it does not exist (under a guard: the file opened and checked). */
export const readCurrentFile = async (file: string, guard?: FileGuardService): Promise<CurrentFile | undefined> => {
  if (guard !== undefined) return readGuarded(file, guard)
  let realPath: string
  try {
    realPath = await fs.promises.realpath(file)
  } catch (error) {
    if (isNotFound(error)) return undefined
    throw error
  }
  return describe(realPath, await fs.promises.stat(realPath), await fs.promises.readFile(realPath))
}

const readGuarded = async (file: string, guard: FileGuardService): Promise<CurrentFile | undefined> => {
  let opened
  try {
    opened = openForRead(guard, file)
  } catch (error) {
    if (isNotFound(error)) return undefined
    throw error
  }
  try {
    return describe(opened.realPath, fs.fstatSync(opened.fd), fs.readFileSync(opened.fd))
  } finally {
    opened.close()
  }
}

const describe = (realPath: string, stat: fs.Stats, bytes: Buffer): CurrentFile => {
  const { text, encoding } = decodeText(bytes)
  return {
    realPath,
    stat,
    text,
    lf: toLf(text),
    encoding,
    writable: encoding === "utf16le" || isUtf8(bytes),
    endings: detectLineEndings(text),
    contentHash: snapshotHash(text)
  }
}
