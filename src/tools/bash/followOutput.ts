/**
 * Follows a command's output file while the command writes it: what the foreground result needs
 * (the first `maxChars` characters, the totals) and what a move to the background shows (the last
 * characters), with memory bounded whatever the command prints.
 */
import * as fs from "node:fs"
import { StringDecoder } from "node:string_decoder"

const CHUNK_BYTES = 1 << 20

export class OutputFollower {
  private offset = 0
  private readonly decoder = new StringDecoder("utf8")
  private headText = ""
  private tailText = ""
  totalChars = 0
  totalBytes = 0
  lines = 0

  constructor(
    readonly file: string,
    private readonly maxChars: number,
    private readonly tailChars: number
  ) {}

  /** The first `maxChars` characters. */
  get head(): string {
    return this.headText
  }

  /** The last `tailChars` characters (fewer when less was written). */
  get tail(): string {
    return this.tailText
  }

  /** The last `count` lines, for progress. */
  lastLines(count: number): ReadonlyArray<string> {
    const lines = this.tailText.replace(/\n$/, "").split("\n")
    return lines.slice(-count)
  }

  /** Reads what was written since the last call; `final` once the writer is gone (a cut character is kept otherwise). */
  poll(final: boolean): void {
    let fd: number
    try {
      fd = fs.openSync(this.file, "r")
    } catch {
      return
    }
    try {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
      // up to the size the file had when the poll began: a writer as fast as this reader would
      // otherwise keep it here for ever, and nothing else (the timeout, the output limit) could run
      const end = fs.fstatSync(fd).size
      while (this.offset < end) {
        const n = fs.readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, end - this.offset), this.offset)
        if (n === 0) break
        this.offset += n
        this.totalBytes += n
        this.take(this.decoder.write(buffer.subarray(0, n)))
      }
    } catch {
      // the file went away: what was read stands
    } finally {
      fs.closeSync(fd)
    }
    if (final) this.take(this.decoder.end())
  }

  private take(text: string): void {
    if (text === "") return
    this.totalChars += text.length
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.lines++
    if (this.headText.length < this.maxChars) this.headText += text.slice(0, this.maxChars - this.headText.length)
    const joined = this.tailText + text
    this.tailText = joined.length > this.tailChars ? joined.slice(joined.length - this.tailChars) : joined
  }
}
