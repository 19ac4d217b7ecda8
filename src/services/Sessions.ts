/**
 * Served sessions: agent sessions that a web app drives over HTTP, run by one or
 * several runners of an @effect/cluster on shared SQL storage.
 *
 * Each session is a cluster entity addressed by its id; each of its inputs (a prompt for the agent
 * loop, or an assistant message of tool_use blocks for the scheduler) runs on the session's entity
 * as an execution whose model turns and tool calls are durable steps: after a runner dies,
 * another one continues the input from storage, gives recorded steps their recorded results, and
 * never runs a side-effecting call twice (it is answered with `RunnerLost` instead). Permission
 * questions go to the remote approver and are answered over HTTP, or denied after a timeout.
 *
 * This module is what the HTTP API calls; `Sessions/handlers.ts` is the runner side.
 */
import { EntityId, Sharding, ShardId } from "@effect/cluster"
import {
  Cause,
  Config,
  Context,
  Deferred,
  Duration,
  Effect,
  Either,
  Layer,
  Option,
  Redacted,
  Schedule,
  Schema,
  Stream
} from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolUseBlock } from "../Messages.js"
import type { ApprovalAnswer } from "./Approver.js"
import { toJsonLine, TRANSCRIPT_VERSION } from "./Agent.js"
import { NO_MODEL_MESSAGE, parseScript } from "./ModelClient.js"
import { Session } from "./Sessions/entities.js"
import { EventLog } from "./Sessions/events.js"
import { StoredSummary } from "./Sessions/conversations.js"
import {
  Conflict,
  Forbidden,
  InvalidRequest,
  notFound,
  SessionNotFound,
  TooBusy,
  Unauthorized,
  Unavailable,
  type AnswerApproval,
  type ApprovalView,
  type CreateSession,
  type InputResult,
  type Readiness,
  type SendInput,
  type ServeEvent,
  type SessionPage,
  type SessionSummary,
  type SessionView
} from "./Sessions/model.js"
import { checkCreate } from "./Sessions/policy.js"
import { Runs } from "./Sessions/run.js"
import type { StoredConfig } from "./Sessions/runtimes.js"
import { decodeConfig, SessionRuntimes } from "./Sessions/runtimes.js"
import { EMBEDDED_RUNNER, ServeSettings } from "./Sessions/settings.js"
import * as StorageFaults from "./Sessions/storageFaults.js"
import { StorageHealth } from "./Sessions/storageFaults.js"
import {
  SessionStore,
  type ApprovalRow,
  type InputRow,
  type SessionListRow,
  type SessionRow
} from "./Sessions/store.js"
import { hashToken, newSessionToken, tokenMatches } from "./Sessions/tokens.js"
import { sessionCreated } from "./Sessions/telemetry.js"
import { VERSION } from "../version.js"

/** Who is asking: the bearer token of the request, and whether it is the server's token. */
export interface Caller {
  readonly token: string | undefined
  readonly admin: boolean
}

/** How long a request may wait for a permission question to be asked. */
export interface QuestionWait {
  readonly wait: boolean
  readonly timeoutMs: number
}

