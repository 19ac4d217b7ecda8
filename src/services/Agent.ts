/**
 * The agent loop: send the conversation with the system prompt
 * (built from each tool's `prompt`) and the pool's tools, run the tool calls while the model
 * streams, append the assistant message and the user message of tool results (plus hooks'
 * additionalContext and tools' `newMessages`), and go again — until the model stops asking for
 * tools, the turn limit, a user interrupt, or a hook's halt. `pause_turn` is resumed; a message
 * with tool calls that ends with `max_tokens` or `end_turn` has its calls answered and the loop
 * goes on (calls that never started get an error result); `refusal`, `max_tokens` without calls
 * and a model error end the prompt cleanly with every tool_use answered.
 *
 * The loop's hooks: UserPromptSubmit before a prompt is sent (it may
 * block it or add context), Stop (SubagentStop in a subagent) when the model ends its turn (it
 * may keep the model going), SessionStart and SessionEnd around a session (`startSession`,
 * `endSession`).
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Queue, Stream } from "effect"
import { randomUUID } from "node:crypto"
import {
  answerEveryToolUse,
  appendAssistant,
  appendUser,
  assistantMessage,
  INTERRUPT_MARKER,
  INTERRUPTED_TEXT,
  newMessageBlocks,
  notRunResult,
  promptBlocks,
  textOf,
  type Conversation
} from "./Agent/conversation.js"
import type { AgentEvent } from "./Agent/events.js"
import { buildSystemPrompt, type SystemPromptOptions } from "./Agent/systemPrompt.js"
import { noTranscript, type Transcript } from "./Agent/transcript.js"
import { runTurn, type SchedulingOptions, type TurnOutput } from "./Agent/turn.js"
import { ModelClient, type ModelError, type ModelMessage } from "./ModelClient.js"
import { addUsage, emptyUsage, type Usage } from "../ModelEvents.js"
import { behaviorOf, describeReason } from "../Permission.js"
import type { Halt } from "./CallPipeline.js"
import { Scheduler } from "./Scheduler.js"
import { ToolRegistry } from "./ToolRegistry.js"
import { DeferredTools } from "./DeferredTools.js"
import { BackgroundWork, Hooks, type SessionEndReason, type SessionStartSource } from "./Hooks.js"
import { systemReminder } from "../Messages.js"
import type { SessionContext } from "../Session.js"
import type { AnyTool } from "../Tool.js"

/**
 * Why a prompt ended.
 *
 * @since 0.1.0
 * @category models
 */
