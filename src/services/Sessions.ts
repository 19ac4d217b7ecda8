/**
 * Served sessions (issue 16): agent sessions that a web app drives over HTTP, run by one or
 * several runners of an @effect/cluster on shared SQL storage.
 *
 * Each session is a cluster entity addressed by its id; each of its inputs (a prompt for the agent
 * loop, or an assistant message of tool_use blocks for the scheduler) runs as a `SessionInput`
 * workflow execution whose model turns and tool calls are durable steps: after a runner dies,
 * another one continues the input from storage, gives recorded steps their recorded results, and
 * never runs a side-effecting call twice (it is answered with `RunnerLost` instead). Permission
 * questions go to the remote approver and are answered over HTTP, or denied after a timeout.
 *
 * This module is what the HTTP API calls; `Sessions/handlers.ts` is the runner side.
 */
import { Sharding } from "@effect/cluster"
import { Config, Context, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolUseBlock } from "../Messages.js"
import type { ApprovalAnswer } from "./Approver.js"
import { toJsonLine, TRANSCRIPT_VERSION } from "./Agent/transcript.js"
import { NO_MODEL_MESSAGE } from "./ModelClient.js"
import { parseScript } from "./ModelClient/script.js"
import { Session } from "./Sessions/entities.js"
import { EventLog } from "./Sessions/events.js"
import { StoredConversation } from "./Sessions/execute.js"
import {
  Conflict,
  InvalidRequest,
  notFound,
  SessionNotFound,
  Unauthorized,
  Unavailable,
  type AnswerApproval,
  type ApprovalView,
  type CreateSession,
  type InputResult,
  type SendInput,
  type ServeEvent,
  type SessionSummary,
  type SessionView
} from "./Sessions/model.js"
import { decodeConfig, SessionRuntimes, StoredConfig } from "./Sessions/runtimes.js"
import { ServeSettings } from "./Sessions/settings.js"
import { SessionStore, type ApprovalRow, type InputRow, type SessionRow } from "./Sessions/store.js"
import { hashToken, newSessionToken, tokenMatches } from "./Sessions/tokens.js"
import { VERSION } from "../version.js"

/** Who is asking: the bearer token of the request, and whether it is the server's token. */
export interface Caller {
  readonly token: string | undefined
  readonly admin: boolean
}

export interface SessionsService {
  readonly create: (body: CreateSession) => Effect.Effect<SessionView & { readonly token: string }, InvalidRequest | Unavailable>
  readonly list: Effect.Effect<ReadonlyArray<SessionSummary>, Unavailable>
  /** The session's token or the server's: anything else is refused (a missing session too, unless the caller is the server). */
  readonly authorize: (id: string, caller: Caller) => Effect.Effect<void, SessionNotFound | Unauthorized | Unavailable>
  readonly view: (id: string) => Effect.Effect<SessionView, SessionNotFound | Unavailable>
  /** Adds an input; with `wait`, returns once it finished (else at once, queued or running). */
  readonly send: (id: string, body: SendInput, wait: boolean) => Effect.Effect<InputResult, SessionNotFound | Conflict | InvalidRequest | Unavailable>
  readonly input: (id: string, key: string, wait: boolean) => Effect.Effect<InputResult, SessionNotFound | Unavailable>
  readonly events: (id: string, options: { readonly after: number; readonly follow: boolean }) => Stream.Stream<ServeEvent, Unavailable>
  readonly approvals: (id: string) => Effect.Effect<ReadonlyArray<ApprovalView>, Unavailable>
  readonly answer: (id: string, toolUseId: string, body: AnswerApproval) => Effect.Effect<ApprovalView, SessionNotFound | Conflict | Unavailable>
  /** One user interrupt (Ctrl-C) for the running input; false when nothing runs. */
  readonly interrupt: (id: string) => Effect.Effect<boolean, SessionNotFound | Unavailable>
  /** Stops the running input and refuses further inputs. */
  readonly stop: (id: string) => Effect.Effect<SessionView, SessionNotFound | Unavailable>
  /** The transcript as JSONL (the format `toolgate replay` reads). */
  readonly transcript: (id: string) => Effect.Effect<string, SessionNotFound | Unavailable>
}

export class Sessions extends Context.Tag("toolgate/Sessions")<Sessions, SessionsService>() {}

const unavailable = (e: { readonly message: string }) => new Unavailable({ message: e.message })

const emptyUsage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

