/**
 * What the agent loop reports while it works, in order, for renderers and `stream-json`.
 */
import type { ModelError, ModelMessage } from "../ModelClient.js"
import type { ModelEvent, RetryInfo, Usage } from "../../ModelEvents.js"
import type { MessageRun, SchedulerEvent } from "../Scheduler.js"

export type AgentEvent =
  | { readonly _tag: "TurnStarted"; readonly turn: number }
  | { readonly _tag: "Retrying"; readonly turn: number; readonly info: RetryInfo }
  /** Everything the model streams except raw events (text deltas, block starts and stops, stop reason). */
  | { readonly _tag: "Model"; readonly turn: number; readonly event: Exclude<ModelEvent, { readonly _tag: "Raw" }> }
  /** A scheduler event; `atMs` is wall-clock time (epoch ms). */
  | { readonly _tag: "Call"; readonly turn: number; readonly event: SchedulerEvent; readonly atMs: number }
  | {
    readonly _tag: "AssistantMessage"
    readonly turn: number
    readonly message: ModelMessage | undefined
    readonly stopReason: string | undefined
    readonly usage: Usage
  }
  | { readonly _tag: "ToolResults"; readonly turn: number; readonly message: ModelMessage; readonly run: MessageRun }
  | { readonly _tag: "TurnFailed"; readonly turn: number; readonly error: ModelError }
  /** Something the person should know that the model does not see (e.g. a skipped tool message). */
  | { readonly _tag: "Notice"; readonly turn: number; readonly text: string }
