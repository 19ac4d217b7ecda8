/**
 * The answers of a message whose run was cut short (a signal while MCP servers started, or a
 * command stopped while its calls ran): a call that finished keeps its result, every other one
 * gets the interrupt's result, so that each tool_use is answered whatever ended the command.
 */
import { Interrupted, toModelText } from "../Errors.js"
import { toolResult, type ToolUseBlock } from "../Messages.js"
import type { CallOutcome } from "../services/CallPipeline.js"
import type { MessageRun, SchedulerEvent, TimelineEntry } from "../services/Scheduler.js"
import { newSession } from "../Session.js"

/** Collects the calls answered so far from the scheduler's events. */
export class AnsweredCalls {
  readonly outcomes = new Map<string, { readonly outcome: CallOutcome; readonly atMs: number }>()
  readonly started = new Map<string, { readonly batch: number; readonly atMs: number }>()

  record(event: SchedulerEvent): void {
    if (event._tag === "CallStarted") this.started.set(event.toolUseId, { batch: event.batch, atMs: event.atMs })
    else if (event._tag === "CallFinished") {
      this.outcomes.set(event.outcome.toolUseId, { outcome: event.outcome, atMs: event.atMs })
    }
  }
}

const interruptedOutcome = (block: ToolUseBlock): CallOutcome => {
  const error = new Interrupted({ toolName: block.name })
  return {
    toolUseId: block.id,
    toolName: block.name,
    result: toolResult(block.id, toModelText(error), true),
    error,
    input: block.input,
    newMessages: [],
    remindersBefore: [],
    remindersAfter: [],
    notices: []
  }
}

export const cutShortRun = (blocks: ReadonlyArray<ToolUseBlock>, answered: AnsweredCalls, cwd: string): MessageRun => {
  // times are the scheduler's (from the message's start); an unfinished call ends with the last one known
  const lastMs = Math.max(0, ...[...answered.started.values(), ...answered.outcomes.values()].map((e) => e.atMs))
  const outcomes = blocks.map((block) => answered.outcomes.get(block.id)?.outcome ?? interruptedOutcome(block))
  const timeline = blocks.map((block, index): TimelineEntry => {
    const started = answered.started.get(block.id)
    const finished = answered.outcomes.get(block.id)
    return {
      toolUseId: block.id,
      toolName: block.name,
      index,
      batch: started?.batch,
      startedMs: started?.atMs,
      endedMs: finished?.atMs ?? lastMs,
      outcome: finished === undefined
        ? "interrupted"
        : finished.outcome.error === undefined
        ? "ok"
        : finished.outcome.error._tag === "Interrupted"
        ? "interrupted"
        : "error",
      concurrencySafe: false
    }
  })
  return {
    outcomes,
    message: { role: "user", content: outcomes.map((o) => o.result) },
    session: newSession({ cwd, permissionMode: "default" }),
    timeline,
    interrupted: true,
    halt: undefined
  }
}