const approvalView = (row: ApprovalRow): ApprovalView => {
  const request = (row.request ?? {}) as { tool?: unknown; input?: unknown; message?: unknown; rules?: unknown }
  return {
    toolUseId: row.toolUseId,
    inputKey: row.inputKey,
    tool: typeof request.tool === "string" ? request.tool : "",
    input: request.input ?? null,
    message: typeof request.message === "string" ? request.message : "",
    rules: Array.isArray(request.rules) ? request.rules.filter((r): r is string => typeof r === "string") : [],
    askedAt: row.askedAt,
    expiresAt: row.expiresAt,
    ...(row.answeredAt === undefined ? {} : { answer: row.answer, answeredAt: row.answeredAt })
  }
}

const inputView = (row: InputRow): InputResult => {
  const stored = row.result as InputResult | undefined
  if (stored !== undefined && stored !== null && (row.status === "done" || row.status === "failed")) return stored
  return { key: row.key, seq: row.seq, kind: row.kind, status: row.status, createdAt: row.createdAt }
}

/** What an answer over HTTP means to the pipeline's approver. */
export const toApprovalAnswer = (body: AnswerApproval): ApprovalAnswer =>
  body.decision === "deny"
    ? { behavior: "deny", ...(body.feedback === undefined ? {} : { feedback: body.feedback }) }
    : {
        behavior: "allow",
        scope: body.scope ?? "once",
        ...(body.rules === undefined ? {} : { rules: body.rules }),
        ...(body.updatedInput === undefined ? {} : { updatedInput: body.updatedInput })
      }