export interface SessionsService {
  readonly create: (
    body: CreateSession
  ) => Effect.Effect<SessionView & { readonly token: string }, InvalidRequest | Forbidden | Unavailable>
  /** A page of sessions, oldest first; `after` is the previous page's `next`. */
  readonly list: (
    page: { readonly limit: number; readonly after: string | undefined }
  ) => Effect.Effect<SessionPage, InvalidRequest | Unavailable>
  /** The session's token or the server's: anything else is refused; a session that does not exist is not found. */
  readonly authorize: (id: string, caller: Caller) => Effect.Effect<void, SessionNotFound | Unauthorized | Unavailable>
  readonly view: (id: string) => Effect.Effect<SessionView, SessionNotFound | Unavailable>
  /** Adds an input; with `wait`, returns once it finished (else at once, queued or running). */
  readonly send: (
    id: string,
    body: SendInput,
    wait: boolean
  ) => Effect.Effect<InputResult, SessionNotFound | Conflict | InvalidRequest | Unavailable | TooBusy>
  readonly input: (id: string, key: string, wait: boolean) => Effect.Effect<InputResult, SessionNotFound | Unavailable>
  readonly events: (
    id: string,
    options: { readonly after: number; readonly follow: boolean }
  ) => Stream.Stream<ServeEvent, Unavailable>
  /** The open questions; with `wait`, once there is at least one (or the wait ends: then none). */
  readonly approvals: (id: string, wait: QuestionWait) => Effect.Effect<ReadonlyArray<ApprovalView>, Unavailable>
  /** With `wait`, a question not asked yet is waited for (a client may answer before the call asks). */
  readonly answer: (
    id: string,
    toolUseId: string,
    body: AnswerApproval,
    wait: QuestionWait
  ) => Effect.Effect<ApprovalView, SessionNotFound | Conflict | Unavailable>
  /** One user interrupt (Ctrl-C) for the running input; false when nothing runs. */
  readonly interrupt: (id: string) => Effect.Effect<boolean, SessionNotFound | Unavailable>
  /** Stops the running input and refuses further inputs. */
  readonly stop: (id: string) => Effect.Effect<SessionView, SessionNotFound | Unavailable>
  /** The transcript as JSONL (the format `toolgate replay` reads). */
  readonly transcript: (id: string) => Effect.Effect<string, SessionNotFound | Unavailable>
  /** Stops the session and deletes everything stored for it (its folder too). */
  readonly remove: (id: string) => Effect.Effect<void, SessionNotFound | Unavailable>
  /** Storage reachable, shards held, not shutting down. */
  readonly readiness: Effect.Effect<Readiness>
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

const hasApiKey: Effect.Effect<boolean> = Config.option(Config.redacted("ANTHROPIC_API_KEY")).pipe(
  Effect.map(Option.exists((key: Redacted.Redacted) => Redacted.value(key).trim() !== "")),
  Effect.orElseSucceed(() => false)
)

/** Runs `look` until `found` holds, every `POLL_QUESTION`; the last result when `timeoutMs` passes. */
const pollUntil = <A, E>(look: Effect.Effect<A, E>, found: (a: A) => boolean, timeoutMs: number): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* look
      if (found(value) || Date.now() >= deadline) return value
      yield* Effect.sleep(POLL_QUESTION)
    }
  })

const NO_MODEL_PROMPT = `this session has no model: ${
  NO_MODEL_MESSAGE.split(":")[0]
} (the server has no ANTHROPIC_API_KEY and the session no "script"); send an assistant message of tool_use blocks instead`

const POLL_QUESTION = Duration.millis(200)

/** How often the one-process server looks for inputs to deliver again. */
const REDELIVER_EVERY = Duration.seconds(1)

/** How long after a failed write storage still counts as failing (a write may succeed between failures). */
const FAULT_WINDOW_MS = 3_000

/** `createdAt~id`: where a page of sessions ends. */
const cursorOf = (row: SessionListRow) => `${row.createdAt}~${row.id}`
const parseCursor = (cursor: string) => {
  const match = /^(\d{1,16})~([A-Za-z0-9-]{1,64})$/.exec(cursor)
  return match === null ? undefined : { createdAt: Number(match[1]), id: match[2]! }
}

