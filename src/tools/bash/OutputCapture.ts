/**
 * Captures a command's stdout and stderr with bounded memory. Until the output passes the cap
 * everything stays in memory; from then on the full output (both streams, interleaved in arrival
 * order, bytes as written) is streamed to a file and memory keeps only the head and tail of each
 * stream for the preview.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { StringDecoder } from "node:string_decoder"

export type StreamName = "stdout" | "stderr"

export interface CapturedOutput {
  /** The stream's text, or its head and tail around a truncation marker when output was cut. */
  readonly stdout: string
  readonly stderr: string
  /** Both streams in arrival order, as one terminal would show them: the first `maxChars` characters. */
  readonly combined: string
  readonly totalChars: number
  readonly totalBytes: number
  readonly lines: number
  /** True when the output passed the cap: the texts above are previews. */
  readonly truncated: boolean
  /** Where the full output was saved (set when truncated and the file could be written). */
  readonly outputFile: string | undefined
  /** Why the full output could not be saved, when it could not. */
  readonly spillError: string | undefined
  /** Set when the output passed `maxFileBytes`: the file was cut there, with this notice at its end. */
  readonly limitNotice: string | undefined
}

export interface OutputCaptureOptions {
  /** Characters kept in memory in total; the output beyond it goes to `spillPath`. */
  readonly maxChars: number
  /** The file for the full output; created (exclusively) only once the output passes the cap. */
  readonly spillPath: string
  /**
   * The most bytes the file may hold: past it the file is cut there and ends with `limitNotice`,
   * nothing more is saved, and `onLimit` is called (once; the caller stops the command).
   */
  readonly maxFileBytes?: number
  readonly limitNotice?: string
  readonly onLimit?: () => void
}

export const truncationMarker = (omitted: number): string => `\n\n... [${omitted} characters truncated] ...\n\n`

/** The first `headMax` and last `tailMax` characters of a stream, and how many were dropped between. */
class HeadTail {
  head = ""
  private tail: Array<string> = []
  private tailLength = 0
  omitted = 0

  constructor(
    private headMax: number,
    private tailMax: number
  ) {}

  get retained(): number {
    return this.head.length + this.tailLength
  }

  push(text: string): void {
    let rest = text
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length
      this.head += rest.slice(0, room)
      rest = rest.slice(room)
    }
    if (rest.length === 0) return
    this.tail.push(rest)
    this.tailLength += rest.length
    this.trimTail()
  }

  /** Lowers the limits; what no longer fits is dropped from the middle. */
  shrink(headMax: number, tailMax: number): void {
    if (this.head.length > headMax) {
      this.tail.unshift(this.head.slice(headMax))
      this.tailLength += this.head.length - headMax
      this.head = this.head.slice(0, headMax)
    }
    this.headMax = headMax
    this.tailMax = tailMax
    this.trimTail()
  }

  text(): string {
    const tail = this.tail.join("")
    return this.omitted === 0 ? this.head + tail : this.head + truncationMarker(this.omitted) + tail
  }

  private trimTail(): void {
    while (this.tailLength > this.tailMax) {
      const first = this.tail[0]!
      const excess = this.tailLength - this.tailMax
      if (first.length <= excess) {
        this.tail.shift()
        this.tailLength -= first.length
        this.omitted += first.length
      } else {
        this.tail[0] = first.slice(excess)
        this.tailLength -= excess
        this.omitted += excess
      }
    }
  }
}

const RECENT_CHARS = 2048

export class OutputCapture {
  private readonly decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") }
  private readonly streams: Record<StreamName, HeadTail>
  private readonly combined: HeadTail
  /** Raw chunks in arrival order, kept only until the output passes the cap. */
  private pending: Array<Buffer> | undefined = []
  private fd: number | undefined
  private file: string | undefined
  private error: string | undefined
  private saved = 0
  private limited = false
  private chars = 0
  private bytes = 0
  private newlines = 0
  private closed = false
  /** The last characters written to either stream, for a live view of a running command. */
  private recent = ""

  constructor(private readonly options: OutputCaptureOptions) {
    this.streams = {
      stdout: new HeadTail(options.maxChars, 0),
      stderr: new HeadTail(options.maxChars, 0)
    }
    this.combined = new HeadTail(options.maxChars, 0)
  }

  get totalChars(): number {
    return this.chars
  }

  get lines(): number {
    return this.newlines
  }

