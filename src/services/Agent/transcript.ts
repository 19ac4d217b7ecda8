/**
 * The transcript of a session: one JSON object per line in `<sessionDir>/transcript.jsonl`.
 * Lines (all carry `type`; times are ISO strings, durations ms):
 * - `session_start`: version, session_id, cwd, model, toolgate version, options, tool names
 * - `user`: a prompt as sent (`message`)
 * - `model_turn`: the raw stream events of one request with their times (`events: [{at_ms, event}]`),
 *   the stop reason, usage, retries, and the error if the turn failed — what the scripted model replays
 * - `assistant`: the assistant message as it went back to the API
 * - `approval`: how an "ask" was answered (tool, input, answer)
 * - `tool_call`: one call: id, name, input, permission decision, batch, started/ended ms, outcome, result
 * - `tool_results`: the user message answering the assistant message
 * - `prompt_end`: why the model stopped (end_turn, max_turns, interrupted, …), turns, usage
 * - `session_end`
 * - `subagent_start`, `subagent_turn` (a subagent's `model_turn`), `subagent_tool_call`, … : a
 *   subagent's lines, tagged with `agent` (its description), `agent_id` and `agent_type`
 * A transcript is a valid script for the scripted model (`toolgate replay`, `--replay`).
 */
import { Effect, Either, Schema, type Scope } from "effect"
import { appendWhole } from "../../internal/appendWhole.js"
import { documentIssue, parseJsonText } from "../../internal/documentIssue.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { UnparsableInput } from "../../Messages.js"
import { ScriptError, parseScript, type Script } from "../ModelClient.js"

export const TRANSCRIPT_VERSION = 1
export const TRANSCRIPT_FILE = "transcript.jsonl"

export interface Transcript {
  readonly path: string
  readonly write: (record: Readonly<Record<string, unknown>>) => Effect.Effect<void>
  /** Why recording stopped (a write failed: a full disk, a file-size limit), if it did. */
  readonly failure: Effect.Effect<string | undefined>
}

/** JSON for transcripts: an input that never parsed is kept as its text. */
export const toJsonLine = (record: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(
    record,
    (_key, value: unknown) =>
      value instanceof UnparsableInput ? { unparsable_input: value.text, reason: value.reason } : value
  )

/**
 * Opens (appends to) a transcript file for the scope. Each record is one whole line or nothing:
 * a write that fails or stops short (ENOSPC, EFBIG) is cut back to the last whole line, recording
 * stops, and `failure` says why (the caller reports it; a session goes on without it).
 */
export const openTranscript = (file: string): Effect.Effect<Transcript, ScriptError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        fs.mkdirSync(path.dirname(file), { recursive: true })
        return fs.openSync(file, "a", 0o600)
      },
      catch: (e) => new ScriptError({ file, reason: `cannot open the transcript: ${(e as Error).message}` })
    }),
    (fd) => Effect.sync(() => fs.closeSync(fd))
  ).pipe(
    Effect.map((fd) => {
      let size = fs.fstatSync(fd).size
      let lines = 0
      let failure: string | undefined
      return {
        path: file,
        failure: Effect.sync(() => failure),
        write: (record) =>
          Effect.suspend(() => {
            if (failure !== undefined) return Effect.void
            const line = Buffer.from(`${toJsonLine(record)}\n`, "utf8")
            const written = appendWhole(fd, line, size)
            if (written === undefined) {
              size += line.length
              lines++
              return Effect.void
            }
            failure = `writing failed (${written}); recording stopped after ${lines} line(s) of this session`
            return Effect.logError(`transcript ${file}: ${failure}`)
          })
      } satisfies Transcript
    })
  )

/** A transcript that records nothing (library use without a session directory). */
export const noTranscript: Transcript = { path: "", write: () => Effect.void, failure: Effect.succeed(undefined) }

export interface RecordedCall {
  readonly toolUseId: string
  readonly name: string
  readonly result: unknown
  readonly isError: boolean
  readonly line: number
  /** The parallel batch the call ran in, within its turn (null: it never started). */
  readonly batch?: number | null
}

export interface RecordedApproval {
  readonly toolUseId: string
  readonly answer: Readonly<Record<string, unknown>>
}

export interface ReadTranscript {
  readonly script: Script
  readonly session: Readonly<Record<string, unknown>> | undefined
  readonly calls: ReadonlyArray<RecordedCall>
  readonly approvals: ReadonlyArray<RecordedApproval>
}

const ToolCallLine = Schema.Struct({
  type: Schema.Literal("tool_call"),
  tool_use_id: Schema.String,
  name: Schema.String,
  result: Schema.Unknown,
  is_error: Schema.optional(Schema.Boolean),
  batch: Schema.optional(Schema.NullOr(Schema.Number))
})
const ApprovalLine = Schema.Struct({
  type: Schema.Literal("approval"),
  tool_use_id: Schema.String,
  answer: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** Reads a transcript for replay; a corrupt file is reported with its line number and the problem. */
export const readTranscript = (file: string): Effect.Effect<ReadTranscript, ScriptError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(file, "utf8"),
      catch: (e) =>
        new ScriptError({
          file,
          reason: (e as NodeJS.ErrnoException).code === "ENOENT"
            ? "no such file"
            : `cannot read: ${(e as Error).message}`
        })
    })
    const script = yield* parseScript(file, text)
    const calls: Array<RecordedCall> = []
    const approvals: Array<RecordedApproval> = []
    const lines = text.split("\n")
    for (const [i, raw] of lines.entries()) {
      if (!raw.includes("\"tool_call\"") && !raw.includes("\"approval\"")) continue
      const value = parseJsonText(raw) as Record<string, unknown> // parseScript has checked every line
      const fail = (reason: string) => new ScriptError({ file, line: i + 1, reason })
      if (value.type === "tool_call") {
        const call = Schema.decodeUnknownEither(ToolCallLine)(value)
        if (Either.isLeft(call)) {
          return yield* fail(`a tool_call line needs tool_use_id, name and result (${documentIssue(call.left)})`)
        }
        const c = call.right
        calls.push({
          toolUseId: c.tool_use_id,
          name: c.name,
          result: c.result,
          isError: c.is_error === true,
          line: i + 1,
          ...(c.batch === undefined ? {} : { batch: c.batch })
        })
      } else if (value.type === "approval") {
        const approval = Schema.decodeUnknownEither(ApprovalLine)(value)
        if (Either.isLeft(approval)) {
          return yield* fail(`an approval line needs tool_use_id and answer (${documentIssue(approval.left)})`)
        }
        approvals.push({ toolUseId: approval.right.tool_use_id, answer: approval.right.answer })
      }
    }
    return { script, session: script.session, calls, approvals }
  })

/** Replaces the working directory and session directory in a result, for comparing runs in different folders. */
export const normalizeResult = (result: unknown, dirs: ReadonlyArray<readonly [string, string]>): string => {
  let text = typeof result === "string" ? result : JSON.stringify(result)
  for (const [dir, placeholder] of dirs) {
    if (dir === "") continue
    text = text.split(dir).join(placeholder)
    const escaped = JSON.stringify(dir).slice(1, -1)
    if (escaped !== dir) text = text.split(escaped).join(placeholder)
  }
  return text
}

export const isTranscript = (r: ReadTranscript): boolean => r.session?.type === "session_start"
