/**
 * Machine-readable output of `toolgate run -p`: `json` prints one result object at the end;
 * `stream-json` prints one JSON object per line as things happen (init, assistant messages, call
 * events, tool results, retries, errors) and the same result object last. The shapes follow
 * Claude Code's print mode (`type: "result"`, `subtype`, `is_error`, `result`, `num_turns`,
 * `session_id`, `usage`) with toolgate's call records added.
 */
import { Effect } from "effect"
import { UnparsableInput } from "../../Messages.js"
import { describeReason } from "../../Permission.js"
import type { PromptOutcome } from "../../services/Agent.js"
import type { AgentEvent } from "../../services/Agent/events.js"

export interface RunInfo {
  readonly sessionId: string
  readonly model: string
  readonly cwd: string
  readonly permissionMode: string
  readonly transcript: string
  readonly tools: ReadonlyArray<string>
}

export interface CallRecord {
  readonly turn: number
  readonly tool_use_id: string
  readonly name: string
  readonly input: unknown
  readonly batch: number | null
  readonly started_ms: number | null
  readonly ended_ms: number
  readonly outcome: string
  readonly is_error: boolean
  readonly error: string | null
  readonly decision: { readonly behavior: string; readonly reason: string } | null
}

const json = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v instanceof UnparsableInput ? { unparsable_input: v.text, reason: v.reason } : v))

/** The call records of a ToolResults event. */
export const callRecordsOf = (event: Extract<AgentEvent, { _tag: "ToolResults" }>): Array<CallRecord> =>
  event.run.outcomes.map((o, i) => {
    const t = event.run.timeline[i]
    return {
      turn: event.turn,
      tool_use_id: o.toolUseId,
      name: o.toolName,
      input: o.input,
      batch: t?.batch ?? null,
      started_ms: t?.startedMs ?? null,
      ended_ms: t?.endedMs ?? 0,
      outcome: t?.outcome ?? "ok",
      is_error: o.result.is_error === true,
      error: o.error?._tag ?? null,
      decision: o.decision === undefined ? null : { behavior: o.decision.behavior, reason: describeReason(o.decision.reason) }
    }
  })

export const isErrorOutcome = (outcome: PromptOutcome): boolean => outcome.stop === "error" || outcome.stop === "max_turns"

export const resultObject = (outcome: PromptOutcome, info: RunInfo, calls: ReadonlyArray<CallRecord>, durationMs: number) => ({
  type: "result",
  subtype: outcome.stop === "error" ? "error_during_execution" : outcome.stop === "max_turns" ? "error_max_turns" : "success",
  is_error: isErrorOutcome(outcome),
  result: outcome.text,
  stop: outcome.stop,
  stop_reason: outcome.stopReason ?? null,
  num_turns: outcome.turns,
  duration_ms: durationMs,
  session_id: info.sessionId,
  model: info.model,
  cwd: outcome.conversation.session.cwd,
  usage: outcome.usage,
  error: outcome.error === undefined ? null : { type: outcome.error._tag, message: outcome.error.message },
  halt: outcome.halt ?? null,
  ...(outcome.stop === "tool_deferred" && outcome.halt?.toolUse !== undefined ? { deferred_tool_use: outcome.halt.toolUse } : {}),
  tool_calls: calls,
  transcript: info.transcript
})

/** Collects call records over a prompt (for both JSON formats). */
export class CallCollector {
  readonly calls: Array<CallRecord> = []
  readonly onEvent = (event: AgentEvent): Effect.Effect<void> =>
    Effect.sync(() => {
      if (event._tag === "ToolResults") this.calls.push(...callRecordsOf(event))
    })
}

export class StreamJsonPresenter {
  constructor(private readonly out: NodeJS.WritableStream) {}

  private emit(value: unknown) {
    this.out.write(`${json(value)}\n`)
  }

  readonly init = (info: RunInfo) =>
    Effect.sync(() =>
      this.emit({
        type: "system",
        subtype: "init",
        session_id: info.sessionId,
        model: info.model,
        cwd: info.cwd,
        permission_mode: info.permissionMode,
        tools: info.tools,
        transcript: info.transcript
      })
    )

  readonly onEvent = (event: AgentEvent): Effect.Effect<void> =>
    Effect.sync(() => {
      switch (event._tag) {
        case "AssistantMessage":
          if (event.message !== undefined) {
            this.emit({ type: "assistant", turn: event.turn, message: event.message, stop_reason: event.stopReason ?? null, usage: event.usage })
          }
          return
        case "ToolResults":
          this.emit({ type: "user", turn: event.turn, message: event.message })
          return
        case "Call": {
          const e = event.event
          if (e._tag === "CallStarted") {
            this.emit({ type: "tool_call", event: "started", turn: event.turn, tool_use_id: e.toolUseId, index: e.index, batch: e.batch, at: event.atMs })
          } else if (e._tag === "CallFinished") {
            this.emit({
              type: "tool_call",
              event: "finished",
              turn: event.turn,
              tool_use_id: e.outcome.toolUseId,
              name: e.outcome.toolName,
              is_error: e.outcome.result.is_error === true,
              at: event.atMs
            })
          } else if (e._tag === "CallProgress") {
            this.emit({ type: "tool_call", event: "progress", turn: event.turn, tool_use_id: e.toolUseId, message: e.progress.message, at: event.atMs })
          }
          return
        }
        case "Retrying":
          this.emit({ type: "system", subtype: "api_retry", turn: event.turn, attempt: event.info.attempt, max_attempts: event.info.maxAttempts, delay_ms: event.info.delayMs, reason: event.info.reason })
          return
        case "TurnFailed":
          this.emit({ type: "system", subtype: "error", turn: event.turn, error: { type: event.error._tag, message: event.error.message } })
          return
        case "Notice":
          this.emit({ type: "system", subtype: "notice", turn: event.turn, text: event.text })
          return
        default:
          return
      }
    })

  readonly result = (value: unknown) => Effect.sync(() => this.emit(value))
}

export const printJson = (out: NodeJS.WritableStream, value: unknown) =>
  Effect.sync(() => void out.write(`${JSON.stringify(JSON.parse(json(value)), null, 2)}\n`))
