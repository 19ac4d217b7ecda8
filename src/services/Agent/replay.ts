/**
 * Comparing a replay's tool results with the recorded ones, call by call. Paths are compared with
 * the working and session directories of each run replaced by placeholders, so a replay over a
 * copy of the folder compares equal.
 */
import { contentText } from "../../Messages.js"
import type { AgentEvent } from "./events.js"
import { normalizeResult, type RecordedCall } from "./transcript.js"

export interface ReplayedCall {
  readonly toolUseId: string
  readonly name: string
  readonly result: unknown
  readonly isError: boolean
}

export interface ReplayDifference {
  readonly tool_use_id: string
  readonly name: string
  /** The transcript line of the recorded call. */
  readonly line: number | null
  readonly recorded: string | null
  readonly replayed: string | null
}

export interface ReplayReport {
  readonly calls: number
  readonly identical: number
  readonly differences: ReadonlyArray<ReplayDifference>
}

export const replayedCallsOf = (event: AgentEvent): ReadonlyArray<ReplayedCall> =>
  event._tag === "ToolResults"
    ? event.run.outcomes.map((o) => ({ toolUseId: o.toolUseId, name: o.toolName, result: o.result.content, isError: o.result.is_error === true }))
    : []

const shown = (result: unknown): string => (typeof result === "string" ? result : contentText(result as never))

export const compareReplay = (
  recorded: ReadonlyArray<RecordedCall>,
  replayed: ReadonlyArray<ReplayedCall>,
  recordedDirs: ReadonlyArray<readonly [string, string]>,
  replayDirs: ReadonlyArray<readonly [string, string]>
): ReplayReport => {
  const now = new Map(replayed.map((c) => [c.toolUseId, c] as const))
  const differences: Array<ReplayDifference> = []
  let identical = 0
  for (const call of recorded) {
    const again = now.get(call.toolUseId)
    now.delete(call.toolUseId)
    const before = normalizeResult(call.result, recordedDirs)
    const after = again === undefined ? undefined : normalizeResult(again.result, replayDirs)
    if (after !== undefined && before === after && call.isError === again!.isError) identical++
    else differences.push({ tool_use_id: call.toolUseId, name: call.name, line: call.line, recorded: shown(call.result), replayed: again === undefined ? null : shown(again.result) })
  }
  for (const extra of now.values()) {
    differences.push({ tool_use_id: extra.toolUseId, name: extra.name, line: null, recorded: null, replayed: shown(extra.result) })
  }
  return { calls: recorded.length, identical, differences }
}
