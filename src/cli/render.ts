/**
 * Text for people: each call with its result, and a small Gantt chart of the timeline.
 */
import { contentText } from "../Messages.js"
import type { CallOutcome } from "../services/CallPipeline.js"
import type { TimelineEntry } from "../services/Scheduler.js"
import type { AnyTool } from "../Tool.js"

const useColor = () => process.stdout.isTTY === true && process.env.NO_COLOR === undefined
const paint = (code: string) => (text: string) => (useColor() ? `\x1b[${code}m${text}\x1b[0m` : text)
export const red = paint("31")
export const green = paint("32")
export const dim = paint("2")
export const bold = paint("1")

/** Invisible and control characters shown escaped, so what people read is what runs. */
export const escapeInvisible = (text: string): string =>
  text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f\u00a0\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]/g,
    (ch) => {
      if (ch === "\r") return "\\r"
      if (ch === "\t") return "\\t"
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`
    }
  )

const MAX_RESULT_LINES = 20

const indentResult = (text: string): string => {
  const lines = text.split("\n")
  const shown = lines.slice(0, MAX_RESULT_LINES)
  const more = lines.length - shown.length
  return [
    ...shown.map((line, i) => `${i === 0 ? "  ⎿  " : "     "}${line}`),
    ...(more > 0 ? [dim(`     … +${more} lines`)] : [])
  ].join("\n")
}

export const renderUse = (tool: AnyTool | undefined, name: string, input: unknown): string => {
  let args: string
  try {
    args = tool === undefined ? JSON.stringify(input) ?? "" : tool.renderUse(input)
  } catch {
    args = JSON.stringify(input) ?? ""
  }
  return `${bold(name)}(${escapeInvisible(args)})`
}

export const renderOutcome = (outcome: CallOutcome, tool: AnyTool | undefined, timing?: TimelineEntry): string => {
  const marker = outcome.error === undefined ? green("●") : red("●")
  const when = timing?.startedMs === undefined
    ? dim(`  [${timing?.outcome ?? "done"}]`)
    : dim(`  [batch ${timing.batch} · ${timing.startedMs}–${timing.endedMs} ms]`)
  const text = contentText(outcome.result.content)
  const body = outcome.error === undefined ? text : red(text)
  const notices = outcome.notices.map((n) => dim(`     ! ${n}`))
  return [`${marker} ${renderUse(tool, outcome.toolName, outcome.input)}${when}`, indentResult(body), ...notices].join(
    "\n"
  )
}

/** One row per call: where in the message's time it ran, and in which concurrent set. */
export const renderTimeline = (timeline: ReadonlyArray<TimelineEntry>, width = 48): string => {
  const end = Math.max(1, ...timeline.map((t) => t.endedMs))
  const nameWidth = Math.min(24, Math.max(...timeline.map((t) => t.toolName.length), 4))
  const scale = (ms: number) => Math.min(width, Math.round((ms / end) * width))
  const rows = timeline.map((t) => {
    const name = t.toolName.padEnd(nameWidth).slice(0, nameWidth)
    if (t.startedMs === undefined) {
      return `#${String(t.index + 1).padStart(2)} ${name} │${" ".repeat(width)}│ ${
        "—".padStart(5)
      } never ran  ${t.outcome}`
    }
    const from = scale(t.startedMs)
    const to = Math.max(from + 1, scale(t.endedMs))
    const bar = " ".repeat(from) + "█".repeat(Math.min(width, to) - from) + " ".repeat(Math.max(0, width - to))
    return `#${String(t.index + 1).padStart(2)} ${name} │${bar}│ batch ${t.batch} ${
      String(t.startedMs).padStart(5)
    }–${t.endedMs} ms  ${t.outcome}${t.concurrencySafe ? "" : dim(" (alone)")}`
  })
  return [
    dim(`timeline: ${end} ms, ${new Set(timeline.map((t) => t.batch).filter((b) => b !== undefined)).size} batch(es)`),
    ...rows
  ].join("\n")
}
