/**
 * A subagent's records in the session's transcript: every line the nested loop writes, retyped
 * `subagent_<type>` (a `model_turn` becomes `subagent_turn`, which the scripted model replays for
 * that subagent) and tagged with `agent` (the routing key: the call's description), `agent_id`
 * and `agent_type`. Main-script readers ignore these lines, so the main conversation replays
 * as before. Lines are whole `writeSync` appends, so concurrent subagents never interleave
 * within a line.
 */
import type { Transcript } from "../transcript.js"
import { SUBAGENT_TURN } from "./scriptedSubagents.js"

export interface SubagentTag {
  readonly agent: string
  readonly agent_id: string
  readonly agent_type: string
  readonly parent_tool_use_id: string
}

export const subagentTranscript = (parent: Transcript, tag: SubagentTag): Transcript => ({
  path: parent.path,
  failure: parent.failure,
  write: (record) => {
    const type = String(record.type)
    return parent.write({ ...record, type: type === "model_turn" ? SUBAGENT_TURN : `subagent_${type}`, ...tag })
  }
})