export const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const eventLog = yield* EventLog
  const settings = yield* ServeSettings
  const runtimes = yield* SessionRuntimes
  const runs = yield* Runs
  const health = yield* StorageHealth
  const sharding = yield* Sharding.Sharding
  const clientFor = yield* Session.client.pipe(Effect.provideService(Sharding.Sharding, sharding))

  const sessionRow = (id: string): Effect.Effect<SessionRow, SessionNotFound | Unavailable> =>
    store.session(id).pipe(
      Effect.mapError(unavailable),
      Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
    )

  const viewOf = (row: SessionRow): Effect.Effect<SessionView, Unavailable> =>
    Effect.gen(function*() {
      const config = yield* decodeConfig(row.config).pipe(Effect.orElseSucceed(() => undefined))
      const state = Option.getOrUndefined(Schema.decodeUnknownOption(StoredSummary)(row.state))
      const last = yield* store.lastInput(row.id).pipe(Effect.mapError(unavailable))
      const pending = yield* store.pendingApprovals(row.id).pipe(Effect.mapError(unavailable))
      const inputs = yield* store.inputCount(row.id).pipe(Effect.mapError(unavailable))
      return {
        ...summaryOf(row, config),
        inputs,
        permissionMode: state?.session.permissionMode ?? config?.permissionMode ?? "default",
        turns: state?.turns ?? 0,
        usage: state?.usage ?? emptyUsage,
        pendingApprovals: pending.map(approvalView),
        ...(Option.isSome(last) ? { lastInput: inputView(last.value) } : {})
      } satisfies SessionView
    })

  const modelName = (config: { readonly script?: unknown; readonly model?: string | undefined } | undefined) =>
    config === undefined
      ? ""
      : config.script !== undefined && config.script !== false
      ? "scripted"
      : (config.model ?? "claude (ANTHROPIC_MODEL or the default)")

  const summaryOf = (row: SessionRow, config: StoredConfig | undefined): SessionSummary => ({
    id: row.id,
    status: row.status,
    cwd: config?.cwd ?? "",
    model: modelName(config),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    inputs: 0
  })

  const rules = { workspaceRoot: settings.workspaceRoot, serverPaths: settings.serverPaths }

  const checkConfig = (body: CreateSession) =>
    Effect.gen(function*() {
      const checked = checkCreate(body, settings.policy, rules)
      if (checked instanceof InvalidRequest || checked instanceof Forbidden) return yield* Effect.fail(checked)
      if (body.script !== undefined) {
        const parsed = parseScript("script", body.script)
        if (parsed._tag === "Left") return yield* new InvalidRequest({ message: `script: ${parsed.left.message}` })
        if (parsed.right.turns.length === 0) return yield* new InvalidRequest({ message: "script: no model turns" })
      }
      return checked
    })

  /** A draining runner takes no new session or input: the client sends it to another runner. */
  const notDraining = Effect.flatMap(
    Deferred.isDone(runs.draining),
    (draining) =>
      draining
        ? Effect.fail(new Unavailable({ message: "this runner is shutting down: send the request to another runner" }))
        : Effect.void
  )

  /**
   * A runner at its cap on running inputs takes no new one (429); an input already stored under
   * the key is not new (a client that retries it gets its status).
   */
  const belowCap = (id: string, key: string) =>
    Effect.gen(function*() {
      const cap = settings.maxRunningInputs
      if (cap === undefined || runs.count() < cap) return
      const stored = yield* store.input(id, key).pipe(Effect.mapError(unavailable))
      if (Option.isSome(stored)) return
      return yield* new TooBusy({
        message:
          `this runner runs ${runs.count()} inputs, its limit (TOOLGATE_SERVE_MAX_RUNNING_INPUTS=${cap}): send the input again later, or to another runner`
      })
    })

  const create = (body: CreateSession) =>
    Effect.gen(function*() {
      yield* notDraining
      const checked = yield* checkConfig(body)
      const { cwd } = checked
      const id = randomUUID()
      const token = newSessionToken()
      const now = Date.now()
      // a settings file is read now: what was checked is what the session gets
      const settingsValue = checked.settingsFile === undefined
        ? body.settings
        : (JSON.parse(fs.readFileSync(checked.settingsFile, "utf8")) as Record<string, unknown>)
      const config: StoredConfig = {
        ...body,
        cwd,
        ...(body.addDirs === undefined ? {} : { addDirs: checked.addDirs }),
        ...(settingsValue === undefined ? {} : { settings: settingsValue }),
        sessionDir: path.join(settings.stateDir, "sessions", id)
      }
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
              add_dir: checked.addDirs,
              trust_project: body.trustProject ?? false,
              max_turns: body.maxTurns ?? null
            }
          })
        ])
        .pipe(Effect.mapError(unavailable))
      yield* eventLog.append(id, "session_created", { id, cwd }).pipe(Effect.mapError(unavailable))
      yield* sessionCreated
      const view = yield* viewOf(
        yield* sessionRow(id).pipe(
          Effect.catchTag("SessionNotFound", (e) => Effect.fail(new Unavailable({ message: e.message })))
        )
      )
      return { ...view, token }
    })

  const authorize = (id: string, caller: Caller) =>
    Effect.gen(function*() {
      const row = yield* store.session(id).pipe(Effect.mapError(unavailable))
      if (Option.isNone(row)) return yield* Effect.fail(notFound(id))
      if (caller.admin) return
      if (!tokenMatches(caller.token, row.value.tokenHash)) {
        return yield* new Unauthorized({
          message: "this session needs its own token (or the server's) as a bearer token"
        })
      }
    })

  const rpcError = (e: { readonly _tag: string; readonly message?: string }) =>
    new Unavailable({
      message: `the cluster could not deliver the request (${e._tag}${e.message === undefined ? "" : `: ${e.message}`})`
    })

  const checkInput = (body: SendInput): Effect.Effect<"prompt" | "tool_uses", InvalidRequest> =>
    Effect.gen(function*() {
      if (body.role === "user") {
        const empty = typeof body.content === "string" ? body.content.trim() === "" : body.content.length === 0
        if (empty) return yield* new InvalidRequest({ message: "a user message needs content (the prompt)" })
        return "prompt"
      }
      if (typeof body.content === "string" || body.content.length === 0) {
        return yield* new InvalidRequest({ message: "an assistant message needs an array of tool_use blocks" })
      }
      const decoded = Schema.decodeUnknownEither(Schema.Array(ToolUseBlock))(body.content)
      if (decoded._tag === "Left") {
        return yield* new InvalidRequest({
          message: `content: every block must be a tool_use block (${decoded.left.message.split("\n")[0]})`
        })
      }
      return "tool_uses"
    })

  // Among runners an input travels as a persisted cluster message, which outlives the runner it
  // was sent to. The one-process server hands it to the entity directly: the input's stored row
  // is the record, and what a crash or a storage fault (the runner then lets go of its shards for
  // a while) stopped is delivered again by `redeliver` below.
  const oneProcess = settings.runner === EMBEDDED_RUNNER
  /** Inputs handed to their entity by this process and not answered yet (one process only). */
  const delivering = new Set<string>()
  const deliveryOf = (id: string, key: string) => `${id}\u0000${key}`
  const deliverHere = (id: string, key: string) =>
    Effect.acquireUseRelease(
      Effect.sync(() => delivering.add(deliveryOf(id, key))),
      () => clientFor(id).Run({ key }),
      () => Effect.sync(() => delivering.delete(deliveryOf(id, key)))
    )
  /** The input's end as stored, if it ended; it fails once the input is gone (its session deleted). */
  const inputEnded = (id: string, key: string) =>
    store.input(id, key).pipe(
      Effect.mapError(unavailable),
      Effect.flatMap((row) =>
        Option.isNone(row)
          ? Effect.fail(new Unavailable({ message: `input ${key} of session ${id} is gone (its session was deleted)` }))
          : row.value.status === "done" || row.value.status === "failed"
          ? Effect.succeed(Option.some(inputView(row.value)))
          : Effect.succeed(Option.none<InputResult>())
      )
    )
  /** Delivers the input to its session entity and waits for its result. */
  const deliver = (id: string, key: string): Effect.Effect<InputResult, Unavailable> =>
    oneProcess
      ? deliverHere(id, key).pipe(
        // stopped with the runner's shards: delivered again, and its end is read from storage
        Effect.catchAllCause((cause) =>
          Cause.isDie(cause)
            ? Effect.die(Cause.squash(cause))
            : Effect.map(
              pollUntil(inputEnded(id, key), Option.isSome, Number.POSITIVE_INFINITY),
              (ended) => Option.getOrThrow(ended)
            )
        )
      )
      : clientFor(id).Send({ key }).pipe(Effect.mapError(rpcError))
  /** Delivers the input (stored, so it runs even if this runner goes away) without waiting. */
  const enqueue = (id: string, key: string) =>
    oneProcess
      ? Effect.asVoid(Effect.forkDaemon(Effect.ignore(deliverHere(id, key))))
      : clientFor(id).Send({ key }, { discard: true }).pipe(Effect.mapError(rpcError))
  /** Hands every stored input that has not ended and is not being delivered to its entity again. */
  const redeliver = store.unfinishedInputs.pipe(
    Effect.flatMap(
      Effect.forEach(
        ({ key, sessionId }) => (delivering.has(deliveryOf(sessionId, key)) ? Effect.void : enqueue(sessionId, key)),
        {
          discard: true
        }
      )
    )
  )

  const send = (id: string, body: SendInput, wait: boolean) =>
    Effect.gen(function*() {
      const kind = yield* checkInput(body)
      const session = yield* sessionRow(id)
      if (session.status === "stopped") return yield* new Conflict({ message: `session ${id} is stopped` })
      if (kind === "prompt") {
        const config = yield* decodeConfig(session.config).pipe(Effect.orElseSucceed(() => undefined))
        if (config?.script === undefined && !(yield* hasApiKey)) {
          return yield* new InvalidRequest({ message: NO_MODEL_PROMPT })
        }
      }
      const key = body.key ?? randomUUID()
      const payload = { content: body.content }
      yield* notDraining
      yield* belowCap(id, key)
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
    Effect.gen(function*() {
      const row = yield* store.input(id, key).pipe(Effect.mapError(unavailable))
      if (Option.isNone(row)) {
        return yield* Effect.fail(new SessionNotFound({ id, message: `session ${id} has no input ${key}` }))
      }
      if (row.value.status === "done" || row.value.status === "failed" || !wait) return inputView(row.value)
      // the input's delivery is persisted under its key: sending it again waits for that one
      return yield* deliver(id, key)
    })

  /** The open question, looked for until it is asked or the wait ends. */
  const openQuestion = (id: string, toolUseId: string, wait: QuestionWait) => {
    const look = store.pendingApproval(id, toolUseId).pipe(Effect.mapError(unavailable))
    return wait.wait ? pollUntil(look, Option.isSome, wait.timeoutMs) : look
  }

  const answer = (id: string, toolUseId: string, body: AnswerApproval, wait: QuestionWait) =>
    Effect.gen(function*() {
      const pending = yield* openQuestion(id, toolUseId, wait)
      if (Option.isNone(pending)) {
        return yield* new Conflict({
          message: `no open permission question for ${toolUseId} in session ${id} (answered, timed out, or never asked)`
        })
      }
      const now = Date.now()
      const stored = yield* store.answer(pending.value.executionId, toolUseId, toApprovalAnswer(body), now).pipe(
        Effect.mapError(unavailable)
      )
      if (!stored) {
        return yield* new Conflict({ message: `the permission question for ${toolUseId} was answered already` })
      }
      // wake the call on the runner that runs it (if it is gone, the resumed run reads the answer)
      yield* clientFor(id).Answer({ toolUseId }).pipe(Effect.timeout("10 seconds"), Effect.ignore)
      const row = yield* store.approval(pending.value.executionId, toolUseId).pipe(Effect.mapError(unavailable))
      return approvalView(Option.getOrElse(row, () => pending.value))
    })

  const interrupt = (id: string) =>
    Effect.gen(function*() {
      yield* sessionRow(id)
      const running = yield* store.runningInput(id).pipe(Effect.mapError(unavailable))
      if (Option.isNone(running)) return false
      yield* store.countInterrupt(id, running.value.key).pipe(Effect.mapError(unavailable))
      return yield* clientFor(id).Interrupt({ times: 1 }).pipe(Effect.mapError(rpcError))
    })

  const stop = (id: string) =>
    Effect.gen(function*() {
      const row = yield* sessionRow(id)
      if (row.status !== "stopped") {
        yield* store.setStatus(id, "stopped", Date.now()).pipe(Effect.mapError(unavailable))
        yield* clientFor(id).Stop().pipe(Effect.mapError(rpcError))
        yield* runtimes.release(id)
        yield* eventLog.append(id, "session_stopped", { id }).pipe(Effect.mapError(unavailable))
      }
      return yield* viewOf(yield* sessionRow(id))
    })

  const remove = (id: string) =>
    Effect.gen(function*() {
      const row = yield* sessionRow(id)
      if (row.status !== "stopped") {
        yield* store.setStatus(id, "stopped", Date.now()).pipe(Effect.mapError(unavailable))
        yield* clientFor(id).Stop().pipe(Effect.timeout("10 seconds"), Effect.ignore)
      }
      // what still runs stops first, so nothing it writes outlives the deletion
      yield* pollUntil(store.runningInput(id), Option.isNone, 10_000).pipe(Effect.ignore)
      yield* runtimes.release(id)
      yield* store.deleteSession(id).pipe(Effect.mapError(unavailable))
      const config = yield* decodeConfig(row.config).pipe(Effect.orElseSucceed(() => undefined))
      const folder = config?.sessionDir ?? path.join(settings.stateDir, "sessions", id)
      yield* Effect.sync(() => fs.rmSync(folder, { recursive: true, force: true }))
    })

  const list = (page: { readonly limit: number; readonly after: string | undefined }) =>
    Effect.gen(function*() {
      const after = page.after === undefined ? undefined : parseCursor(page.after)
      if (page.after !== undefined && after === undefined) {
        return yield* new InvalidRequest({ message: `after: not a cursor of this list: ${page.after}` })
      }
      const rows = yield* store.sessionsPage(page.limit + 1, after).pipe(Effect.mapError(unavailable))
      const shown = rows.slice(0, page.limit)
      return {
        sessions: shown.map(
          (row): SessionSummary => ({
            id: row.id,
            status: row.status,
            cwd: row.cwd,
            model: modelName({ script: row.scripted ? true : undefined, model: row.model }),
            createdAt: row.createdAt,
            updatedAt: row.updatedAt,
            inputs: row.inputs
          })
        ),
        ...(rows.length > page.limit ? { next: cursorOf(shown[shown.length - 1]!) } : {})
      } satisfies SessionPage
    })

  const readiness: Effect.Effect<Readiness> = Effect.gen(function*() {
    const probe = yield* store.probe(settings.runner, Date.now()).pipe(Effect.timeout("5 seconds"), Effect.either)
    const fault = health.recentFault(FAULT_WINDOW_MS)
    const storageProblem = Either.isLeft(probe)
      ? probe.left._tag === "TimeoutException"
        ? "storage does not answer"
        : `storage does not take writes (${probe.left.reason})`
      : fault !== undefined
      ? `storage failed a write ${((Date.now() - fault.at) / 1000).toFixed(1)} s ago (${fault.reason})`
      : undefined
    const storage = storageProblem === undefined
    const group = Session.getShardGroup(EntityId.make("readiness"))
    let shards = 0
    for (let i = 1; i <= settings.shardsPerGroup; i++) if (sharding.hasShardId(ShardId.make(group, i))) shards++
    const draining = (yield* Deferred.isDone(runs.draining)) || (yield* sharding.isShutdown)
    const reason = storageProblem !== undefined
      ? storageProblem
      : draining
      ? "shutting down"
      : shards === 0
      ? "this runner holds no shards yet"
      : undefined
    return {
      ready: reason === undefined,
      runner: settings.runner,
      storage,
      shards,
      draining,
      runtimes: yield* runtimes.count,
      ...(reason === undefined ? {} : { reason })
    }
  })

  // The one-process server delivers what was left unfinished: at start (a crash, a drain that ran
  // out of time), then every second (inputs stopped while the runner let go of its shards after a
  // storage fault). Each session's inputs in order; the entity runs them one at a time, resuming a
  // running one from its stored steps, and answers one that ended with its stored result.
  if (oneProcess) {
    yield* redeliver.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("unfinished inputs were not delivered again", cause)),
      Effect.repeat(Schedule.spaced(REDELIVER_EVERY)),
      Effect.forkScoped
    )
  }

  // a full disk is noticed even while nothing else writes (readiness, the shard locks' reset)
  yield* StorageFaults.monitor(Effect.suspend(() => store.probe(settings.runner, Date.now())))

  // idle sessions past their time are deleted (on every runner: deleting twice is harmless)
  const ttl = settings.sessionTtlMs
  if (ttl !== undefined) {
    const sweep = Effect.gen(function*() {
      const idle = yield* store.idleSince(Date.now() - ttl, 100).pipe(Effect.orElseSucceed(() => []))
      for (const id of idle) yield* remove(id).pipe(Effect.ignore)
    })
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(Math.min(60_000, Math.max(1_000, Math.floor(ttl / 4)))))),
      Effect.forkScoped
    )
  }

  return Sessions.of({
    create,
    list,
    remove,
    readiness,
    authorize,
    view: (id) => Effect.flatMap(sessionRow(id), viewOf),
    send,
    input,
    events: (id, options) => eventLog.read(id, options).pipe(Stream.mapError(unavailable)),
    approvals: (id, wait) => {
      const look = store.pendingApprovals(id).pipe(Effect.mapError(unavailable))
      const found = wait.wait ? pollUntil(look, (rows) => rows.length > 0, wait.timeoutMs) : look
      return Effect.map(found, (rows) => rows.map(approvalView))
    },
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

export const layer: Layer.Layer<
  Sessions,
  never,
  SessionStore | EventLog | ServeSettings | SessionRuntimes | Runs | StorageHealth | Sharding.Sharding
> = Layer.scoped(Sessions, make)

// ---------------------------------------------------------------------------------------------
// What the Serve preset (src/layers/Serve.ts) composes: the sessions' tables and event log, this
// process's serve settings, the runner side (entity, workflow, runner socket), the HTTP API, and
// each session's runtime with its durable model turns and calls, confined file tools and
// remote approver
// ---------------------------------------------------------------------------------------------

export * as SessionStore from "./Sessions/store.js"
export * as EventLog from "./Sessions/events.js"
export * as ServeSettings from "./Sessions/settings.js"
export * as Handlers from "./Sessions/handlers.js"
export * as RunnerSocket from "./Sessions/runnerSocket.js"
export * as ShardLease from "./Sessions/lease.js"
export * as Drain from "./Sessions/drain.js"
export * as Http from "./Sessions/http/handlers.js"
export * as SessionRuntimes from "./Sessions/runtimes.js"
export * as StorageFaults from "./Sessions/storageFaults.js"
export { layerRuns, Runs, type RunsService } from "./Sessions/run.js"
export { durableModel } from "./Sessions/durableModel.js"
export { durableCalls } from "./Sessions/durableCalls.js"
export { confineTool, refuseTool, type Confinement } from "./Sessions/confine.js"
export { makeRemoteApprover } from "./Sessions/remoteApprover.js"
export { makePositionedScripted } from "./Sessions/scriptedModel.js"
export * as Telemetry from "./Sessions/telemetry.js"