const isWithin = (root: string, dir: string) => {
  const rel = path.relative(root, dir)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export const make = Effect.gen(function* () {
  const store = yield* SessionStore
  const eventLog = yield* EventLog
  const settings = yield* ServeSettings
  const runtimes = yield* SessionRuntimes
  const sharding = yield* Sharding.Sharding
  const clientFor = yield* Session.client.pipe(Effect.provideService(Sharding.Sharding, sharding))

  const sessionRow = (id: string): Effect.Effect<SessionRow, SessionNotFound | Unavailable> =>
    store.session(id).pipe(
      Effect.mapError(unavailable),
      Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
    )

  const viewOf = (row: SessionRow): Effect.Effect<SessionView, Unavailable> =>
    Effect.gen(function* () {
      const config = yield* decodeConfig(row.config).pipe(Effect.orElseSucceed(() => undefined))
      const state = Option.getOrUndefined(Schema.decodeUnknownOption(StoredConversation)(row.state))
      const last = yield* store.lastInput(row.id).pipe(Effect.mapError(unavailable))
      const pending = yield* store.pendingApprovals(row.id).pipe(Effect.mapError(unavailable))
      return {
        ...summaryOf(row, config),
        inputs: Option.match(last, { onNone: () => 0, onSome: (i) => i.seq }),
        permissionMode: state?.session.permissionMode ?? config?.permissionMode ?? "default",
        turns: state?.turns ?? 0,
        usage: state?.usage ?? emptyUsage,
        pendingApprovals: pending.map(approvalView),
        ...(Option.isSome(last) ? { lastInput: inputView(last.value) } : {})
      } satisfies SessionView
    })

  const modelName = (config: StoredConfig | undefined) =>
    config === undefined ? "" : config.script !== undefined ? "scripted" : (config.model ?? "claude (ANTHROPIC_MODEL or the default)")

  const summaryOf = (row: SessionRow, config: StoredConfig | undefined): SessionSummary => ({
    id: row.id,
    status: row.status,
    cwd: config?.cwd ?? "",
    model: modelName(config),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    inputs: 0
  })

  const checkConfig = (body: CreateSession) =>
    Effect.gen(function* () {
      if (!path.isAbsolute(body.cwd)) return yield* new InvalidRequest({ message: `cwd must be an absolute path: ${body.cwd}` })
      const cwd = yield* Effect.try({
        try: () => fs.realpathSync(body.cwd),
        catch: () => new InvalidRequest({ message: `cwd ${body.cwd}: no such directory` })
      })
      if (!fs.statSync(cwd).isDirectory()) return yield* new InvalidRequest({ message: `cwd ${body.cwd}: not a directory` })
      if (settings.workspaceRoot !== undefined && !isWithin(fs.realpathSync(settings.workspaceRoot), cwd)) {
        return yield* new InvalidRequest({ message: `cwd ${body.cwd} is outside the server's workspace root ${settings.workspaceRoot}` })
      }
      if (body.script !== undefined) {
        const parsed = parseScript("script", body.script)
        if (parsed._tag === "Left") return yield* new InvalidRequest({ message: `script: ${parsed.left.message}` })
        if (parsed.right.turns.length === 0) return yield* new InvalidRequest({ message: "script: no model turns" })
      } else {
        const key = yield* Config.option(Config.redacted("ANTHROPIC_API_KEY")).pipe(Effect.orElseSucceed(() => Option.none()))
        if (Option.isNone(key) || Redacted.value(key.value).trim() === "") {
          return yield* new InvalidRequest({ message: `${NO_MODEL_MESSAGE.split(":")[0]}: the server has no ANTHROPIC_API_KEY; give a "script" to use the scripted model` })
        }
      }
      return cwd
    })

  const create = (body: CreateSession) =>
    Effect.gen(function* () {
      const cwd = yield* checkConfig(body)
      const id = randomUUID()
      const token = newSessionToken()
      const now = Date.now()
      const config: StoredConfig = { ...body, cwd, sessionDir: path.join(settings.stateDir, "sessions", id) }
      yield* store
        .insertSession({ id, tokenHash: hashToken(token), config, status: "idle", createdAt: now, updatedAt: now })
        .pipe(Effect.mapError(unavailable))
      yield* store
        .appendTranscript(id, [
          toJsonLine({
            type: "session_start",
            version: TRANSCRIPT_VERSION,
            session_id: id,
            at: new Date(now).toISOString(),
            toolgate: VERSION,
            cwd,
            model: modelName(config),
            permission_mode: body.permissionMode ?? null,
            served: true,
            options: {
              permission_mode: body.permissionMode ?? null,
              allowed_tools: body.allowedTools ?? [],
              disallowed_tools: body.disallowedTools ?? [],
              add_dir: body.addDirs ?? [],
              trust_project: body.trustProject ?? false,
              max_turns: body.maxTurns ?? null
            }
          })
        ])
        .pipe(Effect.mapError(unavailable))
      yield* eventLog.append(id, "session_created", { id, cwd }).pipe(Effect.mapError(unavailable))
      const view = yield* viewOf(yield* sessionRow(id).pipe(Effect.catchTag("SessionNotFound", (e) => Effect.fail(new Unavailable({ message: e.message })))))
      return { ...view, token }
    })

  const authorize = (id: string, caller: Caller) =>
    Effect.gen(function* () {
      const row = yield* store.session(id).pipe(Effect.mapError(unavailable))
      if (caller.admin) {
        if (Option.isNone(row)) return yield* Effect.fail(notFound(id))
        return
      }
      if (Option.isNone(row) || !tokenMatches(caller.token, row.value.tokenHash)) {
        return yield* new Unauthorized({ message: "this session needs its own token (or the server's) as a bearer token" })
      }
    })

  const rpcError = (e: { readonly _tag: string; readonly message?: string }) =>
    new Unavailable({ message: `the cluster could not deliver the request (${e._tag}${e.message === undefined ? "" : `: ${e.message}`})` })

  const checkInput = (body: SendInput): Effect.Effect<"prompt" | "tool_uses", InvalidRequest> =>
    Effect.gen(function* () {
      if (body.role === "user") {
        const empty = typeof body.content === "string" ? body.content.trim() === "" : body.content.length === 0
        if (empty) return yield* new InvalidRequest({ message: "a user message needs content (the prompt)" })
        return "prompt"
      }
      if (typeof body.content === "string" || body.content.length === 0) {
        return yield* new InvalidRequest({ message: "an assistant message needs an array of tool_use blocks" })
      }
      const decoded = Schema.decodeUnknownEither(Schema.Array(ToolUseBlock))(body.content)
      if (decoded._tag === "Left") return yield* new InvalidRequest({ message: `content: every block must be a tool_use block (${decoded.left.message.split("\n")[0]})` })
      return "tool_uses"
    })

  /** Delivers the input to its session entity and waits for its result. */
  const deliver = (id: string, key: string) => clientFor(id).Send({ key }).pipe(Effect.mapError(rpcError))
  /** Delivers the input (stored, so it runs even if this runner goes away) without waiting. */
  const enqueue = (id: string, key: string) => clientFor(id).Send({ key }, { discard: true }).pipe(Effect.mapError(rpcError))

  const send = (id: string, body: SendInput, wait: boolean) =>
    Effect.gen(function* () {
      const kind = yield* checkInput(body)
      const session = yield* sessionRow(id)
      if (session.status === "stopped") return yield* new Conflict({ message: `session ${id} is stopped` })
      const key = body.key ?? randomUUID()
      const payload = { content: body.content }
      const { row, created } = yield* store
        .insertInput({ sessionId: id, key, kind, body: payload, createdAt: Date.now() })
        .pipe(Effect.mapError(unavailable))
      if (!created && JSON.stringify(row.body) !== JSON.stringify(payload)) {
        return yield* new Conflict({ message: `input key ${key} was used for a different input` })
      }
      if (row.status === "done" || row.status === "failed") return inputView(row)
      if (!wait) {
        yield* enqueue(id, key)
        return inputView(row)
      }
      return yield* deliver(id, key)
    })

  const input = (id: string, key: string, wait: boolean) =>
    Effect.gen(function* () {
      const row = yield* store.input(id, key).pipe(Effect.mapError(unavailable))
      if (Option.isNone(row)) return yield* Effect.fail(new SessionNotFound({ id, message: `session ${id} has no input ${key}` }))
      if (row.value.status === "done" || row.value.status === "failed" || !wait) return inputView(row.value)
      // the input's delivery is persisted under its key: sending it again waits for that one
      return yield* deliver(id, key)
    })

  const answer = (id: string, toolUseId: string, body: AnswerApproval) =>
    Effect.gen(function* () {
      const pending = yield* store.pendingApproval(id, toolUseId).pipe(Effect.mapError(unavailable))
      if (Option.isNone(pending)) {
        return yield* new Conflict({ message: `no open permission question for ${toolUseId} in session ${id} (answered, timed out, or never asked)` })
      }
      const now = Date.now()
      const stored = yield* store.answer(pending.value.executionId, toolUseId, toApprovalAnswer(body), now).pipe(Effect.mapError(unavailable))
      if (!stored) return yield* new Conflict({ message: `the permission question for ${toolUseId} was answered already` })
      // wake the call on the runner that runs it (if it is gone, the resumed run reads the answer)
      yield* clientFor(id).Answer({ toolUseId }).pipe(Effect.timeout("10 seconds"), Effect.ignore)
      const row = yield* store.approval(pending.value.executionId, toolUseId).pipe(Effect.mapError(unavailable))
      return approvalView(Option.getOrElse(row, () => pending.value))
    })

  const interrupt = (id: string) =>
    Effect.gen(function* () {
      yield* sessionRow(id)
      const running = yield* store.runningInput(id).pipe(Effect.mapError(unavailable))
      if (Option.isNone(running)) return false
      yield* store.countInterrupt(id, running.value.key).pipe(Effect.mapError(unavailable))
      return yield* clientFor(id).Interrupt({ times: 1 }).pipe(Effect.mapError(rpcError))
    })

  const stop = (id: string) =>
    Effect.gen(function* () {
      const row = yield* sessionRow(id)
      if (row.status !== "stopped") {
        yield* store.setStatus(id, "stopped", Date.now()).pipe(Effect.mapError(unavailable))
        yield* clientFor(id).Stop().pipe(Effect.mapError(rpcError))
        yield* runtimes.release(id)
        yield* eventLog.append(id, "session_stopped", { id }).pipe(Effect.mapError(unavailable))
      }
      return yield* viewOf(yield* sessionRow(id))
    })

  return Sessions.of({
    create,
    list: store.sessions.pipe(
      Effect.mapError(unavailable),
      Effect.map((rows) =>
        rows.map((row) => {
          const config = Option.getOrUndefined(Schema.decodeUnknownOption(StoredConfig)(row.config))
          return summaryOf(row, config)
        })
      )
    ),
    authorize,
    view: (id) => Effect.flatMap(sessionRow(id), viewOf),
    send,
    input,
    events: (id, options) => eventLog.read(id, options).pipe(Stream.mapError(unavailable)),
    approvals: (id) => store.pendingApprovals(id).pipe(Effect.map((rows) => rows.map(approvalView)), Effect.mapError(unavailable)),
    answer,
    interrupt,
    stop,
    transcript: (id) =>
      Effect.zipRight(
        sessionRow(id),
        store.transcript(id).pipe(
          Effect.map((lines) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`)),
          Effect.mapError(unavailable)
        )
      )
  })
})

export const layer: Layer.Layer<Sessions, never, SessionStore | EventLog | ServeSettings | SessionRuntimes | Sharding.Sharding> = Layer.effect(
  Sessions,
  make
)
