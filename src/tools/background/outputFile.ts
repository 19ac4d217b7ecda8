/**
 * A background task's output file: the shell's stdout and stderr are the file itself (the child
 * gets its descriptor), so output never passes through this process and memory stays bounded.
 * Reads return what was written since the last read, at most `maxBytes` of it (the newest part).
 */
import * as fs from "node:fs"
import * as path from "node:path"

export interface OpenedOutput {
  readonly id: string
  readonly file: string
  readonly fd: number
}

/**
 * Creates `<dir>/<id>.output` for a fresh id, never replacing a file (exclusive create); the id
 * generator is asked again when the name is taken.
 */
export const openOutputFile = (dir: string, nextId: () => string): OpenedOutput => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  for (let attempt = 0;; attempt++) {
    const id = nextId()
    const file = path.join(dir, `${id}.output`)
    try {
      return { id, file, fd: fs.openSync(file, "wx", 0o600) }
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw cause
    }
  }
}

export interface OutputSlice {
  readonly text: string
  /** The byte range of the file this read covered (from the last read's end). */
  readonly fromByte: number
  readonly toByte: number
  /** New bytes not shown because there were more than `maxBytes`; they are in the file. */
  readonly omittedBytes: number
  /** Set when the file could not be read. */
  readonly error: string | undefined
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80

/** Bytes at the start that continue a character begun before the slice. */
const leadingContinuations = (buf: Buffer): number => {
  let i = 0
  while (i < buf.length && i < 3 && isContinuation(buf[i]!)) i++
  return i
}

/** Length of the longest prefix that does not end inside a character still being written. */
export const completeUtf8Length = (buf: Buffer): number => {
  let start = buf.length - 1
  while (start >= 0 && start > buf.length - 4 && isContinuation(buf[start]!)) start--
  if (start < 0) return buf.length
  const lead = buf[start]!
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return buf.length - start < size ? start : buf.length
}

/**
 * The output written since `fromByte`. While the task runs, a character cut in the middle is
 * left for the next read; once it has ended (`final`), everything is read.
 */
export const readNewOutput = (file: string, fromByte: number, maxBytes: number, final: boolean): OutputSlice => {
  let fd: number
  try {
    fd = fs.openSync(file, "r")
  } catch (cause) {
    return { text: "", fromByte, toByte: fromByte, omittedBytes: 0, error: errorText(cause) }
  }
  try {
    const size = fs.fstatSync(fd).size
    if (size <= fromByte) return { text: "", fromByte, toByte: fromByte, omittedBytes: 0, error: undefined }
    const start = Math.max(fromByte, size - maxBytes)
    const buf = Buffer.alloc(size - start)
    let got = 0
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, start + got)
      if (n === 0) break
      got += n
    }
    const read = buf.subarray(0, got)
    const skip = start > fromByte ? leadingContinuations(read) : 0
    const end = final ? read.length : completeUtf8Length(read)
    const usable = read.subarray(skip, Math.max(skip, end))
    return {
      text: usable.toString("utf8"),
      fromByte,
      toByte: start + Math.max(skip, end),
      omittedBytes: start - fromByte + skip,
      error: undefined
    }
  } catch (cause) {
    return { text: "", fromByte, toByte: fromByte, omittedBytes: 0, error: errorText(cause) }
  } finally {
    fs.closeSync(fd)
  }
}

const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
