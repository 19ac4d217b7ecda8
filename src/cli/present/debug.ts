/**
 * `--debug`: what happens inside a run, on stderr — each model request and how it ended, each
 * call with its permission decision and outcome.
 */
import { behaviorOf, describeReason } from "../../Permission.js"
import type { AgentEvent } from "../../services/Agent.js"
import type { SchedulerEvent } from "../../services/Scheduler.js"

export const debugLine = (text: string): string => `[DEBUG] ${text}\n`

export const debugLinesOf = (event: AgentEvent): ReadonlyArray<string> => {
  switch (event._tag) {
    case "TurnStarted":
      return [`turn ${event.turn}: model request`]
    case "Retrying":
      return [
        `turn ${event.turn}: request failed (${event.info.reason}); retry ${event.info.attempt} of ${
          event.info.maxAttempts - 1
        } in ${event.info.delayMs} ms`
      ]
    case "AssistantMessage": {
      const u = event.usage
      return [
        `turn ${event.turn}: stop_reason ${
          event.stopReason ?? "none"
        }; tokens in ${u.input_tokens} (cache read ${u.cache_read_input_tokens}, write ${u.cache_creation_input_tokens}), out ${u.output_tokens}`
      ]
    }
    case "TurnFailed":
      return [`turn ${event.turn}: ${event.error._tag}: ${event.error.message}`]
    case "Call":
      return callDebugLinesOf(event.event)
    default:
      return []
  }
}

/** A call's start, and its permission decision and outcome when it ends (`run`, `exec` and `call`). */
export const callDebugLinesOf = (e: SchedulerEvent): ReadonlyArray<string> => {
  if (e._tag === "CallStarted") return [`call ${e.toolUseId}: started in batch ${e.batch}`]
  if (e._tag !== "CallFinished") return []
  const o = e.outcome
  const decision = o.decision === undefined
    ? "no permission decision"
    : `permission ${behaviorOf(o.decision)} (${describeReason(o.decision.reason)})`
  return [`call ${o.toolUseId} ${o.toolName}: ${decision}; ${o.error === undefined ? "ok" : `${o.error._tag}`}`]
}
