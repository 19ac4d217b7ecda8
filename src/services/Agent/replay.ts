/**
 * Comparing a replay's tool results with the recorded ones, call by call, as the model saw them:
 * the result and whether it was an error (paths compared with the working and session
 * directories of each run replaced by placeholders, so a replay over a copy of the folder
 * compares equal). A difference says where: the first line of the result that differs. Which
 * calls ran together depends on timing, and results reach the model in tool_use order whatever
 * the batches: a call that ran in another batch with the same result is identical, and listed
 * as rescheduled.
 */
import { contentText } from "../../Messages.js"
import type { AgentEvent } from "./events.js"
import { normalizeResult, type RecordedCall } from "./transcript.js"

export interface ReplayedCall {
  readonly toolUseId: string
  readonly name: string
  readonly result: unknown
  readonly isError: boolean
  readonly batch?: number | null
}

export interface ReplayDifference {
  readonly tool_use_id: string
  readonly name: string
  /** The transcript line of the recorded call. */
  readonly line: number | null
  readonly recorded: string | null
  readonly replayed: string | null
  /** The first line (1-based) where the results differ, with both versions of it. */
  readonly first_difference?: { readonly line: number; readonly recorded: string; readonly replayed: string }
  /** Set when the call ran in another parallel batch than recorded. */
  readonly batch?: { readonly recorded: number | null; readonly replayed: number | null }
}

export interface ReplayReport {
  readonly calls: number
  readonly identical: number
  readonly differences: ReadonlyArray<ReplayDifference>
  /** Identical calls that ran in another parallel batch than recorded (the model saw the same). */
  readonly rescheduled: ReadonlyArray<
    {
      readonly tool_use_id: string
      readonly name: string
      readonly recorded: number | null
      readonly replayed: number | null
    }
  >
}

export const replayedCallsOf = (event: AgentEvent): ReadonlyArray<ReplayedCall> =>
  event._tag === "ToolResults"
    ? event.run.outcomes.map((o, i) => ({
      toolUseId: o.toolUseId,
      name: o.toolName,
      result: o.result.content,
      isError: o.result.is_error === true,
      batch: event.run.timeline[i]?.batch ?? null
    }))
    : []

const shown = (result: unknown): string => (typeof result === "string" ? result : contentText(result as never))

/** The first line where two texts differ (1-based), with both lines; undefined when equal. */
export const firstDifference = (recorded: string, replayed: string): ReplayDifference["first_difference"] => {
  if (recorded === replayed) return undefined
  const a = recorded.split("\n")
  const b = replayed.split("\n")
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return { line: i + 1, recorded: a[i] ?? "(no such line)", replayed: b[i] ?? "(no such line)" }
  }
  return undefined
}

export const compareReplay = (
  recorded: ReadonlyArray<RecordedCall>,
  replayed: ReadonlyArray<ReplayedCall>,
  recordedDirs: ReadonlyArray<readonly [string, string]>,
  replayDirs: ReadonlyArray<readonly [string, string]>
): ReplayReport => {
  const now = new Map(replayed.map((c) => [c.toolUseId, c] as const))
  const differences: Array<ReplayDifference> = []
  const rescheduled: Array<ReplayReport["rescheduled"][number]> = []
  let identical = 0
  for (const call of recorded) {
    const again = now.get(call.toolUseId)
    now.delete(call.toolUseId)
    const before = normalizeResult(call.result, recordedDirs)
    const after = again === undefined ? undefined : normalizeResult(again.result, replayDirs)
    const sameBatch = again === undefined || call.batch === undefined || again.batch === undefined ||
      call.batch === again.batch
    if (after !== undefined && before === after && call.isError === again!.isError) {
      identical++
      if (!sameBatch) {
        rescheduled.push({
          tool_use_id: call.toolUseId,
          name: call.name,
          recorded: call.batch ?? null,
          replayed: again!.batch ?? null
        })
      }
      continue
    }
    const first = after === undefined
      ? undefined
      : firstDifference(
        shown(normalizeResultText(call.result, recordedDirs)),
        shown(normalizeResultText(again!.result, replayDirs))
      )
    differences.push({
      tool_use_id: call.toolUseId,
      name: call.name,
      line: call.line,
      recorded: shown(call.result),
      replayed: again === undefined ? null : shown(again.result),
      ...(first === undefined ? {} : { first_difference: first }),
      ...(sameBatch ? {} : { batch: { recorded: call.batch ?? null, replayed: again?.batch ?? null } })
    })
  }
  for (const extra of now.values()) {
    differences.push({
      tool_use_id: extra.toolUseId,
      name: extra.name,
      line: null,
      recorded: null,
      replayed: shown(extra.result)
    })
  }
  return { calls: recorded.length, identical, differences, rescheduled }
}

/** A result's text with the run's directories replaced (text results stay text). */
const normalizeResultText = (result: unknown, dirs: ReadonlyArray<readonly [string, string]>): string =>
  normalizeResult(shown(result), dirs)
