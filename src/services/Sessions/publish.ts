/**
 * What the agent loop and the scheduler report, as the session's event stream shows it. Raw
 * stream events, block starts and usage deltas stay out; text arrives as deltas, each call as it
 * starts, progresses and finishes.
 */
import { Effect } from "effect"
import type { AgentEvent } from "../Agent.js"
import type { SchedulerEvent } from "../Scheduler.js"
import { toJsonValue } from "./json.js"
import type { RunControls } from "./run.js"
import { callAnsweredUnrun } from "./telemetry.js"

export const publishSchedulerEvent = (run: RunControls, turn: number, event: SchedulerEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "CallStarted":
      return run.events.emit("call_started", {
        turn,
        toolUseId: event.toolUseId,
        index: event.index,
        batch: event.batch
      })
    case "CallProgress":
      return run.events.emit("call_progress", {
        turn,
        toolUseId: event.toolUseId,
        progress: toJsonValue(event.progress)
      })
    case "CallFinished":
      return Effect.zipRight(
        // a resumed run replaying what an earlier run answered does not count it again
        run.isLive() ? callAnsweredUnrun(event.outcome) : Effect.void,
        run.events.emit("call_finished", {
          turn,
          toolUseId: event.outcome.toolUseId,
          name: event.outcome.toolName,
          isError: event.outcome.result.is_error === true,
          error: event.outcome.error?._tag ?? null,
          content: toJsonValue(event.outcome.result.content)
        })
      )
    default:
      return Effect.void
  }
}

export const publishAgentEvent = (run: RunControls, event: AgentEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "TurnStarted":
      return run.events.emit("turn_started", { turn: event.turn })
    case "Retrying":
      return run.events.emit("model_retry", { turn: event.turn, ...event.info })
    case "Model": {
      const e = event.event
      if (e._tag === "TextDelta") {
        return run.events.emit("text_delta", { turn: event.turn, index: e.index, text: e.text })
      }
      if (e._tag === "ThinkingDelta") {
        return run.events.emit("thinking_delta", { turn: event.turn, index: e.index, text: e.text })
      }
      if (e._tag === "BlockStop" && e.block.type === "tool_use") {
        return run.events.emit("tool_use", {
          turn: event.turn,
          id: e.block.id,
          name: e.block.name,
          input: toJsonValue(e.block.input)
        })
      }
      return Effect.void
    }
    case "Call":
      return publishSchedulerEvent(run, event.turn, event.event)
    case "AssistantMessage":
      return run.events.emit("assistant_message", {
        turn: event.turn,
        message: toJsonValue(event.message),
        stopReason: event.stopReason ?? null,
        usage: event.usage
      })
    case "ToolResults":
      return run.events.emit("tool_results", { turn: event.turn, message: toJsonValue(event.message) })
    case "TurnFailed":
      return run.events.emit("model_error", { turn: event.turn, error: event.error._tag, message: event.error.message })
    case "Notice":
      return run.events.emit("notice", { turn: event.turn, text: event.text })
  }
}
