/**
 * Runs one tool_use through every stage, in Claude Code's order (claude-code-spec §1.4, §4.2):
 * lookup → schema → validateInput → PreToolUse hooks → permissions (→ PermissionRequest hooks →
 * Approver) → call → PostToolUse / PostToolUseFailure → map and spill the result.
 * It never fails: every outcome, including every typed error, becomes one tool_result. Only
 * interruption escapes, and the scheduler answers an interrupted call itself.
 */
import { Context, Duration, Effect, Either, Fiber, Layer } from "effect"
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
import { contentText, toolResult, type ToolResultBlock, type ToolResultContent, type ToolUseBlock } from "../Messages.js"
import { dontAskDenied, Permissions } from "./Permissions.js"
import type { PermissionDecision } from "../Permission.js"
import type { SessionContext } from "../Session.js"
import type { AnyTool, InterruptBehavior, ToolCheckContext, ToolContext, ToolProgress } from "../Tool.js"
import { Approver, offeredRules } from "./Approver.js"
import { FileState } from "./FileState.js"
import { Hooks, type PreToolUseOutcome } from "./Hooks.js"
import { InputValidator } from "./InputValidator.js"
import { ResultStore, thresholdFor } from "./ResultStore.js"
import { Settings } from "./Settings.js"
import { ToolRegistry, type ToolPool } from "./ToolRegistry.js"
import { unknownTool } from "./CallPipeline/unknownTool.js"
import { positiveIntSetting } from "../internal/config.js"

/** A call looked up and decoded, ready to be scheduled. */
export interface PreparedCall {
  readonly index: number
  readonly block: ToolUseBlock
  readonly tool: AnyTool | undefined
  /** The decoded input, or the error that answers this call without running it. */
  readonly decoded: Either.Either<unknown, CallError>
  readonly concurrencySafe: boolean
  readonly interruptBehavior: InterruptBehavior
}

/** Why the rest of the turn should stop after this call. */
export interface Halt {
  /** `deferred`: a PreToolUse hook deferred the call; the turn stops and nothing is sent back. */
  readonly kind: "hookStop" | "userInterrupt" | "deferred"
  readonly reason: string
  /** The deferred call. */
  readonly toolUse?: { readonly id: string; readonly name: string; readonly input: unknown }
}

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
  readonly decision?: PermissionDecision
  /** A successful call's structured output in Claude Code's shape (PostToolUse's `tool_response`, stream-json's `tool_use_result`). */
  readonly response?: unknown
}

export interface RunCallOptions {
  readonly session: SessionContext
  readonly onProgress?: (toolUseId: string, progress: ToolProgress) => Effect.Effect<void>
}

export interface CallPipelineService {
  /** Looks up and decodes one call (and loads what the tool's flags need). */
  readonly prepare: (block: ToolUseBlock, index: number) => Effect.Effect<PreparedCall>
  readonly run: (call: PreparedCall, options: RunCallOptions) => Effect.Effect<CallOutcome>
  /** The outcome of a call the scheduler ends itself (interrupted, cancelled, never started). */
  readonly errorOutcome: (call: PreparedCall, error: CallError) => CallOutcome
}

export class CallPipeline extends Context.Tag("toolgate/CallPipeline")<CallPipeline, CallPipelineService>() {}

const safely = <A>(f: () => A, fallback: A): A => {
  try {
    return f()
  } catch {
    return fallback
  }
}

/** The tool's call as an Effect; a synchronous throw becomes a defect, as inside Effect.suspend. */
const startCall = (tool: AnyTool, input: unknown, context: ToolContext): ReturnType<AnyTool["call"]> => {
  try {
    return tool.call(input, context)
  } catch (defect) {
    return Effect.die(defect)
  }
}

/** How long a permission question waits before the Notification hooks hear of it (Claude Code's 6 s). */
const PERMISSION_NOTIFY_DELAY_MS = 6_000

const errorResult = (toolUseId: string, error: CallError) => toolResult(toolUseId, toModelText(error), true)

const describeDefect = (defect: unknown): string =>
  defect instanceof Error ? defect.message : typeof defect === "string" ? defect : safely(() => JSON.stringify(defect) ?? String(defect), String(defect))