  /** The last `n` non-empty lines written so far (both streams, as they arrived). */
  tail(n: number): ReadonlyArray<string> {
    return this.recent
      .split("\n")
      .map((l) => l.replace(/\r$/, "").split("\r").at(-1)!)
      .filter((l) => l.trim() !== "")
      .slice(-n)
  }

  /** Characters held in memory right now (for tests of the memory bound). */
  get retainedChars(): number {
    return this.streams.stdout.retained + this.streams.stderr.retained + this.combined.retained
  }

  get spilled(): boolean {
    return this.pending === undefined
  }

  write(stream: StreamName, chunk: Buffer): void {
    if (this.closed) return
    this.take(stream, chunk, this.decoders[stream].write(chunk))
  }

  /** Flushes the decoders, closes the file, and returns what was captured. Idempotent. */
  finish(): CapturedOutput {
    if (!this.closed) {
      for (const stream of ["stdout", "stderr"] as const) {
        const rest = this.decoders[stream].end()
        if (rest.length > 0) this.take(stream, Buffer.alloc(0), rest)
      }
    }
    this.close()
    const truncated = this.spilled
    return {
      stdout: this.streams.stdout.text(),
      stderr: this.streams.stderr.text(),
      combined: this.combined.head,
      totalChars: this.chars,
      totalBytes: this.bytes,
      lines: this.newlines,
      truncated,
      outputFile: truncated && this.error === undefined ? this.file : undefined,
      spillError: this.error,
      limitNotice: this.limited ? this.options.limitNotice ?? "" : undefined
    }
  }

  /** Closes the file without flushing; for interruption. Idempotent. */
  close(): void {
    this.closed = true
    this.closeFile()
  }

  private closeFile(): void {
    if (this.fd !== undefined) {
      const fd = this.fd
      this.fd = undefined
      try {
        fs.closeSync(fd)
      } catch {
        // already closed
      }
    }
  }

  private take(stream: StreamName, raw: Buffer, text: string): void {
    this.bytes += raw.length
    if (this.pending !== undefined && this.chars + text.length > this.options.maxChars) {
      this.spill(raw)
      const headMax = Math.floor(this.options.maxChars / 4)
      this.streams.stdout.shrink(headMax, headMax)
      this.streams.stderr.shrink(headMax, headMax)
    } else if (this.pending !== undefined) {
      if (raw.length > 0) this.pending.push(raw)
    } else {
      this.save(raw)
    }
    this.chars += text.length
    this.recent = (this.recent + text).slice(-RECENT_CHARS)
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.newlines++
    this.streams[stream].push(text)
    this.combined.push(text)
  }

  private spill(raw: Buffer): void {
    const pending = this.pending ?? []
    this.pending = undefined
    try {
      const { fd, file } = openExclusive(this.options.spillPath)
      this.fd = fd
      this.file = file
    } catch (cause) {
      this.error = errorText(cause)
      return
    }
    for (const chunk of pending) this.save(chunk)
    this.save(raw)
  }

  private save(raw: Buffer): void {
    if (this.fd === undefined || raw.length === 0) return
    const max = this.options.maxFileBytes ?? Number.POSITIVE_INFINITY
    const fits = this.saved + raw.length <= max ? raw : raw.subarray(0, Math.max(0, max - this.saved))
    try {
      this.writeAll(fits)
      if (fits.length < raw.length) {
        this.limited = true
        this.writeAll(Buffer.from(`\n${this.options.limitNotice ?? ""}\n`))
        this.closeFile()
        this.options.onLimit?.()
      }
    } catch (cause) {
      this.error = errorText(cause)
      this.closeFile()
    }
  }

  private writeAll(bytes: Buffer): void {
    let offset = 0
    while (offset < bytes.length) offset += fs.writeSync(this.fd!, bytes, offset, bytes.length - offset)
    this.saved += bytes.length
  }
}

/** Creates the file without ever replacing one: `name.txt`, then `name-1.txt`, `name-2.txt`, … */
const openExclusive = (wanted: string): { readonly fd: number; readonly file: string } => {
  fs.mkdirSync(path.dirname(wanted), { recursive: true })
  const ext = path.extname(wanted)
  const base = wanted.slice(0, wanted.length - ext.length)
  for (let attempt = 0;; attempt++) {
    const file = attempt === 0 ? wanted : `${base}-${attempt}${ext}`
    try {
      return { fd: fs.openSync(file, "wx", 0o600), file }
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw cause
    }
  }
}

const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
