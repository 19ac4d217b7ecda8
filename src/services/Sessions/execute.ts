/**
 * One input of a served session, run by its session entity (see `handlers.ts`):
 * 1. the session's configuration and conversation and the input, as stored (they change only
 *    when the session's inputs end, one at a time: a resumed run starts from what the first did);
 * 2. the agent loop on the prompt (or the scheduler on the tool_use blocks), on the session's
 *    runtime, with the model turns and calls as durable steps (see `steps.ts`) and the remote
 *    approver;
 * 3. the commit: the input's result, the conversation, the run's last events and transcript
 *    lines and the `input_finished` event are stored together, once.
 * A failure (not an interruption: that is a runner stopping, and the run resumes elsewhere) ends
 * the input as failed and leaves the conversation as it was.
 */
import { Cause, Clock, Context, Effect, Option, Schema, Stream, Tracer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { appendLineWhole } from "../../internal/appendWhole.js"
import { ToolUseBlock } from "../../Messages.js"
import { newSession, type SessionContext } from "../../Session.js"
import {
  Agent,
  appendAssistant,
  appendUser,
  newConversation,
  toJsonLine,
  TRANSCRIPT_FILE,
  type Conversation,
  type Transcript
} from "../Agent.js"
import type { ModelMessage } from "../ModelClient.js"
import { Scheduler } from "../Scheduler.js"
import { Settings } from "../Settings.js"
import { conversationWrite, loadConversation, type Loaded } from "./conversations.js"
import { EventLog, type EventWriter, type Unstored } from "./events.js"
import { toJsonValue } from "./json.js"
import type { InputKind } from "./model.js"
import { InputResult } from "./model.js"
import { publishAgentEvent, publishSchedulerEvent } from "./publish.js"
import { CurrentRun, makeRun, Runs, type RunControls } from "./run.js"
import { decodeConfig, type SessionServices, SessionRuntimes, type StoredConfig } from "./runtimes.js"
import { ServeSettings } from "./settings.js"
import { ShardLease } from "./lease.js"
import { makeRunStep } from "./steps.js"
import { StorageHealth, untilStored } from "./storageFaults.js"
import { type InputRow, type SessionRow, SessionStore } from "./store.js"
import { inputFinished, measureInput } from "./telemetry.js"

/** What an input starts from: the session's configuration and conversation, and the input. */
interface Snapshot {
  readonly config: unknown
  readonly state: unknown
  readonly kind: typeof InputKind.Type
  readonly body: unknown
  readonly seq: number
  readonly createdAt: number
}

const Body = Schema.Struct({
  content: Schema.Union(Schema.String, Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
})
const ToolUses = Schema.Struct({ content: Schema.Array(ToolUseBlock) })

interface Produced {
  readonly result: Omit<InputResult, "key" | "seq" | "kind" | "status" | "createdAt">
  readonly state: Conversation
}

/** What the input produced, and the conversation it started from. */
interface Ran {
  readonly produced: Produced
  readonly before: Loaded | undefined
  /** The run's last events and transcript lines, stored with its end. */
  readonly unstored: Unstored
}

/**
 * Transcript lines go to the session folder's file at once (hooks get its path and may read it)
 * and to storage (served over HTTP) with the run's next batch of events.
 */
const transcriptOf = (writer: EventWriter, sessionId: string, file: string): Transcript => {
  let failure: string | undefined
  let folderMade = false
  return {
    path: file,
    failure: Effect.sync(() => failure),
    write: (record) =>
      Effect.suspend(() => {
        const line = toJsonLine(record)
        return writer.transcriptLine(line).pipe(
          Effect.zipRight(
            Effect.try(() => {
              if (!folderMade) fs.mkdirSync(path.dirname(file), { recursive: true })
              folderMade = true
              appendLineWhole(file, `${line}\n`)
            })
          ),
          Effect.catchAll((e) => {
            failure = `a transcript line was not written: ${String(e)}`
            return Effect.logWarning(`session ${sessionId}: ${failure}`)
          })
        )
      })
  }
}

/**
 * What the input runs with: the session's runtime and the run, and the span it is traced under;
 * not the runner's services around it (cluster, storage, HTTP request). Every service added
 * while a call runs copies its context, so a small one keeps each call cheaper.
 */
const sessionContext = (
  outer: Context.Context<never>,
  session: Context.Context<SessionServices>,
  run: RunControls
): Context.Context<SessionServices | CurrentRun> => {
  const traced = Option.match(Context.getOption(outer, Tracer.ParentSpan), {
    onNone: () => session,
    onSome: (span) => Context.add(session, Tracer.ParentSpan, span)
  })
  return Context.add(traced, CurrentRun, run)
}

/** Messages this input added (a merged last user message counts as added). */
const addedMessages = (
  before: ReadonlyArray<ModelMessage>,
  after: ReadonlyArray<ModelMessage>
): ReadonlyArray<ModelMessage> => {
  const last = before.length - 1
  const changed = last >= 0 && JSON.stringify(before[last]) !== JSON.stringify(after[last])
  return after.slice(changed ? last : before.length)
}

const firstSession = (sessionId: string, config: StoredConfig, transcriptPath: string) =>
  Effect.gen(function*() {
    const loaded = yield* (yield* Settings).current
    const session = newSession({
      cwd: config.cwd,
      permissionMode: loaded.mode,
      additionalDirectories: loaded.additionalDirectories,
      sessionId,
      sessionDir: config.sessionDir
    })
    return { session: { ...session, transcriptPath } satisfies SessionContext, loaded }
  })

const runPrompt = (run: RunControls, conversation: Conversation, body: unknown, config: StoredConfig) =>
  Effect.gen(function*() {
    const { content } = yield* Schema.decodeUnknown(Body)(body)
    const agent = yield* Agent
    const outcome = yield* agent.prompt(conversation, content, {
      interrupts: Stream.fromQueue(run.interrupts),
      onEvent: (event) => publishAgentEvent(run, event),
      transcript: run.transcript,
      ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns })
    })
    return {
      result: {
        stop: outcome.stop,
        stopReason: outcome.stopReason ?? null,
        text: outcome.text,
        turns: outcome.turns,
        usage: outcome.usage,
        messages: addedMessages(conversation.messages, outcome.conversation.messages),
        ...(outcome.error === undefined ? {} : { error: outcome.error.message })
      },
      state: outcome.conversation
    } satisfies Produced
  })

