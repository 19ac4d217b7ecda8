/**
 * The running calls, drawn in place at a terminal: one line per call with a spinner, its elapsed
 * time and (for a command) its last lines of output; calls running together under one header.
 * The block is redrawn (not appended) a few times a second and erased before any other output.
 * Time spent waiting for a person's answer is not counted in a call's time.
 */
import { escapeInvisible } from "../render.js"

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const FRAME_MS = 120
const TAIL_LINES = 2

interface Running {
  readonly label: string
  readonly batch: number
  readonly startedAt: number
  progress: string
  tail: ReadonlyArray<string>
}

export interface LiveOutput {
  readonly write: (text: string) => unknown
  readonly isTTY?: boolean
  readonly columns?: number
  readonly rows?: number
}

export const formatElapsed = (
  ms: number
): string => (ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1000).toFixed(1)} s`)

export class LiveCalls {
  private readonly running = new Map<string, Running>()
  private readonly finished = new Map<string, { readonly startedAt: number; readonly endedAt: number }>()
  /** Intervals someone was being asked something (epoch ms); the last may be open. */
  private readonly asked: Array<{ start: number; end: number | undefined }> = []
  private drawn = 0
  private frame = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private hidden = 0

  constructor(
    private readonly out: LiveOutput,
    /** False while the owner's output stands mid-line (streamed text): the block waits. */
    private readonly canDraw: () => boolean = () => true,
    private readonly now: () => number = Date.now
  ) {}

  private get live(): boolean {
    return this.out.isTTY === true
  }

  /** Time of [from, to] not spent asking. */
  private working(from: number, to: number): number {
    let asked = 0
    for (const a of this.asked) {
      const start = Math.max(from, a.start)
      const end = Math.min(to, a.end ?? to)
      if (end > start) asked += end - start
    }
    return Math.max(0, to - from - asked)
  }

  start(id: string, label: string, batch: number) {
    this.running.set(id, { label, batch, startedAt: this.now(), progress: "", tail: [] })
    this.schedule()
  }

  progress(id: string, message: string, tail?: ReadonlyArray<string>) {
    const r = this.running.get(id)
    if (r === undefined) return
    r.progress = message
    if (tail !== undefined) r.tail = tail
  }

  finish(id: string) {
    const r = this.running.get(id)
    if (r === undefined) return
    this.running.delete(id)
    this.finished.set(id, { startedAt: r.startedAt, endedAt: this.now() })
    if (this.running.size === 0) this.stop()
  }

  /** A call's time without the time spent asking (undefined for a call never seen running). */
  durationOf(id: string): number | undefined {
    const f = this.finished.get(id)
    return f === undefined ? undefined : this.working(f.startedAt, f.endedAt)
  }

  askingStarted() {
    this.asked.push({ start: this.now(), end: undefined })
    this.hide()
  }

  askingEnded() {
    const open = this.asked.at(-1)
    if (open !== undefined && open.end === undefined) open.end = this.now()
    this.show()
  }

  /** Stop drawing (something else owns the terminal's last lines) until `show`. */
  hide() {
    this.hidden++
    this.erase()
  }

  show() {
    this.hidden = Math.max(0, this.hidden - 1)
    if (this.hidden === 0) this.draw()
  }

  /** Erases the block; the caller writes, then calls `draw`. */
  erase() {
    if (this.drawn === 0) return
    this.out.write(`\x1b[${this.drawn}A\r\x1b[J`)
    this.drawn = 0
  }

  private schedule() {
    if (!this.live) return
    if (this.timer === undefined) {
      this.timer = setInterval(() => {
        this.frame++
        this.draw()
      }, FRAME_MS)
      this.timer.unref?.()
    }
    this.draw()
  }

  private stop() {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    this.erase()
  }

  /** The block's lines (no newlines), each cut to the terminal's width. */
  lines(): Array<string> {
    const width = Math.max(20, (this.out.columns ?? 100) - 1)
    const maxLines = Math.max(3, Math.floor((this.out.rows ?? 24) / 2))
    const now = this.now()
    const spin = SPINNER[this.frame % SPINNER.length]!
    const cut = (text: string) => (text.length > width ? `${text.slice(0, width - 1)}…` : text)
    const calls = [...this.running.values()]
    const out: Array<string> = []
    const tailOf = (r: Running, indent: string) =>
      r.tail.slice(-TAIL_LINES).map((l) => cut(`${indent}│ ${escapeInvisible(l)}`))
    if (calls.length === 1) {
      const r = calls[0]!
      out.push(cut(`${spin} ${r.label} · ${formatElapsed(this.working(r.startedAt, now))}`), ...tailOf(r, "  "))
    } else if (calls.length > 1) {
      const since = Math.min(...calls.map((r) => r.startedAt))
      const batches = new Set(calls.map((r) => r.batch))
      const batchText = batches.size === 1 ? ` (batch ${calls[0]!.batch})` : ""
      out.push(
        cut(
          `${spin} ${calls.length} calls running in parallel${batchText} · ${formatElapsed(this.working(since, now))}`
        )
      )
      for (const r of calls) {
        out.push(cut(`  ◦ ${r.label} · ${formatElapsed(this.working(r.startedAt, now))}`), ...tailOf(r, "    "))
      }
    }
    return out.length > maxLines
      ? [...out.slice(0, maxLines - 1), cut(`  … ${out.length - maxLines + 1} more lines`)]
      : out
  }

  /** Redraws the block in place. */
  draw() {
    if (!this.live || this.hidden > 0 || !this.canDraw()) return
    const lines = this.lines()
    this.erase()
    if (lines.length === 0) return
    this.out.write(`${lines.join("\n")}\n`)
    this.drawn = lines.length
  }
}
