/**
 * Finding a session to continue (`-c`: the latest of this folder) or resume (`-r <id>`), and its
 * conversation, rebuilt from its transcript (each line decoded with a Schema; a bad line is an
 * error naming the line and the path inside it). A session that ended mid-turn (killed while a
 * call ran) is rebuilt from the calls recorded before they ran: each gets its recorded result,
 * Claude Code's "outcome unknown" answer when it started but never finished, or a "not run"
 * answer when it never started.
 */
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { BadRequest } from "../Errors.js"
import { documentIssue, parseJsonText } from "../internal/documentIssue.js"
import {
  answerEveryToolUse,
  appendAssistant,
  appendUser,
  notRunResult,
  outcomeUnknownResult,
  TRANSCRIPT_FILE
} from "../services/Agent.js"
import { addUsage, emptyUsage, type Usage } from "../ModelEvents.js"
import { toolResult, ToolResultBlock, ToolResultContent } from "../Messages.js"
import { isRecord } from "../internal/json.js"
import type { ModelMessage } from "../services/ModelClient.js"
import { projectSlug } from "../Session.js"

export interface StoredSession {
  readonly sessionId: string
  readonly sessionDir: string
  readonly transcript: string
  readonly mtimeMs: number
}

export interface ResumedConversation {
  readonly session: StoredSession
  readonly messages: ReadonlyArray<ModelMessage>
  readonly usage: Usage
  readonly turns: number
  /** The prompts so far (for the interactive header). */
  readonly prompts: number
}

export const projectsRoot = (): string => path.join(os.homedir(), ".toolgate", "projects")

const storedIn = (dir: string): ReadonlyArray<StoredSession> => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((e) => {
    if (!e.isDirectory()) return []
    const transcript = path.join(dir, e.name, TRANSCRIPT_FILE)
    try {
      return [{
        sessionId: e.name,
        sessionDir: path.join(dir, e.name),
        transcript,
        mtimeMs: fs.statSync(transcript).mtimeMs
      }]
    } catch {
      return []
    }
  })
}

/** This folder's sessions, newest first. */
export const sessionsOf = (cwd: string): ReadonlyArray<StoredSession> =>
  [...storedIn(path.join(projectsRoot(), projectSlug(cwd)))].sort((a, b) => b.mtimeMs - a.mtimeMs)

const atDir = (dir: string): StoredSession | undefined => {
  const transcript = path.join(dir, TRANSCRIPT_FILE)
  try {
    return { sessionId: path.basename(dir), sessionDir: dir, transcript, mtimeMs: fs.statSync(transcript).mtimeMs }
  } catch {
    return undefined
  }
}

/** The session `-r` names: an id of this folder (or of any folder), a session folder, or a transcript file. */
export const findSession = (id: string, cwd: string): StoredSession | undefined => {
  const own = sessionsOf(cwd).find((s) => s.sessionId === id)
  if (own !== undefined) return own
  if (!id.includes("/")) {
    let projects: Array<string> = []
    try {
      projects = fs.readdirSync(projectsRoot())
    } catch {
      projects = []
    }
    for (const project of projects) {
      const found = atDir(path.join(projectsRoot(), project, id))
      if (found !== undefined) return found
    }
    return undefined
  }
  const given = path.resolve(cwd, id)
  return path.basename(given) === TRANSCRIPT_FILE ? atDir(path.dirname(given)) : atDir(given)
}

const Message = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Union(Schema.String, Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
})
const UsageFields = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cache_creation_input_tokens: Schema.Number,
  cache_read_input_tokens: Schema.Number
})
const Line = Schema.Union(
  Schema.Struct({ type: Schema.Literal("user", "assistant", "tool_results"), message: Message }),
  Schema.Struct({ type: Schema.Literal("prompt_end"), turns: Schema.Number, usage: UsageFields }),
  Schema.Struct({ type: Schema.String })
)
const decodeLine = Schema.decodeUnknownEither(Line)

/** What a turn's calls recorded as they started and ended (the agent loop's journal). */
const CallLine = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("call_started"),
    tool_use_id: Schema.String,
    blocks: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }),
  Schema.Struct({ type: Schema.Literal("call_finished"), tool_use_id: Schema.String, result: ToolResultBlock }),
  Schema.Struct({
    type: Schema.Literal("tool_call"),
    tool_use_id: Schema.String,
    result: ToolResultContent,
    is_error: Schema.optional(Schema.Boolean)
  })
)
const decodeCallLine = Schema.decodeUnknownEither(CallLine)
const CALL_LINES: ReadonlyArray<unknown> = ["call_started", "call_finished", "tool_call"]

