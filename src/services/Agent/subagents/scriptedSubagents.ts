/**
 * Scripted subagents: a scripted session addresses a subagent's conversation with lines
 * `{"type":"subagent_turn","agent":"<key>", ...}`, where the rest is a `turn` line (`content`,
 * `events` or `error`) and `<key>` is the Agent call's `description` (or, failing that, its
 * `prompt`). Each key has its own sequence of turns, taken in order by the subagents with that
 * key, so concurrent subagents get their own turns whatever order their requests come in. The
 * main script ignores these lines (unknown line types are skipped), and a transcript records a
 * subagent's model turns the same way, so a recording with subagents replays.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import { ScriptError, parseScript, type Script } from "../../ModelClient.js"
import { isRecord } from "../../../internal/json.js"

export const SUBAGENT_TURN = "subagent_turn"

/**
 * The subagent scripts of a file, by key. Each keeps the file's line numbers (in errors), and the
 * recorded working directory of a transcript (`session_start.cwd`) for replays over a copy.
 */
export const parseSubagentScripts = (
  file: string,
  text: string
): Either.Either<ReadonlyMap<string, Script>, ScriptError> => {
  const lines = text.split("\n")
  const keyed = new Map<string, Array<string>>()
  let recordedCwd: string | undefined
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "") continue
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      continue // the main script reports bad lines
    }
    if (!isRecord(value)) continue
    if (value.type === "session_start" && typeof value.cwd === "string") recordedCwd = value.cwd
    if (value.type !== SUBAGENT_TURN) continue
    if (typeof value.agent !== "string" || value.agent === "") {
      return Either.left(
        new ScriptError({
          file,
          line: i + 1,
          reason: "a subagent_turn line needs `agent`: the Agent call's description (or prompt) it answers"
        })
      )
    }
    let slots = keyed.get(value.agent)
    if (slots === undefined) {
      slots = new Array<string>(lines.length).fill("")
      keyed.set(value.agent, slots)
    }
    slots[i] = JSON.stringify({ ...value, type: "turn" })
  }
  const scripts = new Map<string, Script>()
  for (const [key, slots] of keyed) {
    const parsed = parseScript(`${file}#${key}`, slots.join("\n"))
    if (Either.isLeft(parsed)) {
      const { line, reason } = parsed.left
      return Either.left(new ScriptError(line === undefined ? { file, reason } : { file, line, reason }))
    }
    scripts.set(key, { ...parsed.right, recordedCwd })
  }
  return Either.right(scripts)
}

export const loadSubagentScripts = (file: string): Effect.Effect<ReadonlyMap<string, Script>, ScriptError> =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (e) =>
      new ScriptError({
        file,
        reason: (e as NodeJS.ErrnoException).code === "ENOENT"
          ? "no such file"
          : `cannot read: ${(e as Error).message}`
      })
  }).pipe(Effect.flatMap((text) => parseSubagentScripts(file, text)))
