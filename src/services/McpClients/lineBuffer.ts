/**
 * Splits a stdio server's output into lines in linear time, holding at most `maxBytes` of the
 * line being received. Past that the line is dropped as it arrives (only its first and last few
 * hundred bytes are kept, to tell which request it answered), so an endless or huge message
 * costs no memory and no copying. The SDK's ReadBuffer concatenates the whole buffer on every
 * chunk and searches it from the start, which is quadratic in the message size.
 */

/** Bytes kept of each end of a dropped line. */
const EDGE_BYTES = 512

export type LineEvent =
  | { readonly _tag: "Line"; readonly text: string }
  /** A line over the limit; `bytes` is its full length. */
  | { readonly _tag: "Oversized"; readonly bytes: number; readonly head: string; readonly tail: string }

export class LineBuffer {
  private chunks: Array<Buffer> = []
  private size = 0
  private dropped: { bytes: number; head: Buffer; tail: Buffer } | undefined

  constructor(private readonly maxBytes: number) {}

  /** Bytes held for the line being received (never more than the limit). */
  get bufferedBytes(): number {
    return this.size
  }

  /** Feeds a chunk; returns the lines it completed. */
  push(chunk: Buffer): ReadonlyArray<LineEvent> {
    const events: Array<LineEvent> = []
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      if (newline === -1) {
        this.hold(chunk.subarray(start))
        return events
      }
      this.hold(chunk.subarray(start, newline))
      events.push(this.finish())
      start = newline + 1
    }
  }

  clear(): void {
    this.chunks = []
    this.size = 0
    this.dropped = undefined
  }

  private hold(part: Buffer) {
    if (part.length === 0) return
    if (this.dropped !== undefined) {
      this.dropped.bytes += part.length
      this.dropped.tail = lastBytes(Buffer.concat([this.dropped.tail, lastBytes(part)]))
      return
    }
    if (this.size + part.length <= this.maxBytes) {
      // a copy: a slice would keep the whole chunk alive
      this.chunks.push(Buffer.from(part))
      this.size += part.length
      return
    }
    const held = Buffer.concat([...this.chunks.slice(0, 2), part.subarray(0, EDGE_BYTES)])
    this.dropped = { bytes: this.size + part.length, head: held.subarray(0, EDGE_BYTES), tail: lastBytes(part) }
    this.chunks = []
    this.size = 0
  }

  private finish(): LineEvent {
    const dropped = this.dropped
    if (dropped !== undefined) {
      this.dropped = undefined
      return {
        _tag: "Oversized",
        bytes: dropped.bytes,
        head: dropped.head.toString("utf8"),
        tail: dropped.tail.toString("utf8").replace(/\r$/, "")
      }
    }
    const text = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/\r$/, "")
    this.chunks = []
    this.size = 0
    return { _tag: "Line", text }
  }
}

const lastBytes = (buf: Buffer): Buffer => (buf.length <= EDGE_BYTES ? buf : buf.subarray(buf.length - EDGE_BYTES))

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`

/**
 * The id of the response a dropped line carried, when its ends show one: `"id"` as the first
 * member after `jsonrpc` (Python servers), or as the last member (the TypeScript SDK). A line
 * with a `method` near its start is a request or notification from the server, not a response.
 */
export const responseIdOf = (head: string, tail: string): string | number | undefined => {
  if (/^\s*\{[^]{0,64}"method"\s*:/.test(head)) return undefined
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,`).exec(head)
  const last = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`).exec(tail)
  const raw = first?.[1] ?? last?.[1]
  if (raw === undefined) return undefined
  try {
    return JSON.parse(raw) as string | number
  } catch {
    return undefined
  }
}