/** The conversation of a stored session, as the model saw it. */
export const loadConversation = (session: StoredSession): Effect.Effect<ResumedConversation, BadRequest> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(session.transcript, "utf8"),
      catch: (e) => new BadRequest({ reason: `cannot read ${session.transcript}: ${(e as Error).message}` })
    })
    let messages: ReadonlyArray<ModelMessage> = []
    let usage = emptyUsage
    let turns = 0
    let prompts = 0
    /** The blocks of a turn whose calls started but whose assistant message was never written. */
    let unfinished: Array<Readonly<Record<string, unknown>>> | undefined
    const started = new Set<string>()
    const results = new Map<string, ToolResultBlock>()
    /** Before anything follows a turn that never ended, its calls get their answers. */
    const settle = () => {
      if (unfinished !== undefined) {
        messages = appendAssistant(messages, { role: "assistant", content: unfinished })
        unfinished = undefined
      }
      const last = messages.at(-1)
      if (
        last?.role === "assistant" && typeof last.content !== "string" &&
        last.content.some((b) => b.type === "tool_use")
      ) {
        messages = appendUser(
          messages,
          answerEveryToolUse(
            last,
            [],
            (id, name) =>
              results.get(id) ?? (started.has(id)
                ? outcomeUnknownResult(id)
                : notRunResult(id, name, "the session ended before the call started"))
          )
        )
      }
    }
    for (const [i, raw] of text.split("\n").entries()) {
      if (raw.trim() === "") continue
      const where = `${session.transcript}:${i + 1}`
      const parsed = Either.try(() => parseJsonText(raw))
      if (Either.isLeft(parsed)) {
        // a line cut short by a crash ends the usable transcript
        if (i === text.split("\n").length - 1 || text.split("\n").slice(i + 1).every((l) => l.trim() === "")) break
        return yield* new BadRequest({ reason: `${where}: not valid JSON` })
      }
      if (isRecord(parsed.right) && CALL_LINES.includes(parsed.right.type)) {
        // a call's record that cannot be read only loses its result: the call is answered either way
        const call = decodeCallLine(parsed.right)
        if (Either.isLeft(call)) continue
        const value = call.right
        if (value.type === "call_started") {
          started.add(value.tool_use_id)
          unfinished = [...(unfinished ?? []), ...value.blocks]
        } else if (value.type === "call_finished") results.set(value.tool_use_id, value.result)
        else if (!results.has(value.tool_use_id)) {
          results.set(value.tool_use_id, toolResult(value.tool_use_id, value.result, value.is_error === true))
        }
        continue
      }
      const line = decodeLine(parsed.right)
      if (Either.isLeft(line)) return yield* new BadRequest({ reason: `${where}: ${documentIssue(line.left)}` })
      const value = line.right
      if ("message" in value) {
        if (value.type === "assistant") {
          // the turn ended normally: its message replaces what its calls recorded of it
          unfinished = undefined
          messages = appendAssistant(messages, value.message)
        } else {
          if (value.type === "user") settle()
          messages = appendUser(
            messages,
            typeof value.message.content === "string"
              ? [{ type: "text", text: value.message.content }]
              : value.message.content
          )
          if (value.type === "user") prompts++
        }
      } else if ("usage" in value) {
        usage = addUsage(usage, value.usage)
        turns += value.turns
      } else if (value.type === "session_resume") settle()
    }
    // a session that stopped mid-turn, or between a tool_use and its result: every call gets an answer
    settle()
    if (prompts === 0) {
      return yield* new BadRequest({ reason: `${session.transcript}: the session has no prompt to continue from` })
    }
    return { session, messages, usage, turns, prompts }
  })

/** The first prompt of a stored session, for a list to pick from. */
export const firstPromptOf = (session: StoredSession): string | undefined => {
  try {
    for (const raw of fs.readFileSync(session.transcript, "utf8").split("\n")) {
      if (!raw.includes("\"type\":\"user\"")) continue
      const decoded = decodeLine(parseJsonText(raw))
      if (Either.isRight(decoded) && "message" in decoded.right) {
        const content = decoded.right.message.content
        return typeof content === "string"
          ? content
          : content.filter((b) => b.type === "text").map((b) => String(b.text)).join(" ")
      }
    }
  } catch {
    return undefined
  }
  return undefined
}
