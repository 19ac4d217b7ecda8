/**
 * The human view of an agent run: the model's text as it streams, a line for each call as it
 * starts (with its batch), live progress on a status line (terminals only), then the results of
 * each message grouped by concurrent batch, in tool_use order, with an optional timeline.
 * Everything the model or a tool wrote is shown with control characters escaped.
 */
import { Effect } from "effect"
import { onAsking } from "../asking.js"
import { bold, dim, escapeInvisible, green, red, renderTimeline, renderUse } from "../render.js"
import { LiveCalls } from "./liveCalls.js"
import { contentText } from "../../Messages.js"
import type { CallOutcome } from "../../services/CallPipeline.js"
import type { MessageRun, TimelineEntry } from "../../services/Scheduler.js"
import type { ToolPool } from "../../services/ToolRegistry.js"
import type { PromptOutcome, AgentEvent } from "../../services/Agent.js"

export interface TextPresenterOptions {
  readonly out: NodeJS.WritableStream & { readonly isTTY?: boolean }
  readonly pool: ToolPool
  readonly timeline: boolean
}

const MAX_RESULT_LINES = 12

const ms = (n: number) => (n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`)

export const describeStop = (outcome: PromptOutcome): string => {
  switch (outcome.stop) {
    case "end_turn":
      return "done"
    case "max_turns":
      return "stopped: the turn limit (--max-turns) was reached"
    case "interrupted":
      return "interrupted"
    case "refusal":
      return "the model declined to continue (stop_reason: refusal)"
    case "max_tokens":
      return "stopped: the model's reply hit its output limit (stop_reason: max_tokens)"
    case "context_window":
      return "stopped: the conversation no longer fits the model's context window"
    case "hook_stop":
      return `stopped by a hook${outcome.halt?.reason ? `: ${outcome.halt.reason}` : ""}`
    case "prompt_blocked":
      return "the prompt was blocked by a UserPromptSubmit hook"
    case "tool_deferred":
      return `stopped: a PreToolUse hook deferred ${outcome.halt?.toolUse?.name ?? "a call"}`
    case "error":
      return `error: ${outcome.error?.message ?? "unknown"}`
  }
}

export class TextPresenter {
  private atLineStart = true
  private readonly inputs = new Map<string, { name: string; input: unknown }>()
  private readonly live: LiveCalls
  private asking = 0
  private held: Array<string> = []
  private readonly unsubscribe: () => void

  constructor(private readonly options: TextPresenterOptions) {
    this.live = new LiveCalls(options.out, () => this.atLineStart && this.asking === 0)
    this.unsubscribe = onAsking({
      started: () => {
        if (this.asking++ === 0) {
          this.live.askingStarted()
          if (!this.atLineStart) {
            this.options.out.write("\n")
            this.atLineStart = true
          }
        }
      },
      ended: () => {
        if (--this.asking > 0) return
        const held = this.held.join("")
        this.held = []
        if (held !== "") this.options.out.write(held)
        this.live.askingEnded()
      }
    })
  }

  private get tty(): boolean {
    return this.options.out.isTTY === true
  }

  /** Stops listening to the terminal's questions. */
  close() {
    this.unsubscribe()
  }

  /** Output waits while a question is on the terminal, then follows in order. */
  private raw(text: string) {
    if (this.asking > 0) this.held.push(text)
    else this.options.out.write(text)
  }

  /** Writes whole lines (after ending a partial line of streamed text), above the running calls. */
  line(text: string) {
    if (this.asking === 0) this.live.erase()
    if (!this.atLineStart) this.raw("\n")
    this.raw(`${text}\n`)
    this.atLineStart = true
    if (this.asking === 0) this.live.draw()
  }

  private label(name: string, input: unknown) {
    return renderUse(this.options.pool.lookup(name), name, input)
  }

  readonly onEvent = (event: AgentEvent): Effect.Effect<void> =>
    Effect.sync(() => {
      switch (event._tag) {
        case "Model":
          if (event.event._tag === "TextDelta") {
            const text = escapeInvisible(event.event.text)
            if (text !== "") {
              if (this.asking === 0) this.live.erase()
              this.raw(text)
              this.atLineStart = text.endsWith("\n")
              if (this.atLineStart && this.asking === 0) this.live.draw()
            }
          } else if (event.event._tag === "BlockStop" && event.event.block.type === "text" && !this.atLineStart) {
            this.raw("\n")
            this.atLineStart = true
            if (this.asking === 0) this.live.draw()
          }
          return
        case "Retrying":
          this.line(
            dim(
              `… the API request failed (${event.info.reason}); retrying in ${ms(event.info.delayMs)} (attempt ${
                event.info.attempt + 1
              } of ${event.info.maxAttempts})`
            )
          )
          return
        case "Call": {
          const e = event.event
          if (e._tag === "CallArrived") {
            this.inputs.set(e.toolUseId, { name: e.toolName, input: e.input })
          } else if (e._tag === "CallStarted") {
            const name = this.nameOf(e.toolUseId)
            // at a terminal the running calls are drawn in place; elsewhere each start is a line
            if (!this.tty) this.line(dim(`  ◌ ${name.label}  · batch ${e.batch}`))
            this.live.start(e.toolUseId, name.label, e.batch)
            if (!this.atLineStart) this.live.erase()
          } else if (e._tag === "CallProgress") {
            const data = e.progress.data as { readonly tail?: unknown } | undefined
            const tail = Array.isArray(data?.tail)
              ? data.tail.filter((l): l is string => typeof l === "string")
              : undefined
            this.live.progress(e.toolUseId, escapeInvisible(e.progress.message), tail)
          } else if (e._tag === "CallFinished") {
            this.live.finish(e.outcome.toolUseId)
          }
          return
        }
        case "ToolResults":
          this.renderResults(event.run)
          return
        case "TurnFailed":
          this.line(red(`✗ ${event.error.message}`))
          return
        case "Notice":
          this.line(dim(`! ${event.text}`))
          return
        default:
          return
      }
    })

  private nameOf(toolUseId: string) {
    const known = this.inputs.get(toolUseId)
    if (known === undefined) return { label: toolUseId, short: toolUseId }
    return { label: this.label(known.name, known.input), short: known.name }
  }

  private renderOne(outcome: CallOutcome, timing: TimelineEntry | undefined, indent: string): Array<string> {
    const ok = outcome.error === undefined
    const marker = ok ? green("●") : red("●")
    // the call's own time: a person answering a question does not count
    const took = this.live.durationOf(outcome.toolUseId) ??
      (timing?.startedMs === undefined ? undefined : timing.endedMs - timing.startedMs)
    const when = took === undefined ? dim(` [${timing?.outcome ?? "not run"}]`) : dim(` ${ms(took)}`)
    const text = escapeInvisible(contentText(outcome.result.content))
    const lines = text.split("\n")
    const shown = lines.slice(0, MAX_RESULT_LINES)
    const body = shown.map((l, i) => `${indent}${i === 0 ? "  ⎿  " : "     "}${ok ? l : red(l)}`)
    if (lines.length > shown.length) body.push(dim(`${indent}     … +${lines.length - shown.length} lines`))
    const notices = outcome.notices.map((n) => dim(`${indent}     ! ${escapeInvisible(n)}`))
    return [`${indent}${marker} ${this.label(outcome.toolName, outcome.input)}${when}`, ...body, ...notices]
  }

  /** The message's results grouped by the concurrent batch they ran in, in tool_use order. */
  renderResults(run: MessageRun) {
    const lines: Array<string> = []
    let i = 0
    while (i < run.outcomes.length) {
      const batch = run.timeline[i]?.batch
      let j = i + 1
      while (batch !== undefined && j < run.outcomes.length && run.timeline[j]?.batch === batch) j++
      const group = run.timeline.slice(i, j)
      if (j - i > 1) {
        const from = Math.min(...group.map((t) => t.startedMs ?? 0))
        const to = Math.max(...group.map((t) => t.endedMs))
        lines.push(bold(`⏺ ${j - i} calls ran in parallel`) + dim(` (batch ${batch}, ${ms(to - from)})`))
        for (let k = i; k < j; k++) lines.push(...this.renderOne(run.outcomes[k]!, run.timeline[k], "  "))
      } else {
        lines.push(...this.renderOne(run.outcomes[i]!, run.timeline[i], ""))
      }
      i = j
    }
    const reminders = run.message.content.filter((b) => b.type === "text")
    for (const r of reminders) lines.push(dim(escapeInvisible(r.type === "text" ? r.text : "")))
    if (this.options.timeline && run.timeline.length > 0) lines.push(renderTimeline(run.timeline))
    if (run.interrupted) lines.push(dim("(interrupted)"))
    if (run.halt !== undefined) lines.push(dim(`(stopped: ${escapeInvisible(run.halt.reason)})`))
    this.line(lines.join("\n"))
  }

  /** The last line of a prompt. */
  readonly promptEnded = (outcome: PromptOutcome, durationMs: number) =>
    Effect.sync(() => {
      const usage = outcome.usage
      const cached = usage.cache_read_input_tokens > 0 ? `, ${usage.cache_read_input_tokens} cached` : ""
      const summary = `${describeStop(outcome)} · ${outcome.turns} turn${outcome.turns === 1 ? "" : "s"} · ${
        ms(durationMs)
      } · ${usage.input_tokens} in${cached} / ${usage.output_tokens} out tokens`
      this.line(outcome.stop === "error" ? red(summary) : dim(summary))
    })
}