export type StopKind =
  | "end_turn"
  | "max_turns"
  | "interrupted"
  | "refusal"
  | "max_tokens"
  | "context_window"
  | "hook_stop"
  /** A UserPromptSubmit hook blocked the prompt: nothing was sent; `text` says why. */
  | "prompt_blocked"
  /** A PreToolUse hook deferred a call: the turn stops before it runs, with nothing sent back. */
  | "tool_deferred"
  | "error"

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptOptions {
  /** Most model turns for this prompt (default: no limit). */
  readonly maxTurns?: number
  /** Each element is one user interrupt (Ctrl-C): the first stops the model and cancels `cancel` calls. */
  readonly interrupts?: Stream.Stream<void>
  readonly onEvent?: (event: AgentEvent) => Effect.Effect<void>
  readonly transcript?: Transcript
  readonly scheduling?: SchedulingOptions
  readonly systemPrompt?: SystemPromptOptions
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptOutcome {
  readonly conversation: Conversation
  readonly stop: StopKind
  /** The model's last stop_reason. */
  readonly stopReason: string | undefined
  /** Turns of this prompt. */
  readonly turns: number
  /** The text of the last assistant message. */
  readonly text: string
  /** Usage of this prompt's turns. */
  readonly usage: Usage
  readonly error: ModelError | undefined
  readonly halt: Halt | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentService {
  /** Runs one user prompt to the end of the model's work. Never fails: a model error is an outcome. */
  readonly prompt: (
    conversation: Conversation,
    prompt: string | ReadonlyArray<Readonly<Record<string, unknown>>>,
    options?: PromptOptions
  ) => Effect.Effect<PromptOutcome>
  /** The system prompt a session gets (the tool pool's prompts in stable order). */
  readonly systemPrompt: (conversation: Conversation, options?: SystemPromptOptions) => Effect.Effect<string>
  /**
   * Runs the SessionStart hooks; what they add for the model goes before the next prompt. Notices
   * (messages for the person) are returned.
   */
  readonly startSession: (
    conversation: Conversation,
    options: { readonly source: SessionStartSource; readonly transcript?: Transcript }
  ) => Effect.Effect<{ readonly conversation: Conversation; readonly notices: ReadonlyArray<string> }>
  /** Runs the SessionEnd hooks; returns their notices. */
  readonly endSession: (conversation: Conversation, reason: SessionEndReason) => Effect.Effect<ReadonlyArray<string>>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Agent extends Context.Tag("toolgate/Agent")<Agent, AgentService>() {}

const hasToolUse = (message: ModelMessage | undefined) =>
  message !== undefined && typeof message.content !== "string" && message.content.some((b) => b.type === "tool_use")

const stopKindOf = (stopReason: string | undefined): StopKind | "continue" | "missing" => {
  switch (stopReason) {
    case "tool_use":
    case "pause_turn":
      return "continue"
    case "max_tokens":
      return "max_tokens"
    case "refusal":
      return "refusal"
    case "model_context_window_exceeded":
      return "context_window"
    case undefined:
      return "missing"
    default:
      return "end_turn"
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const model = yield* ModelClient
  const scheduler = yield* Scheduler
  const registry = yield* ToolRegistry
  const hooks = yield* Hooks
  const backgroundWork = yield* Effect.serviceOption(BackgroundWork)

  // With tool search on, deferred tools are named in the system prompt and sent once loaded.
  const deferred = yield* Effect.serviceOption(DeferredTools)
  const toolsFor = (messages: ReadonlyArray<ModelMessage>) =>
    Option.isSome(deferred)
      ? deferred.value.forTurn(messages)
      : Effect.map(
        registry.pool,
        (pool) => ({ apiTools: pool.apiSchemas, promptTools: pool.tools, systemPromptSection: undefined })
      )
  const systemFor = (
    tools: { readonly promptTools: ReadonlyArray<AnyTool>; readonly systemPromptSection: string | undefined },
    session: SessionContext,
    options?: SystemPromptOptions
  ) => {
    const append = [tools.systemPromptSection, options?.append].filter((part): part is string => part !== undefined)
      .join("\n\n")
    return buildSystemPrompt(tools.promptTools, session, append === "" ? options : { ...options, append })
  }

  const systemPrompt = Effect.fn("Agent.systemPrompt")(
    function*(conversation: Conversation, options?: SystemPromptOptions) {
      return systemFor(yield* toolsFor(conversation.messages), conversation.session, options)
    }
  )

  const record = (transcript: Transcript, turn: number, out: TurnOutput, assistant: ModelMessage | undefined) =>
    Effect.gen(function*() {
      yield* transcript.write({
        type: "model_turn",
        turn,
        at: new Date(out.startedAt).toISOString(),
        duration_ms: out.endedAt - out.startedAt,
        stop_reason: out.stopReason ?? null,
        usage: out.usage,
        ...(out.retries.length > 0 ? { retries: out.retries } : {}),
        ...(out.error === undefined ? {} : { error: { tag: out.error._tag, message: out.error.message } }),
        events: out.events
      })
      if (assistant !== undefined) {
        yield* transcript.write({ type: "assistant", turn, message: assistant, stop_reason: out.stopReason ?? null })
      }
      for (const [i, outcome] of out.run.outcomes.entries()) {
        const timing = out.run.timeline[i]
        const times = out.callTimes.get(outcome.toolUseId)
        yield* transcript.write({
          type: "tool_call",
          turn,
          tool_use_id: outcome.toolUseId,
          name: outcome.toolName,
          input: outcome.input,
          decision: outcome.decision === undefined
            ? null
            : { behavior: behaviorOf(outcome.decision), reason: describeReason(outcome.decision.reason) },
          batch: timing?.batch ?? null,
          started_ms: timing?.startedMs ?? null,
          ended_ms: timing?.endedMs ?? null,
          started_at: times?.startedAt === undefined ? null : new Date(times.startedAt).toISOString(),
          outcome: timing?.outcome ?? null,
          is_error: outcome.result.is_error === true,
          error: outcome.error?._tag ?? null,
          result: outcome.result.content,
          ...(outcome.notices.length > 0 ? { notices: outcome.notices } : {})
        })
      }
    })

  const prompt = Effect.fn("Agent.prompt")(function*(
    conversation: Conversation,
    input: string | ReadonlyArray<Readonly<Record<string, unknown>>>,
    options: PromptOptions = {}
  ) {
    const emit = options.onEvent ?? (() => Effect.void)
    const transcript = options.transcript ?? noTranscript
    const maxTurns = options.maxTurns ?? Number.POSITIVE_INFINITY
    const system = systemFor(yield* toolsFor(conversation.messages), conversation.session, options.systemPrompt)
    const notify = (turn: number, notices: ReadonlyArray<string>) =>
      Effect.forEach(notices, (text) => emit({ _tag: "Notice", turn, text }), { discard: true })

    const userBlocks = promptBlocks(input)
    // The prompt's id names it for hooks (`prompt_id`) until the next prompt.
    let session: SessionContext = { ...conversation.session, promptId: randomUUID(), model: model.model }
    yield* transcript.write({
      type: "user",
      at: new Date(yield* Clock.currentTimeMillis).toISOString(),
      message: { role: "user", content: userBlocks }
    })
    // A subagent's prompt comes from its parent's call, not from a person: no UserPromptSubmit.
    const submitted = session.agent === undefined
      ? yield* hooks.userPromptSubmit({ prompt: promptText(userBlocks), session })
      : { reminders: [], notices: [] }
    yield* notify(conversation.turns, submitted.notices)
    if (submitted.blocked !== undefined) {
      yield* transcript.write({
        type: "prompt_end",
        at: new Date(yield* Clock.currentTimeMillis).toISOString(),
        stop: "prompt_blocked",
        stop_reason: null,
        turns: 0,
        usage: emptyUsage,
        blocked: submitted.blocked
      })
      return {
        conversation,
        stop: "prompt_blocked",
        stopReason: undefined,
        turns: 0,
        text: submitted.blocked,
        usage: emptyUsage,
        error: undefined,
        halt: undefined
      } satisfies PromptOutcome
    }
    if (submitted.reminders.length > 0) {
      yield* transcript.write({ type: "hook_context", event: "UserPromptSubmit", reminders: submitted.reminders })
    }
    let messages = appendUser(conversation.messages, [...reminderBlocks(submitted.reminders), ...userBlocks])

    // One subscription to the interrupts for the whole prompt; each goes to the running turn.
    let interrupts = 0
    let current: Queue.Queue<void> | undefined
    if (options.interrupts !== undefined) {
      yield* options.interrupts.pipe(
        Stream.runForEach(() =>
          Effect.suspend(() => {
            interrupts++
            return current === undefined ? Effect.void : Queue.offer(current, undefined)
          })
        ),
        Effect.forkScoped
      )
    }

    let usage: Usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
    let stopHookActive = false
    let turns = 0
    let lastAssistant: ModelMessage | undefined
    let stopReason: string | undefined
    let stop: StopKind | undefined
    let error: ModelError | undefined
    let halt: Halt | undefined

    while (stop === undefined) {
      if (interrupts > 0) {
        stop = "interrupted"
        messages = appendUser(messages, [{ type: "text", text: INTERRUPTED_TEXT }])
        break
      }
      if (turns >= maxTurns) {
        stop = "max_turns"
        break
      }
      turns++
      const turn = conversation.turns + turns
      yield* emit({ _tag: "TurnStarted", turn })
      const queue = yield* Queue.unbounded<void>()
      current = queue
      const out = yield* runTurn(model, scheduler, {
        turn,
        request: { system, messages, tools: (yield* toolsFor(messages)).apiTools },
        session,
        scheduling: options.scheduling ?? {},
        interrupts: queue,
        emit,
        journal: transcript.write
      })
      current = undefined
      usage = addUsage(usage, out.usage)
      stopReason = out.stopReason
      session = out.run.session

      const assistant = assistantMessage(out.blocks)
      messages = appendAssistant(messages, assistant)
      if (assistant !== undefined) lastAssistant = assistant
      yield* emit({ _tag: "AssistantMessage", turn, message: assistant, stopReason: out.stopReason, usage: out.usage })
      yield* record(transcript, turn, out, assistant)

      const interrupted = interrupts > 0 || out.run.interrupted || out.run.halt?.kind === "userInterrupt"
      if (hasToolUse(assistant) || out.run.outcomes.length > 0) {
        const extra = newMessageBlocks(out.run.outcomes.flatMap((o) => o.newMessages))
        if (extra.skipped > 0) {
          yield* emit({
            _tag: "Notice",
            turn,
            text: `${extra.skipped} message(s) from tools could not be added to the conversation (not user content)`
          })
        }
        const content = answerEveryToolUse(
          assistant,
          [...out.run.message.content, ...extra.blocks],
          (id, name) =>
            notRunResult(
              id,
              name,
              out.error === undefined
                ? "the model's message ended before the call could start"
                : `the model's stream failed (${out.error.message})`
            )
        )
        const withMarker = interrupted ? [...content, { type: "text", text: INTERRUPT_MARKER }] : content
        messages = appendUser(messages, withMarker)
        const results: ModelMessage = { role: "user", content: withMarker }
        yield* emit({ _tag: "ToolResults", turn, message: results, run: out.run })
        yield* transcript.write({
          type: "tool_results",
          turn,
          message: results,
          interrupted,
          halt: out.run.halt ?? null
        })
      } else if (interrupted) {
        messages = appendUser(messages, [{ type: "text", text: INTERRUPTED_TEXT }])
      }

      if (out.error !== undefined) {
        stop = "error"
        error = out.error
      } else if (interrupted) stop = "interrupted"
      else if (out.run.halt !== undefined) {
        stop = out.run.halt.kind === "deferred" ? "tool_deferred" : "hook_stop"
        halt = out.run.halt
      } else {
        const kind = stopKindOf(out.stopReason)
        // Tool calls are answered and the loop goes on whatever else ended the message (as
        // Claude Code does): the model asked for them and waits for their results.
        const answered = hasToolUse(assistant) && (kind === "max_tokens" || kind === "end_turn")
        if (answered) {
          // go on
        } else if (kind === "missing") stop = "end_turn"
        else if (kind !== "continue") stop = kind
        else if (out.stopReason === "tool_use" && !hasToolUse(assistant)) stop = "end_turn"
        else if (out.stopReason === "pause_turn" && assistant === undefined) stop = "end_turn"
      }

      // The model ended its turn: Stop hooks may keep it going, with what they said as the next message.
      if (stop === "end_turn") {
        const backgroundTasks = Option.isSome(backgroundWork) ? yield* backgroundWork.value.running : undefined
        const stopped = yield* hooks.stop({
          session,
          stopHookActive,
          lastAssistantMessage: textOf(lastAssistant).trim(),
          ...(backgroundTasks === undefined ? {} : { backgroundTasks })
        })
        yield* notify(turn, stopped.notices)
        if (stopped.stop === undefined && stopped.continueWith.length > 0) {
          const feedback = stopped.continueWith.map((text) => ({ type: "text", text }))
          messages = appendUser(messages, feedback)
          yield* transcript.write({
            type: "hook_context",
            event: session.agent === undefined ? "Stop" : "SubagentStop",
            turn,
            message: { role: "user", content: feedback }
          })
          stopHookActive = true
          stop = undefined
        }
      }
    }

    const outcome: PromptOutcome = {
      conversation: {
        messages,
        session,
        usage: addUsage(conversation.usage, usage),
        turns: conversation.turns + turns
      },
      stop: stop ?? "end_turn",
      stopReason,
      turns,
      text: textOf(lastAssistant),
      usage,
      error,
      halt
    }
    yield* transcript.write({
      type: "prompt_end",
      at: new Date(yield* Clock.currentTimeMillis).toISOString(),
      stop: outcome.stop,
      stop_reason: stopReason ?? null,
      turns,
      usage,
      ...(error === undefined ? {} : { error: { tag: error._tag, message: error.message } }),
      ...(halt === undefined ? {} : { halt })
    })
    return outcome
  }, Effect.scoped)

  const startSession = Effect.fn("Agent.startSession")(function*(
    conversation: Conversation,
    options: { readonly source: SessionStartSource; readonly transcript?: Transcript }
  ) {
    const started = yield* hooks.sessionStart({ session: conversation.session, source: options.source })
    if (started.reminders.length === 0) return { conversation, notices: started.notices }
    yield* (options.transcript ?? noTranscript).write({
      type: "hook_context",
      event: "SessionStart",
      reminders: started.reminders
    })
    return {
      conversation: { ...conversation, messages: appendUser(conversation.messages, reminderBlocks(started.reminders)) },
      notices: started.notices
    }
  })

  const endSession = (conversation: Conversation, reason: SessionEndReason) =>
    Effect.map(hooks.sessionEnd({ session: conversation.session, reason }), (ended) => ended.notices)

  return Agent.of({ prompt, systemPrompt, startSession, endSession })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Agent, never, ModelClient | Scheduler | ToolRegistry | Hooks> = Layer.effect(
  Agent,
  make
)

const reminderBlocks = (reminders: ReadonlyArray<string>) =>
  reminders.map((text) => ({ type: "text", text: systemReminder(text) }))

/** The text of a prompt's blocks, as UserPromptSubmit hooks see it. */
const promptText = (blocks: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  blocks
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n")

// ---------------------------------------------------------------------------------------------
// Beside the loop: its events, conversation and transcript, recorded approvals and replays (the
// CLI, served sessions), and subagents (the Agent tool)
// ---------------------------------------------------------------------------------------------

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  AgentEvent
} from "./Agent/events.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  answerEveryToolUse,
  /**
   * @since 0.1.0
   * @category utils
   */
  appendAssistant,
  /**
   * @since 0.1.0
   * @category utils
   */
  appendUser,
  /**
   * @since 0.1.0
   * @category constructors
   */
  newConversation,
  /**
   * @since 0.1.0
   * @category utils
   */
  notRunResult,
  /**
   * @since 0.1.0
   * @category utils
   */
  outcomeUnknownResult,
  /**
   * @since 0.1.0
   * @category utils
   */
  toApiBlock,
  /**
   * @since 0.1.0
   * @category models
   */
  type Conversation
} from "./Agent/conversation.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  openTranscript,
  /**
   * @since 0.1.0
   * @category utils
   */
  readTranscript,
  /**
   * @since 0.1.0
   * @category utils
   */
  toJsonLine,
  /**
   * @since 0.1.0
   * @category constants
   */
  TRANSCRIPT_FILE,
  /**
   * @since 0.1.0
   * @category constants
   */
  TRANSCRIPT_VERSION,
  /**
   * @since 0.1.0
   * @category models
   */
  type Transcript
} from "./Agent/transcript.js"
export {
  /**
   * @since 0.1.0
   * @category layers
   */
  layerReplayed,
  /**
   * @since 0.1.0
   * @category constructors
   */
  makeApprovalRecorder,
  /**
   * @since 0.1.0
   * @category models
   */
  type ApprovalRecorder
} from "./Agent/approvals.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  compareReplay,
  /**
   * @since 0.1.0
   * @category utils
   */
  replayedCallsOf,
  /**
   * @since 0.1.0
   * @category models
   */
  type ReplayedCall,
  /**
   * @since 0.1.0
   * @category models
   */
  type ReplayReport
} from "./Agent/replay.js"
/**
 * @since 0.1.0
 * @category modules
 */
export * as SubagentModels from "./Agent/subagents/SubagentModels.js"
export {
  /**
   * @since 0.1.0
   * @category constants
   */
  BUILTIN_AGENTS,
  /**
   * @since 0.1.0
   * @category constants
   */
  DEFAULT_AGENT_TYPE
} from "./Agent/subagents/builtins.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  agentDirs,
  /**
   * @since 0.1.0
   * @category utils
   */
  loadAgents,
  /**
   * @since 0.1.0
   * @category models
   */
  type AgentDefinition,
  /**
   * @since 0.1.0
   * @category models
   */
  type LoadedAgents
} from "./Agent/subagents/definitions.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  agentHookResponse,
  /**
   * @since 0.1.0
   * @category utils
   */
  agentResultText,
  /**
   * @since 0.1.0
   * @category models
   */
  type AgentOutput
} from "./Agent/subagents/output.js"
export {
  /**
   * @since 0.1.0
   * @category constants
   */
  AGENT_TOOL_NAME,
  /**
   * @since 0.1.0
   * @category utils
   */
  toolEntryWarnings
} from "./Agent/subagents/pool.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  runSubagent,
  /**
   * @since 0.1.0
   * @category models
   */
  type SubagentDeps
} from "./Agent/subagents/runSubagent.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  parseSubagentScripts
} from "./Agent/subagents/scriptedSubagents.js"
