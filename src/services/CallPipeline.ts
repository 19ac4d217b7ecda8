/**
 * Runs one tool_use through every stage, in Claude Code's order:
 * lookup → schema → validateInput → PreToolUse hooks → permissions (→ PermissionRequest hooks →
 * Approver) → call → PostToolUse / PostToolUseFailure → map and spill the result.
 * It never fails: every outcome, including every typed error, becomes one tool_result. Only
 * interruption escapes, and the scheduler answers an interrupted call itself.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Either, Fiber, Layer, Option } from "effect"
import {
  HookBlocked,
  HookStopped,
  NotApproved,
  NotStarted,
  PermissionDenied,
  ToolDefect,
  ToolFailed,
  UnknownTool,
  toModelText,
  type CallError
} from "../Errors.js"
import { isReady } from "../internal/ready.js"
import {
  contentText,
  toolResult,
  type ToolResultBlock,
  type ToolResultContent,
  type ToolUseBlock
} from "../Messages.js"
import { askToUse, dontAskDenied, Permissions } from "./Permissions.js"
import { allow, ask, isDecision, isForced, type Allow, type Ask, type Decision } from "../Permission.js"
import type { SessionContext } from "../Session.js"
import {
  CallServices,
  type AnyTool,
  type InterruptBehavior,
  type ToolCheckContext,
  type ToolContext,
  type ToolProgress
} from "../Tool.js"
import { Approver, offeredRules } from "./Approver.js"
import { FileState } from "./FileState.js"
import { Hooks, type PreToolUseOutcome } from "./Hooks.js"
import { InputValidator } from "./InputValidator.js"
import { ResultStore, thresholdFor } from "./ResultStore.js"
import { Settings } from "./Settings.js"
import { ToolRegistry, type ToolPool } from "./ToolRegistry.js"
import { unknownTool } from "./CallPipeline/unknownTool.js"
import { positiveIntSetting } from "../internal/config.js"

/**
 * A call looked up and decoded, ready to be scheduled.
 *
 * @since 0.1.0
 * @category models
 */
export interface PreparedCall {
  readonly index: number
  readonly block: ToolUseBlock
  readonly tool: AnyTool | undefined
  /** The decoded input, or the error that answers this call without running it. */
  readonly decoded: Either.Either<unknown, CallError>
  readonly concurrencySafe: boolean
  readonly interruptBehavior: InterruptBehavior
}

