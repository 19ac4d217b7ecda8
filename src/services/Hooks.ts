/**
 * The hook stage: PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure and
 * PostToolBatch (claude-code-spec §2). Hooks never fail the pipeline: a broken hook is a notice,
 * never an approval.
 */
import { Context, Effect, FiberSet, Layer, Option, type Scope } from "effect"
import type { AnyTool } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import type { RuleSuggestion } from "../Permission.js"
import { Settings, type SettingsSource } from "./Settings.js"
import type { HookEvent, InProcessHook } from "./Hooks/types.js"
import { isReady } from "../internal/ready.js"
import { hookNameOf, inheritedEnv, makeEngine, type EngineOptions } from "./Hooks/engine.js"
import {
  aggregatePermissionRequest,
  aggregatePostToolBatch,
  aggregatePostToolUse,
  aggregatePostToolUseFailure,
  aggregatePreToolUse
} from "./Hooks/aggregate.js"
import {
  permissionRequestInput,
  postToolBatchInput,
  postToolUseFailureInput,
  postToolUseInput,
  preToolUseInput
} from "./Hooks/input.js"

import type { PermissionUpdateEntry } from "./Hooks/types.js"

export type {
  HookEvent,
  HookInput,
  HookJsonOutput,
  InProcessHook,
  PermissionUpdateEntry,
  PreToolUseInput,
  PermissionRequestInput,
  PostToolUseInput,
  PostToolUseFailureInput,
  PostToolBatchInput
} from "./Hooks/types.js"

export interface PreToolUseRequest {
  readonly tool: AnyTool
  /** The input with paths made absolute (what hooks see as `tool_input`). */
  readonly toolInput: unknown
  readonly toolUseId: string
  readonly session: SessionContext
}

export interface PreToolUseOutcome {
  /** The aggregated decision: deny > defer > ask > allow; undefined when no hook decided. */
  readonly decision: "allow" | "deny" | "ask" | "defer" | undefined
  /** For deny: what blocked, as the model will see it (§2.10). `command` is set for an exit-2 block. */
  readonly block?: { readonly command?: string; readonly reason: string }
  /** For allow / ask: the reason shown to the user. */
  readonly reason?: string
  /** Replaces the whole input (honoured with allow or ask, and with no decision). */
  readonly updatedInput?: Record<string, unknown>
  readonly additionalContext: ReadonlyArray<string>
  /** `continue: false`: stop after this hook. */
  readonly stop?: { readonly reason: string }
  /** Messages for the user: system messages, non-blocking hook errors. */
  readonly notices: ReadonlyArray<string>
}

export interface PermissionRequestRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly session: SessionContext
  readonly suggestions: ReadonlyArray<RuleSuggestion>
}

/** A permission-update entry a PermissionRequest hook returns (spec §2.6.3). */
export type PermissionUpdate = PermissionUpdateEntry

export interface PermissionRequestOutcome {
  readonly decision?:
    | { readonly behavior: "allow"; readonly updatedInput?: Record<string, unknown>; readonly updatedPermissions?: ReadonlyArray<PermissionUpdate> }
    | { readonly behavior: "deny"; readonly message?: string; readonly interrupt?: boolean }
  readonly notices: ReadonlyArray<string>
}

export interface PostToolUseRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly toolUseId: string
  /** The tool's structured output (`tool.hookResponse(output)`). */
  readonly toolResponse: unknown
  readonly durationMs: number
  readonly session: SessionContext
}

export interface PostToolUseOutcome {
  readonly additionalContext: ReadonlyArray<string>
  /** `decision: "block"`: the reason goes next to the (unchanged) result. */
  readonly blockReason?: string
  /** `updatedMCPToolOutput` (MCP tools) / `updatedToolOutput`: replaces what the model sees. */
  readonly updatedOutput?: unknown
  readonly stop?: { readonly reason: string }
  readonly notices: ReadonlyArray<string>
}

export interface PostToolUseFailureRequest {
  readonly tool: AnyTool
  readonly toolInput: unknown
  readonly toolUseId: string
  readonly error: string
  readonly isInterrupt: boolean
  readonly durationMs: number
  readonly session: SessionContext
}

