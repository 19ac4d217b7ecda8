/** What Edit and Write need to know about a file before changing it. */
import * as fs from "node:fs"
import { decodeText, detectLineEndings, snapshotHash, toLf, type LineEndings, type TextEncoding } from "./textCodec.js"
import { isNotFound } from "./paths.js"
import { openForRead, type FileGuardService } from "../../internal/fileGuard.js"

export interface CurrentFile {
  /** Where the bytes live: symlinks resolved, so an atomic rename replaces the target, not the link. */
  readonly realPath: string
  readonly stat: fs.Stats
  /** The decoded text, BOM kept. */
  readonly text: string
  /** The decoded text with CRLF normalised to LF. */
  readonly lf: string
  readonly encoding: TextEncoding
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
    endings: detectLineEndings(text),
    contentHash: snapshotHash(text)
  }
}