export const make = Effect.gen(function* () {
  const registry = yield* ToolRegistry
  const validator = yield* InputValidator
  const hooks = yield* Hooks
  const permissions = yield* Permissions
  const approver = yield* Approver
  const resultStore = yield* ResultStore
  const fileState = yield* FileState
  const settings = yield* Settings
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
    const decoded: Either.Either<unknown, CallError> =
      tool === undefined ? Either.left(unknownTool(block.name, pool)) : validator.decode(tool, block.input)
    const concurrencySafe =
      tool !== undefined && Either.isRight(decoded) && safely(() => tool.isConcurrencySafe(decoded.right), false)
    const interruptBehavior: InterruptBehavior = tool === undefined ? "cancel" : safely(() => tool.interruptBehavior(), "block" as const)
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
  const revalidate = (tool: AnyTool, replacement: unknown, ctx: ToolCheckContext) =>
    Effect.gen(function* () {
      const decoded = validator.decode(tool, replacement)
      if (Either.isLeft(decoded)) return Either.left<CallError>(decoded.left)
      const rejected = yield* Effect.either(validator.validate(tool, decoded.right, ctx))
      return Either.isLeft(rejected) ? Either.left<CallError>(rejected.left) : Either.right(decoded.right)
    })

  /** Folds the PreToolUse outcome into the rule decision (spec §1.4 steps 4–5, §2.8). */
  const applyHookDecision = (tool: AnyTool, pre: PreToolUseOutcome, decision: PermissionDecision): PermissionDecision => {
    if (decision.behavior === "deny") return decision
    if (pre.decision === "allow") {
      if (decision.behavior === "ask" && decision.forced) return decision
      if (tool.requiresUserInteraction && pre.updatedInput === undefined) return decision
      return { behavior: "allow", reason: { type: "hook", detail: pre.reason ?? "a PreToolUse hook allowed the call" } }
    }
    if (pre.decision === "ask") {
      const message = pre.reason ?? `Hook PreToolUse:${tool.name} asked for confirmation for this tool`
      return decision.behavior === "ask"
        ? { ...decision, message, forced: true }
        : { behavior: "ask", message, reason: { type: "hook", detail: message }, forced: true, suggestions: [] }
    }
    return decision
  }

  const run = Effect.fnUntraced(function* (call: PreparedCall, options: RunCallOptions) {
    const { session } = options
    const { block, tool } = call
    if (Either.isLeft(call.decoded) || tool === undefined) {
      return errorOutcome(call, Either.isLeft(call.decoded) ? call.decoded.left : new UnknownTool({ toolName: block.name }))
    }
    let input: unknown = call.decoded.right
    const pathRules = permissions.pathRules === undefined ? undefined : yield* permissions.pathRules(session)
    const withPathRules = pathRules === undefined ? {} : { pathRules }
    const readsFree = permissions.readsWithoutAsking
    const readsWithoutAsking = (file: string) => (readsFree === undefined ? Effect.succeed(false) : readsFree(tool, file, session))
    const checkContext: ToolCheckContext = { session, fileState, mode: session.permissionMode, readsWithoutAsking, ...withPathRules }
    const notices: Array<string> = []
    const remindersBefore: Array<string> = []
    const fail = (error: CallError, extra: Partial<CallOutcome> = {}, remindersAfter: ReadonlyArray<string> = []) =>
      errorOutcome(call, error, { input, notices, remindersBefore, remindersAfter, ...extra })

    // 2. the tool's own validation
    const validation = validator.validate(tool, input, checkContext)
    if (!isReady(validation)) {
      const rejected = yield* Effect.either(validation)
      if (Either.isLeft(rejected)) return fail(rejected.left)
    }

    // 3. PreToolUse hooks see the input with paths made absolute
    let checked = tool.expandInput(input, session)
    const preHooks = hooks.preToolUse({ tool, toolInput: checked, toolUseId: block.id, session })
    const pre = isReady(preHooks) ? preHooks.value : yield* preHooks
    notices.push(...pre.notices)
    remindersBefore.push(...pre.reminders)
    if (pre.stop !== undefined) {
      return fail(new HookStopped({ toolName: tool.name, event: "PreToolUse", stopReason: pre.stop.reason }), {
        halt: { kind: "hookStop", reason: pre.stop.reason }
      })
    }
    if (pre.decision === "defer") {
      const reason = "a PreToolUse hook deferred it"
      return fail(new NotStarted({ toolName: tool.name, reason }), {
        halt: { kind: "deferred", reason, toolUse: { id: block.id, name: tool.name, input: block.input } }
      })
    }
    if (pre.decision === "deny") {
      const block_ = pre.block ?? { reason: pre.reason ?? "Blocked by hook" }
      return fail(
        new HookBlocked(
          block_.command === undefined
            ? { toolName: tool.name, event: "PreToolUse", reason: block_.reason }
            : { toolName: tool.name, event: "PreToolUse", command: block_.command, reason: block_.reason }
        )
      )
    }
    if (pre.updatedInput !== undefined) {
      const replaced = yield* revalidate(tool, pre.updatedInput, checkContext)
      if (Either.isLeft(replaced)) return fail(replaced.left)
      input = replaced.right
      checked = tool.expandInput(input, session)
    }

    // 4. permissions, then the ask resolution
    let decision = applyHookDecision(tool, pre, yield* permissions.decide({ tool, input: checked, session }))
    if (decision.behavior === "deny") return fail(new PermissionDenied({ toolName: tool.name, reason: decision.message }), { decision })
    if (decision.behavior === "ask") {
      if (session.permissionMode === "dontAsk") {
        return fail(new PermissionDenied({ toolName: tool.name, reason: dontAskDenied(tool.name) }), { decision })
      }
      const request = yield* hooks.permissionRequest({ tool, toolInput: checked, session, suggestions: decision.suggestions })
      notices.push(...request.notices)
      const hookAnswer = request.decision
      if (hookAnswer?.behavior === "deny") {
        return fail(new PermissionDenied({ toolName: tool.name, reason: hookAnswer.message ?? `Permission to use ${tool.name} has been denied.` }), {
          decision,
          ...(hookAnswer.interrupt === true ? { halt: { kind: "userInterrupt" as const, reason: hookAnswer.message ?? "" } } : {})
        })
      }
      if (hookAnswer?.behavior === "allow") {
        if (hookAnswer.updatedInput !== undefined) {
          const replaced = yield* revalidate(tool, hookAnswer.updatedInput, checkContext)
          if (Either.isLeft(replaced)) return fail(replaced.left)
          input = replaced.right
          checked = tool.expandInput(input, session)
          // an updated input is checked again against deny rules
          const again = yield* permissions.decide({ tool, input: checked, session })
          if (again.behavior === "deny") return fail(new PermissionDenied({ toolName: tool.name, reason: again.message }), { decision: again })
        }
        decision = { behavior: "allow", reason: { type: "hook", detail: "a PermissionRequest hook allowed the call" } }
      } else if (!approver.canAsk) {
        return fail(new PermissionDenied({ toolName: tool.name, reason: decision.message }), { decision })
      } else {
        // A question left unanswered for a while fires the Notification hooks (permission_prompt).
        const notify = yield* Effect.fork(
          Effect.sleep(Duration.millis(notifyDelayMs)).pipe(
            Effect.zipRight(hooks.notification({ session, message: `Claude needs your permission to use ${tool.name}`, notificationType: "permission_prompt" })),
            Effect.flatMap(({ notices }) => Effect.forEach(notices, (n) => Effect.logWarning(n), { discard: true }))
          )
        )
        const answer = yield* approver
          .request({ tool, input: checked, toolUseId: block.id, message: decision.message, decision, suggestions: decision.suggestions, session })
          .pipe(Effect.ensuring(Fiber.interrupt(notify)))
        if (answer.behavior === "deny") {
          return fail(new NotApproved(answer.feedback === undefined ? { toolName: tool.name } : { toolName: tool.name, feedback: answer.feedback }), {
            decision,
            ...(answer.interrupt === true ? { halt: { kind: "userInterrupt" as const, reason: answer.feedback ?? "" } } : {})
          })
        }
        if (answer.scope !== "once") {
          const rules = answer.rules ?? offeredRules(decision.suggestions)
          if (rules.length > 0) {
            const saved = yield* Effect.either(settings.addRules(rules, "allow", answer.scope === "always" ? "localSettings" : "session"))
            if (Either.isLeft(saved)) notices.push(`Could not save the rule: ${saved.left.message}`)
          }
        }
        if (answer.updatedInput !== undefined) {
          const replaced = yield* revalidate(tool, answer.updatedInput, checkContext)
          if (Either.isLeft(replaced)) return fail(replaced.left)
          input = replaced.right
        }
        decision = { behavior: "allow", reason: { type: "approval", detail: `approved (${answer.scope})` } }
      }
    }
    if (decision.behavior === "allow" && decision.updatedInput !== undefined) {
      const replaced = yield* revalidate(tool, decision.updatedInput, checkContext)
      if (Either.isLeft(replaced)) return fail(replaced.left)
      input = replaced.right
    }

    // 5. the call itself
    const context: ToolContext = {
      toolUseId: block.id,
      session,
      fileState,
      readsWithoutAsking,
      approvedBecause: decision.reason,
      reportProgress: options.onProgress === undefined ? () => Effect.void : (progress) => options.onProgress!(block.id, progress),
      ...withPathRules
    }
    const startedAt = Date.now()
    const calling = startCall(tool, input, context)
    const called = isReady(calling)
      ? Either.right(calling.value)
      : yield* calling.pipe(
          Effect.map((result) => Either.right(result)),
          Effect.catchTag("ToolError", (e) => Effect.succeed(Either.left<CallError>(new ToolFailed({ toolName: tool.name, reason: e.reason })))),
          Effect.catchAllDefect((defect) => Effect.succeed(Either.left<CallError>(new ToolDefect({ toolName: tool.name, reason: describeDefect(defect) }))))
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
      notices.push(...post.notices)
      if (tool.siblingCancellationLabel !== undefined && error._tag === "ToolFailed") {
        return fail(error, { decision, siblingFailure: tool.siblingCancellationLabel(input) }, post.reminders)
      }
      return fail(error, { decision }, post.reminders)
    }

    // 6. map the result, PostToolUse hooks, spill
    const result = called.right
    const mapped = Either.try({
      try: () => tool.mapResult(result.data, block.id),
      catch: (defect) => new ToolDefect({ toolName: tool.name, reason: `could not map the result: ${describeDefect(defect)}` })
    })
    if (Either.isLeft(mapped)) return fail(mapped.left, { decision })
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
    notices.push(...post.notices)
    let content: ToolResultContent = mapped.right
    // A hook's replacement output is taken when the tool can read it as its own output (an MCP
    // tool's content; a built-in's output in the shape hooks see); otherwise it is ignored.
    if (post.updatedOutput !== undefined) {
      const replacement = safely(() => tool.hookOutput?.(post.updatedOutput), undefined)
      const remapped =
        replacement === undefined ? undefined : safely(() => tool.mapResult(replacement, block.id), undefined as ToolResultContent | undefined)
      if (remapped !== undefined) content = remapped
      else notices.push(`PostToolUse hook output for ${tool.name} ignored: it does not have the shape of the tool's output`)
    }
    const fitting = resultStore.fit(session.sessionDir, block.id, content, tool.maxResultSizeChars)
    const fitted = isReady(fitting) ? Either.right(fitting.value) : yield* Effect.either(fitting)
    if (Either.isLeft(fitted)) {
      notices.push(fitted.left.message)
      const limit = thresholdFor(tool.maxResultSizeChars)
      const text = contentText(content)
      content = `${text.slice(0, limit)}\n\n... [output truncated: ${text.length - limit} characters not shown; it could not be saved to a file]`
    } else content = fitted.right

    return {
      toolUseId: block.id,
      toolName: tool.name,
      result: toolResult(block.id, content),
      remindersBefore,
      remindersAfter: post.reminders,
      error: undefined,
      input,
      ...(result.contextModifier !== undefined && !call.concurrencySafe ? { contextModifier: result.contextModifier } : {}),
      newMessages: result.newMessages ?? [],
      notices,
      decision,
      // a hook's replacement output is what the model saw: the structured output no longer describes it
      ...(post.updatedOutput === undefined ? { response } : {}),
      ...(post.stop !== undefined ? { halt: { kind: "hookStop" as const, reason: post.stop.reason } } : {})
    } satisfies CallOutcome
  })

  return CallPipeline.of({ prepare, run, errorOutcome: (call, error) => errorOutcome(call, error) })
})

export const layer = Layer.effect(CallPipeline, make)