export interface PostToolUseFailureOutcome {
  readonly additionalContext: ReadonlyArray<string>
  readonly notices: ReadonlyArray<string>
}

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

export interface PostToolBatchOutcome {
  readonly additionalContext: ReadonlyArray<string>
  /** `decision: "block"` or `continue: false`: stop the loop before the next model call. */
  readonly stop?: { readonly reason: string }
  readonly notices: ReadonlyArray<string>
}

export interface HooksService {
  readonly preToolUse: (request: PreToolUseRequest) => Effect.Effect<PreToolUseOutcome>
  readonly permissionRequest: (request: PermissionRequestRequest) => Effect.Effect<PermissionRequestOutcome>
  readonly postToolUse: (request: PostToolUseRequest) => Effect.Effect<PostToolUseOutcome>
  readonly postToolUseFailure: (request: PostToolUseFailureRequest) => Effect.Effect<PostToolUseFailureOutcome>
  readonly postToolBatch: (request: PostToolBatchRequest) => Effect.Effect<PostToolBatchOutcome>
}

export class Hooks extends Context.Tag("toolgate/Hooks")<Hooks, HooksService>() {}

export const emptyPreToolUse: PreToolUseOutcome = { decision: undefined, additionalContext: [], notices: [] }
const emptyPost = { additionalContext: [], notices: [] } as const
const noPermissionRequest: PermissionRequestOutcome = { notices: [] }
const NO_PRE_TOOL_USE = Effect.succeed(emptyPreToolUse)
const NO_PERMISSION_REQUEST = Effect.succeed(noPermissionRequest)
const NO_POST: Effect.Effect<PostToolUseOutcome & PostToolUseFailureOutcome & PostToolBatchOutcome> = Effect.succeed(emptyPost)

/** No hooks at all. */
export const none: HooksService = {
  preToolUse: () => Effect.succeed(emptyPreToolUse),
  permissionRequest: () => Effect.succeed({ notices: [] }),
  postToolUse: () => Effect.succeed(emptyPost),
  postToolUseFailure: () => Effect.succeed(emptyPost),
  postToolBatch: () => Effect.succeed(emptyPost)
}

export const layerNone: Layer.Layer<Hooks> = Layer.succeed(Hooks, none)

/** Hooks written as Effect functions by library users; optional for `layer`. */
export class InProcessHooks extends Context.Tag("toolgate/InProcessHooks")<InProcessHooks, ReadonlyArray<InProcessHook>>() {}

export interface MakeOptions {
  /** Settings sources to read `hooks` from, highest precedence first; none means no command hooks. */
  readonly sources?: Effect.Effect<ReadonlyArray<SettingsSource>>
  readonly inProcess?: ReadonlyArray<InProcessHook>
  /** The environment command hooks inherit; defaults to this process's (minus `OTEL_*`). */
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** Builds the service; async hooks live as long as the surrounding scope. */
export const make = (options: MakeOptions): Effect.Effect<HooksService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const background = yield* FiberSet.make<unknown, unknown>()
    const engineOptions: EngineOptions = {
      sources: options.sources ?? Effect.succeed([]),
      inProcess: options.inProcess ?? [],
      background,
      baseEnv: inheritedEnv(options.env ?? process.env)
    }
    const engine = makeEngine(engineOptions)

    // Untraced, as every per-call stage: a span per stage per call cost as much as the rest of the
    // call (bench/overhead.ts); the message keeps its span (Scheduler.runMessage / runStream).
    const preToolUseRun = Effect.fnUntraced(function* (request: PreToolUseRequest) {
      const { tool, toolInput, toolUseId, session } = request
      const runs = yield* engine.runEvent({
        event: "PreToolUse",
        tool,
        toolInput,
        session,
        input: preToolUseInput(session, tool, toolInput, toolUseId)
      })
      return runs.length === 0 ? emptyPreToolUse : aggregatePreToolUse(runs, engine.capFor(session))
    })

