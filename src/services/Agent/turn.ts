/**
 * One model turn: stream the model's message and run its tool calls while it streams. The
 * model's events are turned into the scheduler's (`ToolUse` at each tool_use block stop,
 * `BlockStarted` at every block start after the first, `StopReason` at message_delta); the stream
 * ends at message_stop, and a model error ends it like a non-tool_use stop. The first user
 * interrupt reaches the scheduler before it stops the model's stream, so calls that never
 * started get the interrupt text rather than "not run". Each call is written to the journal
 * before it runs (`call_started`, with the message's blocks received so far) and when it has
 * its result (`call_finished`): a crash mid-turn leaves enough to answer it on resume.
 */
import type { Queue } from "effect"
import { Clock, Deferred, Effect, Stream } from "effect"
import type { ModelError, ModelClientService, ModelRequest } from "../ModelClient.js"
import type { AssistantBlock, ModelEvent, RetryInfo, Usage } from "../../ModelEvents.js"
import { emptyUsage } from "../../ModelEvents.js"
import type { CallStreamEvent, MessageRun, SchedulerEvent, SchedulerOptions, SchedulerService } from "../Scheduler.js"
import type { SessionContext } from "../../Session.js"
import type { AgentEvent } from "./events.js"
import { toApiBlock } from "./conversation.js"

export interface SchedulingOptions {
  readonly maxConcurrency?: number
  readonly mode?: NonNullable<SchedulerOptions["mode"]>
  readonly siblingCancellation?: boolean
}

export interface TurnInput {
  readonly turn: number
  readonly request: Omit<ModelRequest, "onRetry">
  readonly session: SessionContext
  readonly scheduling: SchedulingOptions
  /** This turn's user interrupts (one element per Ctrl-C). */
  readonly interrupts: Queue.Queue<void>
  readonly emit: (event: AgentEvent) => Effect.Effect<void>
  /** Where each call is recorded before it runs and when it ends (the transcript). */
  readonly journal?: (line: Readonly<Record<string, unknown>>) => Effect.Effect<void>
}

export interface CallTimes {
  startedAt?: number
  endedAt?: number
}

export interface TurnOutput {
  /** Finished blocks in index order (plus the partial text of a block cut by an interrupt). */
  readonly blocks: ReadonlyArray<AssistantBlock>
  readonly stopReason: string | undefined
  readonly stopDetails: unknown
  readonly usage: Usage
  readonly run: MessageRun
  readonly error: ModelError | undefined
  /** Raw stream events with ms since the request was sent (the transcript's replayable part). */
  readonly events: ReadonlyArray<{ readonly at_ms: number; readonly event: unknown }>
  readonly retries: ReadonlyArray<RetryInfo>
  /** Wall-clock start and end of each call, by tool_use id. */
  readonly callTimes: ReadonlyMap<string, CallTimes>
  readonly startedAt: number
  readonly endedAt: number
}

const mergeUsage = (start: Usage, delta: Usage): Usage => ({
  input_tokens: delta.input_tokens || start.input_tokens,
  output_tokens: delta.output_tokens || start.output_tokens,
  cache_creation_input_tokens: delta.cache_creation_input_tokens || start.cache_creation_input_tokens,
  cache_read_input_tokens: delta.cache_read_input_tokens || start.cache_read_input_tokens
})