const runToolUses = (run: RunControls, conversation: Conversation, body: unknown, seq: number) =>
  Effect.gen(function*() {
    const { content: blocks } = yield* Schema.decodeUnknown(ToolUses)(body)
    const scheduler = yield* Scheduler
    const assistant: ModelMessage = { role: "assistant", content: blocks }
    yield* run.transcript.write({
      type: "assistant",
      turn: conversation.turns,
      input: seq,
      message: assistant,
      stop_reason: "tool_use"
    })
    const ran = yield* scheduler.runMessage(blocks, {
      session: conversation.session,
      interrupts: run.interrupts,
      onEvent: (event) => publishSchedulerEvent(run, conversation.turns, event)
    })
    for (const outcome of ran.outcomes) {
      yield* run.transcript.write({
        type: "tool_call",
        turn: conversation.turns,
        tool_use_id: outcome.toolUseId,
        name: outcome.toolName,
        input: toJsonValue(outcome.input),
        is_error: outcome.result.is_error === true,
        error: outcome.error?._tag ?? null,
        result: toJsonValue(outcome.result.content)
      })
    }
    const results: ModelMessage = { role: "user", content: ran.message.content }
    yield* run.transcript.write({
      type: "tool_results",
      turn: conversation.turns,
      message: results,
      interrupted: ran.interrupted,
      halt: ran.halt ?? null
    })
    const messages = appendUser(appendAssistant(conversation.messages, assistant), ran.message.content)
    return {
      result: {
        stop: ran.interrupted ? "interrupted" : "done",
        messages: addedMessages(conversation.messages, messages)
      },
      state: { ...conversation, messages, session: ran.session }
    } satisfies Produced
  })

