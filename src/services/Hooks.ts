/**
 * The hook stage: PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure and
 * PostToolBatch around each call, and the events of the agent loop and the
 * session: UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, Notification. Hooks
 * never fail the pipeline: a broken hook is a notice, never an approval.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, FiberSet, Layer, Option, type Scope } from "effect"
import type { AnyTool } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import type { RuleSuggestion } from "../Permission.js"
import { Settings, type SettingsSource } from "./Settings.js"
import { ShellAnalyzer } from "./ShellAnalyzer.js"
import type { ProcessWrapper } from "./Sandbox.js"
import type { HookInput, InProcessHook } from "./Hooks/types.js"
import { isReady } from "../internal/ready.js"
import { hookNameOf, inheritedEnv, makeEngine, type EngineOptions } from "./Hooks/engine.js"
import {
  aggregatePermissionRequest,
  aggregatePostToolBatch,
  aggregatePostToolUse,
  aggregatePostToolUseFailure,
  aggregatePreToolUse,
  aggregateSessionStart,
  aggregateStop,
  aggregateUserPromptSubmit
} from "./Hooks/aggregate.js"
import {
  notificationInput,
  sessionEndInput,
  sessionStartInput,
  stopInput,
  userPromptSubmitInput,
  permissionRequestInput,
  postToolBatchInput,
  postToolUseFailureInput,
  postToolUseInput,
  preToolUseInput
} from "./Hooks/input.js"

import type { HookEvent, PermissionUpdateEntry, SessionEndReason, SessionStartSource } from "./Hooks/types.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  HookEvent,
  /**
   * @since 0.1.0
   * @category models
   */
  HookInput,
  /**
   * @since 0.1.0
   * @category models
   */
  HookJsonOutput,
  /**
   * @since 0.1.0
   * @category models
   */
  InProcessHook,
  /**
   * @since 0.1.0
   * @category models
   */
  PermissionUpdateEntry,
  /**
   * @since 0.1.0
   * @category models
   */
  PreToolUseInput,
  /**
   * @since 0.1.0
   * @category models
   */
  PermissionRequestInput,
  /**
   * @since 0.1.0
   * @category models
   */
  PostToolUseInput,
  /**
   * @since 0.1.0
   * @category models
   */
  PostToolUseFailureInput,
  /**
   * @since 0.1.0
   * @category models
   */
  PostToolBatchInput,
  /**
   * @since 0.1.0
   * @category models
   */
  UserPromptSubmitInput,
  /**
   * @since 0.1.0
   * @category models
   */
  StopInput,
  /**
   * @since 0.1.0
   * @category models
   */
  SubagentStopInput,
  /**
   * @since 0.1.0
   * @category models
   */
  SessionStartInput,
  /**
   * @since 0.1.0
   * @category models
   */
  SessionStartSource,
  /**
   * @since 0.1.0
   * @category models
   */
  SessionEndInput,
  /**
   * @since 0.1.0
   * @category models
   */
  SessionEndReason,
  /**
   * @since 0.1.0
   * @category models
   */
  NotificationInput
} from "./Hooks/types.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface PreToolUseRequest {
  readonly tool: AnyTool
  /** The input with paths made absolute (what hooks see as `tool_input`). */
  readonly toolInput: unknown
  readonly toolUseId: string
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PreToolUseOutcome {
  /** The aggregated decision: deny > defer > ask > allow; undefined when no hook decided. */
  readonly decision: "allow" | "deny" | "ask" | "defer" | undefined
  /** For deny: what blocked, as the model will see it. `command` is set for an exit-2 block. */
  readonly block?: { readonly command?: string; readonly reason: string }
  /** For allow / ask: the reason shown to the user. */
  readonly reason?: string
  /** Replaces the whole input (honoured with allow or ask, and with no decision). */
  readonly updatedInput?: Record<string, unknown>
  /** For the model, each in a system reminder next to the results (`additionalContext`, worded as Claude Code does). */
  readonly reminders: ReadonlyArray<string>
  /** `continue: false`: stop after this hook. */
  readonly stop?: { readonly reason: string }
  /** Messages for the user: system messages, non-blocking hook errors. */
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionRequestRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly session: SessionContext
  readonly suggestions: ReadonlyArray<RuleSuggestion>
}