/**
 * Why the rest of the turn should stop after this call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Halt {
  /** `deferred`: a PreToolUse hook deferred the call; the turn stops and nothing is sent back. */
  readonly kind: "hookStop" | "userInterrupt" | "deferred"
  readonly reason: string
  /** The deferred call. */
  readonly toolUse?: { readonly id: string; readonly name: string; readonly input: unknown }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallOutcome {
  readonly toolUseId: string
  readonly toolName: string
  readonly result: ToolResultBlock
  /** The typed error behind an error result; undefined on success. */
  readonly error: CallError | undefined
  /** The input the tool ran with (after hooks or the user changed it). */
  readonly input: unknown
  readonly contextModifier?: (session: SessionContext) => SessionContext
  readonly newMessages: ReadonlyArray<unknown>
  /** For the model, each in a system reminder: what PreToolUse hooks added before the call (their additional context). */
  readonly remindersBefore: ReadonlyArray<string>
  /** For the model: what PostToolUse / PostToolUseFailure hooks said after it (context, blocking errors). */
  readonly remindersAfter: ReadonlyArray<string>
  /** Text for the person: hook system messages and non-blocking hook errors. */
  readonly notices: ReadonlyArray<string>
  readonly halt?: Halt
  /** Set when this call failed for real and its tool cancels its siblings then: the failed call's label. */
  readonly siblingFailure?: string
  /** The permission decision, when the call got that far. */
  readonly decision?: Decision
  /** A successful call's structured output in Claude Code's shape (PostToolUse's `tool_response`, stream-json's `tool_use_result`). */
  readonly response?: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RunCallOptions {
  readonly session: SessionContext
  readonly onProgress?: (toolUseId: string, progress: ToolProgress) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallPipelineService {
  /** Looks up and decodes one call (and loads what the tool's flags need). */
  readonly prepare: (block: ToolUseBlock, index: number) => Effect.Effect<PreparedCall>
  readonly run: (call: PreparedCall, options: RunCallOptions) => Effect.Effect<CallOutcome>
  /** The outcome of a call the scheduler ends itself (interrupted, cancelled, never started). */
  readonly errorOutcome: (call: PreparedCall, error: CallError) => CallOutcome
}

/**
 * @since 0.1.0
 * @category services
 */
export class CallPipeline extends Context.Tag("toolgate/CallPipeline")<CallPipeline, CallPipelineService>() {}

const safely = <A>(f: () => A, fallback: A): A => {
  try {
    return f()
  } catch {
    return fallback
  }
}

/**
 * The tool's call as an Effect, with the services the runtime gives every call; a synchronous
 * throw becomes a defect, as inside Effect.suspend.
 */
const startCall = (
  tool: AnyTool,
  input: unknown,
  context: ToolContext,
  services: Context.Context<never> | undefined
): ReturnType<AnyTool["call"]> => {
  try {
    const call = tool.call(input, context)
    return services === undefined || isReady(call) ? call : Effect.provide(call, services)
  } catch (defect) {
    return Effect.die(defect)
  }
}

/** How long a permission question waits before the Notification hooks hear of it (Claude Code's 6 s). */
const PERMISSION_NOTIFY_DELAY_MS = 6_000

const errorResult = (toolUseId: string, error: CallError) => toolResult(toolUseId, toModelText(error), true)

const describeDefect = (defect: unknown): string =>
  defect instanceof Error
    ? defect.message
    : typeof defect === "string"
    ? defect
    : safely(() => JSON.stringify(defect) ?? String(defect), String(defect))

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const validator = yield* InputValidator
  const hooks = yield* Hooks
  const permissions = yield* Permissions
  const approver = yield* Approver
  const resultStore = yield* ResultStore
  const fileState = yield* FileState
  const settings = yield* Settings
  const callServices = Option.getOrUndefined(yield* Effect.serviceOption(CallServices))
  const notifyDelayMs = yield* positiveIntSetting("TOOLGATE_PERMISSION_NOTIFY_DELAY_MS", PERMISSION_NOTIFY_DELAY_MS)

  const errorOutcome = (call: PreparedCall, error: CallError, extra: Partial<CallOutcome> = {}): CallOutcome => ({
    toolUseId: call.block.id,
    toolName: call.block.name,
    result: errorResult(call.block.id, error),
    error,
    input: Either.getOrUndefined(call.decoded) ?? call.block.input,
    newMessages: [],
    remindersBefore: [],
    remindersAfter: [],
    notices: [],
    ...extra
  })

  const warmed = new WeakSet<AnyTool>()

  // Untraced, as every per-call stage: a span per stage per call cost as much as the rest of the
  // call (bench/overhead.ts); the message keeps its span (Scheduler.runMessage / runStream).
  const prepared = (pool: ToolPool, tool: AnyTool | undefined, block: ToolUseBlock, index: number): PreparedCall => {
    const decoded: Either.Either<unknown, CallError> = tool === undefined
      ? Either.left(unknownTool(block.name, pool))
      : validator.decode(tool, block.input)
    const concurrencySafe = tool !== undefined && Either.isRight(decoded) &&
      safely(() => tool.isConcurrencySafe(decoded.right), false)
    const interruptBehavior: InterruptBehavior = tool === undefined
      ? "cancel"
      : safely(() => tool.interruptBehavior(), "block" as const)
    return { index, block, tool, decoded, concurrencySafe, interruptBehavior }
  }
  const prepare = (block: ToolUseBlock, index: number): Effect.Effect<PreparedCall> =>
    Effect.flatMap(registry.pool, (pool) => {
      const tool = pool.lookup(block.name)
      if (tool === undefined || warmed.has(tool)) return Effect.succeed(prepared(pool, tool, block, index))
      return Effect.map(tool.warmup, () => {
        warmed.add(tool)
        return prepared(pool, tool, block, index)
      })
    })

  /** An input replaced by a hook, the user or a tool's check goes through stages 1 and 2 again. */
  const revalidate = (
    tool: AnyTool,
    replacement: unknown,
    ctx: ToolCheckContext
  ): Effect.Effect<unknown, CallError> => {
    const decoded = validator.decode(tool, replacement)
    if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
    return Effect.as(validator.validate(tool, decoded.right, ctx), decoded.right)
  }

  /** Folds the PreToolUse outcome into the rule decision. */
  const applyHookDecision = (tool: AnyTool, pre: PreToolUseOutcome, decision: Decision): Decision => {
    if (decision._tag === "Deny") return decision
    if (pre.decision === "allow") {
      if (decision._tag === "Ask" && isForced(decision)) return decision
      if (tool.requiresUserInteraction && pre.updatedInput === undefined) return decision
      return allow({ type: "hook", detail: pre.reason ?? "a PreToolUse hook allowed the call" })
    }
    if (pre.decision === "ask") {
      const message = pre.reason ?? `Hook PreToolUse:${tool.name} asked for confirmation for this tool`
      return decision._tag === "Ask"
        ? { ...decision, message, kind: "hook" }
        : ask(message, { reason: { type: "hook", detail: message }, kind: "hook" })
    }
    return decision
  }

  /** What an error outcome carries besides the error; filled as the call goes through the stages. */
  interface Progress {
    input: unknown
    checked: unknown
    decision: Decision | undefined
    readonly notices: Array<string>
    readonly remindersBefore: Array<string>
    remindersAfter: ReadonlyArray<string>
    halt: Halt | undefined
    siblingFailure: string | undefined
  }

  /** Fails with `error`; `decision` is the one the outcome reports. */
  const refuse = (progress: Progress, error: CallError, decision?: Decision): Effect.Effect<never, CallError> => {
    progress.decision = decision
    return Effect.fail(error)
  }

  const permissionDenied = (progress: Progress, tool: AnyTool, reason: string, decision: Decision) =>
    refuse(progress, new PermissionDenied({ toolName: tool.name, reason }), decision)

  /** A decision as the call's next step: Allow goes on, a denial fails, an ask fails with itself (to `resolveAsk`). */
  const permit = (progress: Progress, tool: AnyTool, decision: Decision): Effect.Effect<Allow, Ask | CallError> => {
    switch (decision._tag) {
      case "Allow":
        return Effect.succeed(decision)
      case "Deny":
        return permissionDenied(progress, tool, decision.message, decision)
      case "Ask":
        return Effect.fail(decision)
    }
  }

  /** A replacement stage may answer anything: what is not a decision asks, forced. */
  const asDecision = (tool: AnyTool, answer: Decision): Decision =>
    isDecision(answer)
      ? answer
      : ask(askToUse(tool.name), {
        kind: "safety",
        reason: { type: "safetyCheck", detail: "the permission stage gave no decision" }
      })

  /** An ask answered: dontAsk denies, then PermissionRequest hooks, then the Approver (the order Claude Code answers an ask in). */
  const resolveAsk = Effect.fnUntraced(
    function*(
      progress: Progress,
      tool: AnyTool,
      block: ToolUseBlock,
      session: SessionContext,
      checkContext: ToolCheckContext,
      decision: Ask
    ) {
      if (session.permissionMode === "dontAsk") {
        return yield* permissionDenied(progress, tool, dontAskDenied(tool.name), decision)
      }
      const request = yield* hooks.permissionRequest({
        tool,
        toolInput: progress.checked,
        session,
        suggestions: decision.suggestions
      })
      progress.notices.push(...request.notices)
      const hookAnswer = request.decision
      if (hookAnswer?.behavior === "deny") {
        if (hookAnswer.interrupt === true) progress.halt = { kind: "userInterrupt", reason: hookAnswer.message ?? "" }
        return yield* permissionDenied(
          progress,
          tool,
          hookAnswer.message ?? `Permission to use ${tool.name} has been denied.`,
          decision
        )
      }
      if (hookAnswer?.behavior === "allow") {
        if (hookAnswer.updatedInput !== undefined) {
          progress.input = yield* revalidate(tool, hookAnswer.updatedInput, checkContext)
          progress.checked = tool.expandInput(progress.input, session)
          // an updated input is checked again against deny rules
          const again = asDecision(tool, yield* permissions.decide({ tool, input: progress.checked, session }))
          if (again._tag === "Deny") return yield* permissionDenied(progress, tool, again.message, again)
        }
        return allow({ type: "hook", detail: "a PermissionRequest hook allowed the call" })
      }
      if (!approver.canAsk) return yield* permissionDenied(progress, tool, decision.message, decision)
      // A question left unanswered for a while fires the Notification hooks (permission_prompt).
      const notify = yield* Effect.fork(
        Effect.sleep(Duration.millis(notifyDelayMs)).pipe(
          Effect.zipRight(
            hooks.notification({
              session,
              message: `Claude needs your permission to use ${tool.name}`,
              notificationType: "permission_prompt"
            })
          ),
          Effect.flatMap(({ notices }) => Effect.forEach(notices, (n) => Effect.logWarning(n), { discard: true }))
        )
      )
      const answer = yield* approver
        .request({
          tool,
          input: progress.checked,
          toolUseId: block.id,
          message: decision.message,
          decision,
          suggestions: decision.suggestions,
          session
        })
        .pipe(Effect.ensuring(Fiber.interrupt(notify)))
      if (answer.behavior === "deny") {
        if (answer.interrupt === true) progress.halt = { kind: "userInterrupt", reason: answer.feedback ?? "" }
        const said = {
          ...(answer.feedback === undefined ? {} : { feedback: answer.feedback }),
          ...(answer.message === undefined ? {} : { reason: answer.message })
        }
        return yield* refuse(progress, new NotApproved({ toolName: tool.name, ...said }), decision)
      }
      if (answer.scope !== "once") {
        const rules = answer.rules ?? offeredRules(decision.suggestions)
        if (rules.length > 0) {
          const saved = yield* Effect.either(
            settings.addRules(rules, "allow", answer.scope === "always" ? "localSettings" : "session")
          )
          if (Either.isLeft(saved)) progress.notices.push(`Could not save the rule: ${saved.left.message}`)
        }
      }
      if (answer.updatedInput !== undefined) progress.input = yield* revalidate(tool, answer.updatedInput, checkContext)
      return allow({ type: "approval", detail: `approved (${answer.scope})` })
    }
  )

  /** The stages of one call, each failing with the error that answers it; `run` maps every error to its result in one place. */
  const stages = Effect.fnUntraced(
    function*(call: PreparedCall, tool: AnyTool, decoded: unknown, options: RunCallOptions, progress: Progress) {
      const { session } = options
      const { block } = call
      const pathRules = permissions.pathRules === undefined ? undefined : yield* permissions.pathRules(session)
      const withPathRules = pathRules === undefined ? {} : { pathRules }
      const readsFree = permissions.readsWithoutAsking
      const readsWithoutAsking = (
        file: string
      ) => (readsFree === undefined ? Effect.succeed(false) : readsFree(tool, file, session))
      const checkContext: ToolCheckContext = {
        session,
        fileState,
        mode: session.permissionMode,
        readsWithoutAsking,
        ...withPathRules
      }

      // 2. the tool's own validation
      const validation = validator.validate(tool, decoded, checkContext)
      if (!isReady(validation)) yield* validation

      // 3. PreToolUse hooks see the input with paths made absolute
      progress.checked = tool.expandInput(progress.input, session)
      const preHooks = hooks.preToolUse({ tool, toolInput: progress.checked, toolUseId: block.id, session })
      const pre = isReady(preHooks) ? preHooks.value : yield* preHooks
      progress.notices.push(...pre.notices)
      progress.remindersBefore.push(...pre.reminders)
      if (pre.stop !== undefined) {
        progress.halt = { kind: "hookStop", reason: pre.stop.reason }
        return yield* refuse(
          progress,
          new HookStopped({ toolName: tool.name, event: "PreToolUse", stopReason: pre.stop.reason })
        )
      }
      if (pre.decision === "defer") {
        const reason = "a PreToolUse hook deferred it"
        progress.halt = { kind: "deferred", reason, toolUse: { id: block.id, name: tool.name, input: block.input } }
        return yield* refuse(progress, new NotStarted({ toolName: tool.name, reason }))
      }
      if (pre.decision === "deny") {
        const blocked = pre.block ?? { reason: pre.reason ?? "Blocked by hook" }
        return yield* refuse(
          progress,
          new HookBlocked(
            blocked.command === undefined
              ? { toolName: tool.name, event: "PreToolUse", reason: blocked.reason }
              : { toolName: tool.name, event: "PreToolUse", command: blocked.command, reason: blocked.reason }
          )
        )
      }
      if (pre.updatedInput !== undefined) {
        progress.input = yield* revalidate(tool, pre.updatedInput, checkContext)
        progress.checked = tool.expandInput(progress.input, session)
      }

      // 4. permissions: an ask travels in the error channel to its resolution
      const decided = applyHookDecision(
        tool,
        pre,
        asDecision(tool, yield* permissions.decide({ tool, input: progress.checked, session }))
      )
      const allowed = decided._tag === "Allow"
        ? decided
        : yield* permit(progress, tool, decided).pipe(
          Effect.catchTag("Ask", (asked) => resolveAsk(progress, tool, block, session, checkContext, asked))
        )
      if (allowed.updatedInput !== undefined) {
        progress.input = yield* revalidate(tool, allowed.updatedInput, checkContext)
      }
      progress.decision = allowed

      // 5. the call itself
      const input = progress.input
      const context: ToolContext = {
        toolUseId: block.id,
        session,
        fileState,
        readsWithoutAsking,
        approvedBecause: allowed.reason,
        reportProgress: options.onProgress === undefined
          ? () => Effect.void
          : (reported) => options.onProgress!(block.id, reported),
        ...withPathRules
      }
      const startedAt = Date.now()
      const calling = startCall(tool, input, context, callServices?.context)
      const called = isReady(calling)
        ? Either.right(calling.value)
        : yield* calling.pipe(
          Effect.map((result) => Either.right(result)),
          Effect.catchTag(
            "ToolError",
            (e) => Effect.succeed(Either.left<CallError>(new ToolFailed({ toolName: tool.name, reason: e.reason })))
          ),
          Effect.catchAllDefect((defect) =>
            Effect.succeed(
              Either.left<CallError>(new ToolDefect({ toolName: tool.name, reason: describeDefect(defect) }))
            )
          )
        )
      const durationMs = Date.now() - startedAt
      const hookInput = tool.expandInput(input, session)

      if (Either.isLeft(called)) {
        const error = called.left
        const post = yield* hooks.postToolUseFailure({
          tool,
          toolInput: hookInput,
          toolUseId: block.id,
          error: toModelText(error),
          isInterrupt: false,
          durationMs,
          session
        })
        progress.notices.push(...post.notices)
        progress.remindersAfter = post.reminders
        if (tool.siblingCancellationLabel !== undefined && error._tag === "ToolFailed") {
          progress.siblingFailure = tool.siblingCancellationLabel(input)
        }
        return yield* refuse(progress, error, allowed)
      }

      // 6. map the result, PostToolUse hooks, spill
      const result = called.right
      const mapped = Either.try({
        try: () => tool.mapResult(result.data, block.id),
        catch: (defect) =>
          new ToolDefect({ toolName: tool.name, reason: `could not map the result: ${describeDefect(defect)}` })
      })
      if (Either.isLeft(mapped)) return yield* refuse(progress, mapped.left, allowed)
      const response = safely(() => tool.hookResponse(result.data), result.data)
      const postHooks = hooks.postToolUse({
        tool,
        toolInput: hookInput,
        toolUseId: block.id,
        toolResponse: response,
        durationMs,
        session
      })
      const post = isReady(postHooks) ? postHooks.value : yield* postHooks
      progress.notices.push(...post.notices)
      let content: ToolResultContent = mapped.right
      // A hook's replacement output is taken when the tool can read it as its own output (an MCP
      // tool's content; a built-in's output in the shape hooks see); otherwise it is ignored.
      if (post.updatedOutput !== undefined) {
        const replacement = safely(() => tool.hookOutput?.(post.updatedOutput), undefined)
        const remapped = replacement === undefined
          ? undefined
          : safely(() => tool.mapResult(replacement, block.id), undefined as ToolResultContent | undefined)
        if (remapped !== undefined) content = remapped
        else {progress.notices.push(
            `PostToolUse hook output for ${tool.name} ignored: it does not have the shape of the tool's output`
          )}
      }
      const fitting = resultStore.fit(session.sessionDir, block.id, content, tool.maxResultSizeChars)
      const fitted = isReady(fitting) ? Either.right(fitting.value) : yield* Effect.either(fitting)
      if (Either.isLeft(fitted)) {
        progress.notices.push(fitted.left.message)
        const limit = thresholdFor(tool.maxResultSizeChars)
        const text = contentText(content)
        content = `${text.slice(0, limit)}\n\n... [output truncated: ${
          text.length - limit
        } characters not shown; it could not be saved to a file]`
      } else content = fitted.right

      return {
        toolUseId: block.id,
        toolName: tool.name,
        result: toolResult(block.id, content),
        remindersBefore: progress.remindersBefore,
        remindersAfter: post.reminders,
        error: undefined,
        input,
        ...(result.contextModifier !== undefined && !call.concurrencySafe
          ? { contextModifier: result.contextModifier }
          : {}),
        newMessages: result.newMessages ?? [],
        notices: progress.notices,
        decision: allowed,
        // a hook's replacement output is what the model saw: the structured output no longer describes it
        ...(post.updatedOutput === undefined ? { response } : {}),
        ...(post.stop !== undefined ? { halt: { kind: "hookStop" as const, reason: post.stop.reason } } : {})
      } satisfies CallOutcome
    }
  )

  const run = (call: PreparedCall, options: RunCallOptions): Effect.Effect<CallOutcome> => {
    const { block, tool } = call
    if (Either.isLeft(call.decoded) || tool === undefined) {
      return Effect.succeed(
        errorOutcome(call, Either.isLeft(call.decoded) ? call.decoded.left : new UnknownTool({ toolName: block.name }))
      )
    }
    const progress: Progress = {
      input: call.decoded.right,
      checked: undefined,
      decision: undefined,
      notices: [],
      remindersBefore: [],
      remindersAfter: [],
      halt: undefined,
      siblingFailure: undefined
    }
    // The one place an error becomes the call's result.
    return stages(call, tool, call.decoded.right, options, progress).pipe(
      Effect.catchAll((error) =>
        Effect.succeed(
          errorOutcome(call, error, {
            input: progress.input,
            notices: progress.notices,
            remindersBefore: progress.remindersBefore,
            remindersAfter: progress.remindersAfter,
            ...(progress.decision === undefined ? {} : { decision: progress.decision }),
            ...(progress.halt === undefined ? {} : { halt: progress.halt }),
            ...(progress.siblingFailure === undefined ? {} : { siblingFailure: progress.siblingFailure })
          })
        )
      )
    )
  }

  return CallPipeline.of({ prepare, run, errorOutcome: (call, error) => errorOutcome(call, error) })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = Layer.effect(CallPipeline, make)
