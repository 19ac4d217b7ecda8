/**
 * Appending records to a line-per-record file (transcripts) so that a reader never meets a torn
 * line: a write cut short or refused (a full disk, the file-size limit) is cut back to where the
 * file ended before it.
 */
import * as fs from "node:fs"

/** Appends all of `bytes` at `size` through `fd`, or nothing. Returns the error, if any. */
export const appendWhole = (fd: number, bytes: Buffer, size: number): string | undefined => {
  let done = 0
  try {
    while (done < bytes.length) {
      const n = fs.writeSync(fd, bytes, done, bytes.length - done)
      if (n <= 0) throw new Error("the disk took no more bytes")
      done += n
    }
    return undefined
  } catch (e) {
    try {
      fs.ftruncateSync(fd, size)
    } catch {
      // nothing more can be done; readers skip a torn last line
    }
    const error = e as NodeJS.ErrnoException
    return error.code === undefined ? error.message : `${error.code}: ${error.message}`
  }
}

/** Opens `file` (mode 0600 when created), appends `line` whole or not at all, and closes it; throws what went wrong. */
export const appendLineWhole = (file: string, line: string): void => {
  const fd = fs.openSync(file, "a", 0o600)
  try {
    const failed = appendWhole(fd, Buffer.from(line, "utf8"), fs.fstatSync(fd).size)
    if (failed !== undefined) throw new Error(`writing ${file} failed (${failed})`)
  } finally {
    fs.closeSync(fd)
  }
}