export const runTurn = (
  model: ModelClientService,
  scheduler: SchedulerService,
  input: TurnInput
): Effect.Effect<TurnOutput> =>
  Effect.gen(function*() {
    const { turn, emit } = input
    const startedAt = yield* Clock.currentTimeMillis
    const stopModel = yield* Deferred.make<void>()
    const finished = new Map<number, AssistantBlock>()
    const partialText = new Map<number, string>()
    const events: Array<{ at_ms: number; event: unknown }> = []
    const retries: Array<RetryInfo> = []
    const callTimes = new Map<string, CallTimes>()
    let startUsage: Usage = emptyUsage
    let usage: Usage = emptyUsage
    let stopReason: string | undefined
    let stopDetails: unknown
    let error: ModelError | undefined
    let blockStarts = 0
    /** Blocks up to this index are in the journal already. */
    let journaled = -1

    const observe = (event: ModelEvent): Effect.Effect<ReadonlyArray<CallStreamEvent>> => {
      switch (event._tag) {
        case "Raw":
          events.push({ at_ms: event.atMs, event: event.event })
          return Effect.succeed([])
        case "MessageStart":
          startUsage = event.usage
          usage = event.usage
          return Effect.as(emit({ _tag: "Model", turn, event }), [])
        case "BlockStart":
          blockStarts++
          if (event.blockType === "text") partialText.set(event.index, "")
          return Effect.as(
            emit({ _tag: "Model", turn, event }),
            blockStarts > 1 ? [{ _tag: "BlockStarted" } as const] : []
          )
        case "TextDelta":
          partialText.set(event.index, (partialText.get(event.index) ?? "") + event.text)
          return Effect.as(emit({ _tag: "Model", turn, event }), [])
        case "BlockStop":
          finished.set(event.index, event.block)
          partialText.delete(event.index)
          return Effect.as(
            emit({ _tag: "Model", turn, event }),
            event.block.type === "tool_use" ? [{ _tag: "ToolUse", block: event.block } as const] : []
          )
        case "MessageDelta":
          if (event.stopReason !== undefined) stopReason = event.stopReason
          if (event.stopDetails !== undefined) stopDetails = event.stopDetails
          usage = mergeUsage(startUsage, event.usage)
          return Effect.as(
            emit({ _tag: "Model", turn, event }),
            event.stopReason === undefined ? [] : [{ _tag: "StopReason", stopReason: event.stopReason } as const]
          )
        default:
          return Effect.as(emit({ _tag: "Model", turn, event }), [])
      }
    }

    const request: ModelRequest = {
      ...input.request,
      onRetry: (info) =>
        Effect.suspend(() => {
          retries.push(info)
          return emit({ _tag: "Retrying", turn, info })
        })
    }
    const callEvents = model.stream(request).pipe(
      Stream.interruptWhenDeferred(stopModel),
      Stream.mapEffect(observe),
      Stream.flattenIterables,
      Stream.tapError((e) =>
        Effect.suspend(() => {
          error = e
          return emit({ _tag: "TurnFailed", turn, error: e })
        })
      )
    )
    // Each interrupt is handed to the scheduler first; pulling the next one stops the model.
    const interrupts = Stream.fromQueue(input.interrupts).pipe(
      Stream.flatMap(() =>
        Stream.concat(Stream.succeed(undefined), Stream.execute(Deferred.succeed(stopModel, undefined)))
      )
    )

    /** The finished blocks not journaled yet, as they are sent back (blocks finish in index order). */
    const newBlocks = () => {
      const fresh: Array<Readonly<Record<string, unknown>>> = []
      for (const index of [...finished.keys()].sort((x, y) => x - y)) {
        if (index <= journaled) continue
        const block = finished.get(index)!
        journaled = index
        if (block.type === "text" && block.text.trim() === "") continue
        fresh.push(toApiBlock(block))
      }
      return fresh
    }
    const journal = input.journal
    const record = (event: SchedulerEvent): Effect.Effect<void> => {
      if (journal === undefined) return Effect.void
      if (event._tag === "CallStarted") {
        return journal({ type: "call_started", turn, tool_use_id: event.toolUseId, blocks: newBlocks() })
      }
      if (event._tag === "CallFinished") {
        return journal({
          type: "call_finished",
          turn,
          tool_use_id: event.outcome.toolUseId,
          result: event.outcome.result
        })
      }
      return Effect.void
    }

    const run = yield* scheduler.runStream(callEvents, {
      session: input.session,
      interrupts,
      ...input.scheduling,
      onEvent: (event) =>
        Effect.flatMap(Clock.currentTimeMillis, (atMs) => {
          if (event._tag === "CallStarted") {
            callTimes.set(event.toolUseId, { startedAt: atMs })
          }
          if (event._tag === "CallFinished") {
            const id = event.outcome.toolUseId
            callTimes.set(id, { ...callTimes.get(id), endedAt: atMs })
          }
          // written before the call is forked: the scheduler tells its listener first
          return Effect.zipRight(record(event), emit({ _tag: "Call", turn, event, atMs }))
        })
    })

    // A text block cut short is kept only when the user stopped the model (it said that much).
    const stopped = yield* Deferred.isDone(stopModel)
    const blocks: Array<AssistantBlock> = []
    for (
      const index of [...new Set([...finished.keys(), ...partialText.keys()])].sort((x, y) => x - y)
    ) {
      const done = finished.get(index)
      const partial = partialText.get(index)
      if (done !== undefined) blocks.push(done)
      else if (stopped && partial !== undefined && partial !== "") blocks.push({ type: "text", text: partial })
    }
    const endedAt = yield* Clock.currentTimeMillis
    return { blocks, stopReason, stopDetails, usage, run, error, events, retries, callTimes, startedAt, endedAt }
  })