export const executeInput = (
  payload: { readonly sessionId: string; readonly key: string },
  executionId: string,
  start: {
    /** The session's and the input's rows as the caller just read them. */
    readonly session: SessionRow
    readonly input: InputRow
    /** The caller moved the input from queued to running: no earlier attempt ran any of it. */
    readonly fresh: boolean
  }
) =>
  Effect.scoped(Effect.gen(function*() {
    const store = yield* SessionStore
    const eventLog = yield* EventLog
    const runs = yield* Runs
    const lease = yield* ShardLease
    const runtimes = yield* SessionRuntimes
    const settings = yield* ServeSettings
    // the input's end must be stored: it waits for storage that does not take writes
    const stored = untilStored(yield* StorageHealth)
    const scope = yield* Effect.scope
    const { sessionId, key } = payload
    const runStep = makeRunStep({
      store,
      lease,
      stored,
      executionId,
      fresh: start.fresh,
      holds: runs.holds(sessionId)
    })
    // the session's conversation and configuration change only when its inputs commit, and its
    // inputs run one at a time: a resumed run reads what the first one started from
    const snapshot: Snapshot = {
      config: start.session.config,
      state: start.session.state ?? null,
      kind: start.input.kind,
      body: start.input.body,
      seq: start.input.seq,
      createdAt: start.input.createdAt
    }
    const base = { key, seq: snapshot.seq, kind: snapshot.kind, createdAt: snapshot.createdAt }
    /** Stores the input's end (once: a run that finds it ended gets the stored result). */
    const commit = (
      status: "done" | "failed",
      produced: Omit<InputResult, keyof typeof base | "status">,
      ran: Ran | undefined
    ) =>
      Effect.gen(function*() {
        yield* lease.check
        const now = yield* Clock.currentTimeMillis
        const result = toJsonValue({ ...base, status, ...produced, finishedAt: now }) as InputResult
        const write = ran === undefined ? undefined : conversationWrite(ran.before, ran.produced.state, executionId)
        const finished = yield* stored(
          store.finishInput({
            sessionId,
            key,
            status,
            result,
            state: write?.header,
            ...(write === undefined ? {} : { messages: { from: write.from, rows: write.rows } }),
            events: [...(ran?.unstored.events ?? []), { type: "input_finished", data: result }],
            ...(ran === undefined ? {} : { transcript: ran.unstored.lines }),
            now
          })
        ).pipe(Effect.orDie)
        if (!finished) {
          const row = yield* store.input(sessionId, key).pipe(Effect.orDie)
          return yield* Effect.orDie(Schema.decodeUnknown(InputResult)(Option.getOrUndefined(row)?.result))
        }
        if (write !== undefined) {
          runs.conversations.set(sessionId, { committedBy: executionId, messages: write.messages })
        }
        yield* eventLog.landed(sessionId)
        yield* inputFinished({ kind: snapshot.kind, status, createdAt: snapshot.createdAt, now })
        return result
      })

    const body = Effect.scoped(
      Effect.gen(function*() {
        const config = yield* decodeConfig(snapshot.config)
        const transcriptFile = path.join(config.sessionDir, TRANSCRIPT_FILE)
        const writer = yield* eventLog.writer(sessionId)
        const stored = yield* loadConversation(store, runs.conversations, sessionId, snapshot.state)
        const run = yield* makeRun({
          sessionId,
          inputKey: key,
          executionId,
          runner: settings.runner,
          step: runStep,
          scope,
          approvalTimeoutMs: config.approvalTimeoutSeconds === undefined
            ? settings.approvalTimeoutMs
            : config.approvalTimeoutSeconds * 1000,
          turnsBefore: Option.match(stored, { onNone: () => 0, onSome: (c) => c.conversation.turns }),
          events: writer,
          transcript: transcriptOf(writer, sessionId, transcriptFile)
        })
        if (start.fresh) yield* run.goLive
        else run.noteReplayed()
        yield* Effect.acquireRelease(runs.register(run), () => runs.unregister(run))
        yield* run.events.emit("input_started", {
          key,
          seq: snapshot.seq,
          kind: snapshot.kind,
          runner: settings.runner
        })
        const context = yield* runtimes.get(sessionId)
        const produced = yield* Effect.gen(function*() {
          let conversation: Conversation
          if (Option.isSome(stored)) conversation = stored.value.conversation
          else {
            const { loaded, session } = yield* firstSession(sessionId, config, transcriptFile)
            for (const warning of loaded.warnings) yield* run.events.emit("notice", { text: `settings: ${warning}` })
            conversation = newConversation(session)
          }
          return snapshot.kind === "prompt"
            ? yield* runPrompt(run, conversation, snapshot.body, config)
            : yield* runToolUses(run, conversation, snapshot.body, snapshot.seq)
        }).pipe(Effect.mapInputContext((outer: Context.Context<never>) => sessionContext(outer, context, run)))
        const unstored = yield* writer.handOver
        return { produced, before: Option.getOrUndefined(stored), unstored } satisfies Ran
      })
    )

    return yield* body.pipe(
      Effect.matchCauseEffect({
        onSuccess: (ran) => commit("done", ran.produced.result, ran),
        onFailure: (cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause as Cause.Cause<never>)
            : commit("failed", { error: Cause.pretty(cause).split("\n")[0] ?? "the input failed" }, undefined)
      }),
      measureInput({
        sessionId,
        key,
        kind: snapshot.kind,
        seq: snapshot.seq,
        runner: settings.runner,
        resumed: !start.fresh
      })
    )
  }))