    const permissionRequestRun = Effect.fnUntraced(function* (request: PermissionRequestRequest) {
      const { tool, toolInput, session, suggestions } = request
      const runs = yield* engine.runEvent({
        event: "PermissionRequest",
        tool,
        toolInput,
        session,
        input: permissionRequestInput(session, tool, toolInput, suggestions)
      })
      return aggregatePermissionRequest(runs, engine.capFor(session))
    })

    const postToolUseRun = Effect.fnUntraced(function* (request: PostToolUseRequest) {
      const { tool, toolInput, toolUseId, toolResponse, durationMs, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolUse",
        tool,
        toolInput,
        session,
        input: postToolUseInput(session, tool, toolInput, toolUseId, toolResponse, durationMs)
      })
      return aggregatePostToolUse(runs, hookNameOf("PostToolUse", tool), tool.mcp !== undefined, engine.capFor(session))
    })

    const postToolUseFailureRun = Effect.fnUntraced(function* (request: PostToolUseFailureRequest) {
      const { tool, toolInput, toolUseId, error, isInterrupt, durationMs, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolUseFailure",
        tool,
        toolInput,
        session,
        input: postToolUseFailureInput(session, tool, toolInput, toolUseId, error, isInterrupt, durationMs)
      })
      return aggregatePostToolUseFailure(runs, hookNameOf("PostToolUseFailure", tool), engine.capFor(session))
    })

    const postToolBatchRun = Effect.fnUntraced(function* (request: PostToolBatchRequest) {
      const { calls, session } = request
      const runs = yield* engine.runEvent({
        event: "PostToolBatch",
        tool: undefined,
        toolInput: undefined,
        session,
        input: postToolBatchInput(session, calls)
      })
      return aggregatePostToolBatch(runs, engine.capFor(session))
    })

    // No hook configured for an event: answer at once, without building its input (and, when that
    // is known without reading settings, with a ready Effect the pipeline reads without a step).
    const unlessListening = <A>(event: HookEvent, answer: Effect.Effect<A>, run: () => Effect.Effect<A>): Effect.Effect<A> => {
      const listening = engine.listens(event)
      if (isReady(listening)) return listening.value ? run() : answer
      return Effect.flatMap(listening, (yes) => (yes ? run() : answer))
    }
    const preToolUse = (request: PreToolUseRequest) => unlessListening("PreToolUse", NO_PRE_TOOL_USE, () => preToolUseRun(request))
    const permissionRequest = (request: PermissionRequestRequest) =>
      unlessListening("PermissionRequest", NO_PERMISSION_REQUEST, () => permissionRequestRun(request))
    const postToolUse = (request: PostToolUseRequest) => unlessListening("PostToolUse", NO_POST, () => postToolUseRun(request))
    const postToolUseFailure = (request: PostToolUseFailureRequest) =>
      unlessListening("PostToolUseFailure", NO_POST, () => postToolUseFailureRun(request))
    const postToolBatch = (request: PostToolBatchRequest) => unlessListening("PostToolBatch", NO_POST, () => postToolBatchRun(request))

    return Hooks.of({ preToolUse, permissionRequest, postToolUse, postToolUseFailure, postToolBatch })
  })

/**
 * Command hooks from every settings source, plus the in-process hooks of `InProcessHooks` when
 * that service is provided. Async hooks end with this layer's scope.
 */
export const layer: Layer.Layer<Hooks, never, Settings> = Layer.scoped(
  Hooks,
  Effect.gen(function* () {
    const settings = yield* Settings
    const inProcess = yield* Effect.serviceOption(InProcessHooks)
    return yield* make({
      sources: Effect.map(settings.current, (loaded) => loaded.sources),
      inProcess: Option.getOrElse(inProcess, () => [])
    })
  })
)

/** Only in-process hooks (no settings, no processes). */
export const layerInProcess = (hooks: ReadonlyArray<InProcessHook>): Layer.Layer<Hooks> =>
  Layer.scoped(Hooks, make({ inProcess: hooks }))

/** Command hooks from settings plus these in-process hooks. */
export const layerWithInProcess = (hooks: ReadonlyArray<InProcessHook>): Layer.Layer<Hooks, never, Settings> =>
  layer.pipe(Layer.provide(Layer.succeed(InProcessHooks, hooks)))