/**
 * A permission-update entry a PermissionRequest hook returns.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionUpdate = PermissionUpdateEntry

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionRequestOutcome {
  readonly decision?:
    | {
      readonly behavior: "allow"
      readonly updatedInput?: Record<string, unknown>
      readonly updatedPermissions?: ReadonlyArray<PermissionUpdate>
    }
    | { readonly behavior: "deny"; readonly message?: string; readonly interrupt?: boolean }
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolUseRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly toolUseId: string
  /** The tool's structured output (`tool.hookResponse(output)`). */
  readonly toolResponse: unknown
  readonly durationMs: number
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolUseOutcome {
  /**
   * For the model, folded into the result: per hook, its blocking error (`decision: "block"`,
   * exit 2) and its `additionalContext`, worded as Claude Code does.
   */
  readonly reminders: ReadonlyArray<string>
  /** `updatedMCPToolOutput` (MCP tools) / `updatedToolOutput`: replaces the tool's output. */
  readonly updatedOutput?: unknown
  readonly stop?: { readonly reason: string }
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolUseFailureRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly toolUseId: string
  readonly error: string
  readonly isInterrupt: boolean
  readonly durationMs: number
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolUseFailureOutcome {
  /** For the model, folded into the error result (as for PostToolUse). */
  readonly reminders: ReadonlyArray<string>
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolBatchRequest {
  readonly calls: ReadonlyArray<{
    readonly toolName: string
    readonly toolInput: unknown
    readonly toolUseId: string
    /** The serialised tool_result content the model sees. */
    readonly toolResponse: unknown
  }>
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PostToolBatchOutcome {
  /** For the model, each in a system reminder after the results. */
  readonly reminders: ReadonlyArray<string>
  /** `decision: "block"` or `continue: false`: stop the loop before the next model call. */
  readonly stop?: { readonly reason: string }
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface UserPromptSubmitRequest {
  readonly prompt: string
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface UserPromptSubmitOutcome {
  /** The prompt is not sent to the model; what the person reads instead. */
  readonly blocked?: string
  /** For the model, each in a system reminder before the prompt. */
  readonly reminders: ReadonlyArray<string>
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StopRequest {
  /** A subagent's session (with `agent`) runs SubagentStop hooks, any other Stop hooks. */
  readonly session: SessionContext
  /** True when the model is already going on because a Stop hook blocked before in this prompt. */
  readonly stopHookActive: boolean
  /** The text of the model's last message. */
  readonly lastAssistantMessage: string | undefined
  /** Work still running in the background (hooks see it as `background_tasks`), when known. */
  readonly backgroundTasks?: ReadonlyArray<BackgroundTaskInfo>
}

/**
 * A background task as Stop hooks see it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BackgroundTaskInfo {
  readonly id: string
  /** `shell`, `subagent`, … */
  readonly type: string
  readonly status: string
  readonly description: string
  readonly command?: string
}

/**
 * The session's background work that is still running, for Stop hooks to tell "done" from
 * "waiting for background work". The runtime preset provides it from the background shells.
 *
 * @since 0.1.0
 * @category services
 */
export class BackgroundWork extends Context.Tag("toolgate/BackgroundWork")<
  BackgroundWork,
  { readonly running: Effect.Effect<ReadonlyArray<BackgroundTaskInfo>> }
>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface StopOutcome {
  /** Non-empty: the model goes on, with these text blocks as the next user message. */
  readonly continueWith: ReadonlyArray<string>
  /** `continue: false`: the turn ends here, whatever else a hook said. */
  readonly stop?: { readonly reason: string }
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionStartRequest {
  readonly session: SessionContext
  readonly source: SessionStartSource
  readonly model?: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionStartOutcome {
  /** For the model, each in a system reminder before the first prompt. */
  readonly reminders: ReadonlyArray<string>
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionEndRequest {
  readonly session: SessionContext
  readonly reason: SessionEndReason
}

/**
 * @since 0.1.0
 * @category models
 */
export interface NotificationRequest {
  readonly session: SessionContext
  readonly message: string
  /** `permission_prompt`, `idle_prompt`, … (what matchers match). */
  readonly notificationType: string
  readonly title?: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface NoticesOutcome {
  readonly notices: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface HooksService {
  readonly preToolUse: (request: PreToolUseRequest) => Effect.Effect<PreToolUseOutcome>
  readonly permissionRequest: (request: PermissionRequestRequest) => Effect.Effect<PermissionRequestOutcome>
  readonly postToolUse: (request: PostToolUseRequest) => Effect.Effect<PostToolUseOutcome>
  readonly postToolUseFailure: (request: PostToolUseFailureRequest) => Effect.Effect<PostToolUseFailureOutcome>
  readonly postToolBatch: (request: PostToolBatchRequest) => Effect.Effect<PostToolBatchOutcome>
  readonly userPromptSubmit: (request: UserPromptSubmitRequest) => Effect.Effect<UserPromptSubmitOutcome>
  /** Stop, or SubagentStop inside a subagent. */
  readonly stop: (request: StopRequest) => Effect.Effect<StopOutcome>
  readonly sessionStart: (request: SessionStartRequest) => Effect.Effect<SessionStartOutcome>
  readonly sessionEnd: (request: SessionEndRequest) => Effect.Effect<NoticesOutcome>
  readonly notification: (request: NotificationRequest) => Effect.Effect<NoticesOutcome>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Hooks extends Context.Tag("toolgate/Hooks")<Hooks, HooksService>() {}

/**
 * @since 0.1.0
 * @category utils
 */
export const emptyPreToolUse: PreToolUseOutcome = { decision: undefined, reminders: [], notices: [] }
const emptyPost = { reminders: [], notices: [] } as const
const noPermissionRequest: PermissionRequestOutcome = { notices: [] }
const NO_PRE_TOOL_USE = Effect.succeed(emptyPreToolUse)
const NO_PERMISSION_REQUEST = Effect.succeed(noPermissionRequest)
const NO_POST: Effect.Effect<PostToolUseOutcome & PostToolUseFailureOutcome & PostToolBatchOutcome> = Effect.succeed(
  emptyPost
)
const noContinuation: StopOutcome = { continueWith: [], notices: [] }
const noNotices: NoticesOutcome = { notices: [] }

/**
 * No hooks at all.
 *
 * @since 0.1.0
 * @category utils
 */
export const none: HooksService = {
  preToolUse: () => Effect.succeed(emptyPreToolUse),
  permissionRequest: () => Effect.succeed({ notices: [] }),
  postToolUse: () => Effect.succeed(emptyPost),
  postToolUseFailure: () => Effect.succeed(emptyPost),
  postToolBatch: () => Effect.succeed(emptyPost),
  userPromptSubmit: () => Effect.succeed(emptyPost),
  stop: () => Effect.succeed(noContinuation),
  sessionStart: () => Effect.succeed(emptyPost),
  sessionEnd: () => Effect.succeed(noNotices),
  notification: () => Effect.succeed(noNotices)
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Hooks> = Layer.succeed(Hooks, none)

/**
 * Hooks written as Effect functions by library users; optional for `layer`.
 *
 * @since 0.1.0
 * @category services
 */
export class InProcessHooks
  extends Context.Tag("toolgate/InProcessHooks")<InProcessHooks, ReadonlyArray<InProcessHook>>()
{}

/**
 * @since 0.1.0
 * @category models
 */
export interface MakeOptions {
  /** Settings sources to read `hooks` from, highest precedence first; none means no command hooks. */
  readonly sources?: Effect.Effect<ReadonlyArray<SettingsSource>>
  readonly inProcess?: ReadonlyArray<InProcessHook>
  /** The environment command hooks inherit; defaults to this process's (minus `OTEL_*`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Puts each hook process into a sandbox (a served session's); by default hooks run as they are. */
  readonly wrapProcess?: ProcessWrapper
}

/**
 * Builds the service; async hooks live as long as the surrounding scope. `if: "Bash(…)"`
 * conditions are matched on the subcommands the ShellAnalyzer finds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: MakeOptions): Effect.Effect<HooksService, never, Scope.Scope | ShellAnalyzer> =>
  Effect.gen(function*() {
    const shell = yield* ShellAnalyzer
    const background = yield* FiberSet.make<unknown, unknown>()
    const keepChildren = yield* Config.boolean("TOOLGATE_KEEP_HOOK_CHILDREN").pipe(
      Config.withDefault(false),
      Effect.orElseSucceed(() => false)
    )
    const engineOptions: EngineOptions = {
      sources: options.sources ?? Effect.succeed([]),
      inProcess: options.inProcess ?? [],
      background,
      baseEnv: inheritedEnv(options.env ?? process.env),
      keepChildren,
      shell,
      ...(options.wrapProcess === undefined ? {} : { wrapProcess: options.wrapProcess })
    }
    const engine = makeEngine(engineOptions)

    // Untraced, as every per-call stage: a span per stage per call cost as much as the rest of the
    // call (bench/overhead.ts); the message keeps its span (Scheduler.runMessage / runStream).
    const preToolUseRun = Effect.fnUntraced(function*(request: PreToolUseRequest) {
      const { tool, toolInput, toolUseId, session } = request
      const runs = yield* engine.runEvent({
        event: "PreToolUse",
        tool,
        toolInput,
        session,
        input: preToolUseInput(session, tool, toolInput, toolUseId)
      })
      return runs.length === 0
        ? emptyPreToolUse
        : aggregatePreToolUse(runs, hookNameOf("PreToolUse", tool), engine.capOf(session, "PreToolUse", toolUseId))
    })

    const permissionRequestRun = Effect.fnUntraced(function*(request: PermissionRequestRequest) {
      const { tool, toolInput, session, suggestions } = request
      const runs = yield* engine.runEvent({
        event: "PermissionRequest",
        tool,
        toolInput,
        session,
        input: permissionRequestInput(session, tool, toolInput, suggestions)
      })
      return aggregatePermissionRequest(runs, engine.capOf(session, "PermissionRequest"))
    })

    const postToolUseRun = Effect.fnUntraced(function*(request: PostToolUseRequest) {
      const { tool, toolInput, toolUseId, toolResponse, durationMs, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolUse",
        tool,
        toolInput,
        session,
        input: postToolUseInput(session, tool, toolInput, toolUseId, toolResponse, durationMs)
      })
      return aggregatePostToolUse(
        runs,
        hookNameOf("PostToolUse", tool),
        tool.mcp !== undefined,
        engine.capOf(session, "PostToolUse", toolUseId)
      )
    })

    const postToolUseFailureRun = Effect.fnUntraced(function*(request: PostToolUseFailureRequest) {
      const { tool, toolInput, toolUseId, error, isInterrupt, durationMs, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolUseFailure",
        tool,
        toolInput,
        session,
        input: postToolUseFailureInput(session, tool, toolInput, toolUseId, error, isInterrupt, durationMs)
      })
      return aggregatePostToolUseFailure(
        runs,
        hookNameOf("PostToolUseFailure", tool),
        engine.capOf(session, "PostToolUseFailure", toolUseId)
      )
    })

    const postToolBatchRun = Effect.fnUntraced(function*(request: PostToolBatchRequest) {
      const { calls, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolBatch",
        tool: undefined,
        toolInput: undefined,
        session,
        input: postToolBatchInput(session, calls)
      })
      return aggregatePostToolBatch(runs, engine.capOf(session, "PostToolBatch"))
    })

    const userPromptSubmitRun = Effect.fnUntraced(function*(request: UserPromptSubmitRequest) {
      const { prompt, session } = request
      const runs = yield* engine.runEvent({
        event: "UserPromptSubmit",
        tool: undefined,
        toolInput: undefined,
        session,
        input: userPromptSubmitInput(session, prompt)
      })
      return aggregateUserPromptSubmit(runs, prompt, engine.capOf(session, "UserPromptSubmit"))
    })

    const stopRun = Effect.fnUntraced(function*(request: StopRequest) {
      const { session } = request
      const input = stopInput(session, request)
      const runs = yield* engine.runEvent({
        event: input.hook_event_name,
        tool: undefined,
        toolInput: undefined,
        session,
        input
      })
      return aggregateStop(runs, input.hook_event_name, engine.capOf(session, input.hook_event_name))
    })

    const sessionStartRun = Effect.fnUntraced(function*(request: SessionStartRequest) {
      const { session, source, model } = request
      const runs = yield* engine.runEvent({
        event: "SessionStart",
        tool: undefined,
        toolInput: undefined,
        session,
        input: sessionStartInput(session, source, model)
      })
      return aggregateSessionStart(runs, source, engine.capOf(session, "SessionStart"))
    })

    const noticesOf = (event: HookEvent, session: SessionContext, input: HookInput) =>
      Effect.map(engine.runEvent({ event, tool: undefined, toolInput: undefined, session, input }), (runs) => ({
        notices: runs.flatMap((
          r
        ) => [
          ...r.notices,
          ...(r.json?.systemMessage === undefined ? [] : [engine.capOf(session, event)(r.json.systemMessage)])
        ])
      }))

    // No hook configured for an event: answer at once, without building its input.
    const when = <A>(event: HookEvent, run: Effect.Effect<A>, otherwise: A) =>
      Effect.flatMap(engine.listens(event), (yes) => (yes ? run : Effect.succeed(otherwise)))
    const userPromptSubmit = (request: UserPromptSubmitRequest) =>
      when("UserPromptSubmit", userPromptSubmitRun(request), emptyPost)
    const stop = (request: StopRequest) =>
      when(request.session.agent === undefined ? "Stop" : "SubagentStop", stopRun(request), noContinuation)
    const sessionStart = (request: SessionStartRequest) => when("SessionStart", sessionStartRun(request), emptyPost)
    const sessionEnd = (request: SessionEndRequest) =>
      when(
        "SessionEnd",
        noticesOf("SessionEnd", request.session, sessionEndInput(request.session, request.reason)),
        noNotices
      )
    const notification = (request: NotificationRequest) =>
      when(
        "Notification",
        noticesOf(
          "Notification",
          request.session,
          notificationInput(request.session, request.message, request.notificationType, request.title)
        ),
        noNotices
      )

    // The per-call events the same way, with a ready Effect when the answer is known without
    // reading settings (the pipeline reads it without a fiber step).
    const unlessListening = <A>(
      event: HookEvent,
      answer: Effect.Effect<A>,
      run: () => Effect.Effect<A>
    ): Effect.Effect<A> => {
      const listening = engine.listens(event)
      if (isReady(listening)) return listening.value ? run() : answer
      return Effect.flatMap(listening, (yes) => (yes ? run() : answer))
    }
    const preToolUse = (request: PreToolUseRequest) =>
      unlessListening("PreToolUse", NO_PRE_TOOL_USE, () => preToolUseRun(request))
    const permissionRequest = (request: PermissionRequestRequest) =>
      unlessListening("PermissionRequest", NO_PERMISSION_REQUEST, () => permissionRequestRun(request))
    const postToolUse = (request: PostToolUseRequest) =>
      unlessListening("PostToolUse", NO_POST, () => postToolUseRun(request))
    const postToolUseFailure = (request: PostToolUseFailureRequest) =>
      unlessListening("PostToolUseFailure", NO_POST, () => postToolUseFailureRun(request))
    const postToolBatch = (request: PostToolBatchRequest) =>
      unlessListening("PostToolBatch", NO_POST, () => postToolBatchRun(request))

    return Hooks.of({
      preToolUse,
      permissionRequest,
      postToolUse,
      postToolUseFailure,
      postToolBatch,
      userPromptSubmit,
      stop,
      sessionStart,
      sessionEnd,
      notification
    })
  })

/**
 * Command hooks from every settings source, plus the in-process hooks of `InProcessHooks` when
 * that service is provided. Async hooks end with this layer's scope.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Hooks, never, Settings | ShellAnalyzer> = Layer.scoped(
  Hooks,
  Effect.gen(function*() {
    const settings = yield* Settings
    const inProcess = yield* Effect.serviceOption(InProcessHooks)
    return yield* make({
      sources: Effect.map(settings.current, (loaded) => loaded.sources),
      inProcess: Option.getOrElse(inProcess, () => [])
    })
  })
)

/**
 * Only in-process hooks (no settings, no processes).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess = (hooks: ReadonlyArray<InProcessHook>): Layer.Layer<Hooks, never, ShellAnalyzer> =>
  Layer.scoped(Hooks, make({ inProcess: hooks }))

/**
 * Command hooks from settings plus these in-process hooks.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithInProcess = (
  hooks: ReadonlyArray<InProcessHook>
): Layer.Layer<Hooks, never, Settings | ShellAnalyzer> =>
  layer.pipe(Layer.provide(Layer.succeed(InProcessHooks, hooks)))
