/**
 * Combining the answers of all hooks that ran for one event: the
 * decision with the highest precedence wins (deny > defer > ask > allow), its `updatedInput`
 * comes from the last such hook to finish, every `additionalContext` is delivered. Runs are
 * given in configuration order, so messages are deterministic even though hooks run in parallel.
 * What the model reads is worded as Claude Code words it (`reminders`, see modelText.ts).
 */
import type {
  SessionStartOutcome,
  StopOutcome,
  UserPromptSubmitOutcome,
  PermissionRequestOutcome,
  PermissionUpdate,
  PostToolBatchOutcome,
  PostToolUseFailureOutcome,
  PostToolUseOutcome,
  PreToolUseOutcome
} from "../Hooks.js"
import type { HookRun } from "./output.js"
import {
  additionalContextText,
  blockingErrorText,
  hookSuccessText,
  operationStoppedText,
  promptBlockedText,
  stopFeedbackText
} from "./modelText.js"
import { systemReminder } from "../../Messages.js"
import type { PermissionRequestSpecificOutput, PostToolUseSpecificOutput, PreToolUseSpecificOutput } from "./types.js"

type Decision = "allow" | "deny" | "ask" | "defer"
const PRECEDENCE: Record<Decision, number> = { allow: 1, ask: 2, defer: 3, deny: 4 }

import type { Cap } from "./capText.js"

const specific = <T>(run: HookRun): Partial<T> => (run.json?.hookSpecificOutput ?? {}) as Partial<T>

const stderrText = (stderr: string) => (stderr.trim() === "" ? "No stderr output" : stderr)

const commonNotices = (runs: ReadonlyArray<HookRun>, cap: Cap): Array<string> =>
  runs.flatMap((r) => [...r.notices, ...(r.json?.systemMessage !== undefined ? [cap(r.json.systemMessage)] : [])])

const stopOf = (runs: ReadonlyArray<HookRun>): { readonly reason: string } | undefined => {
  const stopped = runs.find((r) => r.json?.continue === false)
  return stopped === undefined ? undefined : { reason: stopped.json?.stopReason ?? "" }
}

const lastToFinish = (runs: ReadonlyArray<HookRun>): HookRun | undefined =>
  runs.reduce<HookRun | undefined>((best, r) => (best === undefined || r.order > best.order ? r : best), undefined)

/** The decision the JSON answer alone gives. */
const jsonDecision = (run: HookRun): Decision | undefined => {
  const own = specific<PreToolUseSpecificOutput>(run).permissionDecision
  if (own !== undefined) return own
  if (run.json?.decision === "approve") return "allow"
  if (run.json?.decision === "block") return "deny"
  return undefined
}

const preDecision = (run: HookRun): Decision | undefined =>
  run.exit2 !== undefined || run.failClosed !== undefined ? "deny" : jsonDecision(run)

const preReason = (run: HookRun): string | undefined =>
  specific<PreToolUseSpecificOutput>(run).permissionDecisionReason ?? run.json?.reason

export const aggregatePreToolUse = (runs: ReadonlyArray<HookRun>, hookName: string, cap: Cap): PreToolUseOutcome => {
  const decided = runs.map((run) => ({ run, decision: preDecision(run) }))
  let winner: Decision | undefined
  for (const d of decided) {
    if (d.decision !== undefined && (winner === undefined || PRECEDENCE[d.decision] > PRECEDENCE[winner])) {
      winner = d.decision
    }
  }
  const reminders = decided
    .filter((d) => d.decision !== "defer")
    .flatMap((d) => {
      const ctx = specific<PreToolUseSpecificOutput>(d.run).additionalContext
      return ctx === undefined || ctx === "" ? [] : [additionalContextText(hookName, cap(ctx))]
    })
  const notices = commonNotices(runs, cap)
  const stop = stopOf(runs)
  const base = { reminders, notices, ...(stop === undefined ? {} : { stop }) }

  if (winner === "deny") {
    const first = decided.find((d) => d.decision === "deny")!.run
    // exit 2: the JSON's own blocking reason if it blocks too, else stderr
    const jsonReason = jsonDecision(first) === "deny" ? preReason(first) : undefined
    // exit 2 with a JSON deny of its own: the JSON's reason, as a JSON deny reads; else `[command]: stderr`
    // (bounded as one text, as the model reads it; the error puts the `[command]: ` back)
    const block = first.exit2 !== undefined && jsonReason !== undefined
      ? { reason: cap.blocking(jsonReason) }
      : first.exit2 !== undefined
      ? {
        command: first.label,
        reason: cap.blocking(`[${first.label}]: ${stderrText(first.exit2.stderr)}`).slice(first.label.length + 4)
      }
      : first.failClosed !== undefined
      ? { reason: cap.blocking(first.failClosed) }
      : { reason: cap.blocking(jsonReason ?? "Blocked by hook") }
    return { decision: "deny", block, ...base }
  }
  // updatedInput: from the winning decision, or from any hook when none decided (as 2.1.112 does)
  const candidates = decided.filter((d) => (winner === undefined ? true : d.decision === winner)).map((d) => d.run)
  const withInput = winner === "defer"
    ? undefined
    : lastToFinish(candidates.filter((r) => specific<PreToolUseSpecificOutput>(r).updatedInput !== undefined))
  const reasonRun = lastToFinish(candidates.filter((r) => preReason(r) !== undefined))
  const reason = winner === undefined || winner === "defer" || reasonRun === undefined
    ? undefined
    : preReason(reasonRun)
  const updatedInput = withInput === undefined ? undefined : specific<PreToolUseSpecificOutput>(withInput).updatedInput
  return {
    decision: winner,
    ...base,
    ...(reason === undefined ? {} : { reason: cap.blocking(reason) }),
    ...(updatedInput === undefined ? {} : { updatedInput })
  }
}

export const aggregatePermissionRequest = (runs: ReadonlyArray<HookRun>, cap: Cap): PermissionRequestOutcome => {
  const notices = commonNotices(runs, cap)
  const stop = stopOf(runs)
  // `continue: false` overrides decisions: nothing may run, and the turn stops
  if (stop !== undefined) {
    return { decision: { behavior: "deny", message: cap.blocking(stop.reason), interrupt: true }, notices }
  }
  const decided = runs.flatMap((run) => {
    const decision = specific<PermissionRequestSpecificOutput>(run).decision
    return decision === undefined ? [] : [{ run, decision }]
  })
  const denies = decided.filter((d) => d.decision.behavior === "deny")
  if (denies.length > 0) {
    const first = denies[0]!.decision as { message?: string }
    const interrupt = denies.some((d) => (d.decision as { interrupt?: boolean }).interrupt === true)
    return {
      decision: {
        behavior: "deny",
        ...(first.message === undefined ? {} : { message: cap.blocking(first.message) }),
        ...(interrupt ? { interrupt } : {})
      },
      notices
    }
  }
  const allows = decided.filter((d) => d.decision.behavior === "allow")
  if (allows.length === 0) return { notices }
  const last = allows.reduce((best, d) => (d.run.order > best.run.order ? d : best))
  const allow = last.decision as {
    updatedInput?: Record<string, unknown>
    updatedPermissions?: ReadonlyArray<PermissionUpdate>
  }
  return {
    decision: {
      behavior: "allow",
      ...(allow.updatedInput === undefined ? {} : { updatedInput: allow.updatedInput }),
      ...(allow.updatedPermissions === undefined ? {} : { updatedPermissions: allow.updatedPermissions })
    },
    notices
  }
}

const contextsOf = (runs: ReadonlyArray<HookRun>): ReadonlyArray<{ readonly run: HookRun; readonly context: string }> =>
  runs.flatMap((run) => {
    const context = (run.json?.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext
    return context === undefined || context === "" ? [] : [{ run, context }]
  })

/** Each hook's `additionalContext`, worded for the model. */
const contextReminders = (runs: ReadonlyArray<HookRun>, hookName: string, cap: Cap): Array<string> =>
  contextsOf(runs).map(({ context }) => additionalContextText(hookName, cap(context)))

/** A hook's blocking error as the model reads it: the JSON `block` reason, else `[command]: stderr` of an exit 2. */
const blockingError = (run: HookRun, hookName: string, cap: Cap): string | undefined => {
  if (run.json?.decision === "block") {
    return blockingErrorText(hookName, run.label, cap.blocking(run.json.reason ?? "Blocked by hook"))
  }
  if (run.exit2 !== undefined) {
    return blockingErrorText(hookName, run.label, cap.blocking(`[${run.label}]: ${stderrText(run.exit2.stderr)}`))
  }
  return undefined
}

/** Per hook, in configuration order: its blocking error, then its additional context. */
const postReminders = (runs: ReadonlyArray<HookRun>, hookName: string, cap: Cap): Array<string> =>
  runs.flatMap((run) => {
    const blocking = blockingError(run, hookName, cap)
    return [...(blocking === undefined ? [] : [blocking]), ...contextReminders([run], hookName, cap)]
  })

export const aggregatePostToolUse = (
  runs: ReadonlyArray<HookRun>,
  hookName: string,
  isMcp: boolean,
  cap: Cap
): PostToolUseOutcome => {
  const outputs = runs.flatMap((r) => {
    const s = specific<PostToolUseSpecificOutput>(r)
    if (isMcp && s.updatedMCPToolOutput !== undefined) return [{ run: r, value: s.updatedMCPToolOutput }]
    if (s.updatedToolOutput !== undefined) return [{ run: r, value: s.updatedToolOutput }]
    return []
  })
  const updated = outputs.length === 0
    ? undefined
    : outputs.reduce((best, o) => (o.run.order > best.run.order ? o : best))
  const stop = stopOf(runs)
  return {
    reminders: postReminders(runs, hookName, cap),
    notices: commonNotices(runs, cap),
    ...(updated === undefined ? {} : { updatedOutput: updated.value }),
    ...(stop === undefined ? {} : { stop })
  }
}

export const aggregatePostToolUseFailure = (
  runs: ReadonlyArray<HookRun>,
  hookName: string,
  cap: Cap
): PostToolUseFailureOutcome => ({
  reminders: postReminders(runs, hookName, cap),
  notices: commonNotices(runs, cap)
})

export const aggregatePostToolBatch = (runs: ReadonlyArray<HookRun>, cap: Cap): PostToolBatchOutcome => {
  const stopper = runs.find((r) => r.exit2 !== undefined || r.json?.decision === "block" || r.json?.continue === false)
  const stop = stopper === undefined
    ? undefined
    : {
      reason: cap.blocking(
        stopper.exit2 !== undefined
          ? stderrText(stopper.exit2.stderr)
          : stopper.json?.decision === "block"
          ? (stopper.json.reason ?? "Blocked by hook")
          : (stopper.json?.stopReason ?? "")
      )
    }
  return {
    reminders: contextReminders(runs, "PostToolBatch", cap),
    notices: commonNotices(runs, cap),
    ...(stop === undefined ? {} : { stop })
  }
}

/** Plain stdout of hooks that exited 0, trimmed, for the events that take it as context. */
const plainOutputs = (runs: ReadonlyArray<HookRun>, cap: Cap): Array<string> =>
  runs.flatMap((r) => {
    const text = r.plainStdout?.trim()
    return text === undefined || text === "" ? [] : [cap(text)]
  })

export const aggregateUserPromptSubmit = (
  runs: ReadonlyArray<HookRun>,
  prompt: string,
  cap: Cap
): UserPromptSubmitOutcome => {
  const notices = commonNotices(runs, cap)
  const stopper = runs.find((r) => r.json?.continue === false)
  if (stopper !== undefined) {
    return { blocked: operationStoppedText(cap.blocking(stopper.json?.stopReason ?? "")), reminders: [], notices }
  }
  const blocker = runs.find((r) => r.exit2 !== undefined || r.json?.decision === "block" || r.failClosed !== undefined)
  if (blocker !== undefined) {
    const reason = blocker.json?.decision === "block"
      ? (blocker.json.reason ?? "Blocked by hook")
      : blocker.exit2 !== undefined
      ? `[${blocker.label}]: ${stderrText(blocker.exit2.stderr)}`
      : (blocker.failClosed ?? "")
    const suppress =
      (blocker.json?.hookSpecificOutput as { suppressOriginalPrompt?: boolean } | undefined)?.suppressOriginalPrompt ===
        true
    return { blocked: promptBlockedText(cap.blocking(reason), suppress ? undefined : prompt), reminders: [], notices }
  }
  return {
    reminders: [
      ...contextReminders(runs, "UserPromptSubmit", cap),
      ...plainOutputs(runs, cap).map((text) => hookSuccessText("UserPromptSubmit", text))
    ],
    notices
  }
}

export const aggregateSessionStart = (runs: ReadonlyArray<HookRun>, source: string, cap: Cap): SessionStartOutcome => ({
  reminders: [
    ...contextReminders(runs, "SessionStart", cap),
    ...plainOutputs(runs, cap).map((text) => hookSuccessText(`SessionStart:${source}`, text))
  ],
  notices: commonNotices(runs, cap)
})

/**
 * Stop and SubagentStop: `continue: false` ends the turn for good; otherwise a blocking hook
 * (`decision: "block"`, exit 2) or one with `additionalContext` keeps the model going, with what
 * the hooks said as the next user message.
 */
export const aggregateStop = (runs: ReadonlyArray<HookRun>, event: "Stop" | "SubagentStop", cap: Cap): StopOutcome => {
  const notices = commonNotices(runs, cap)
  const stop = stopOf(runs)
  if (stop !== undefined) return { continueWith: [], stop: { reason: cap.blocking(stop.reason) }, notices }
  const continueWith = runs.flatMap((run) => {
    const context = contextsOf([run]).map(({ context }) => systemReminder(additionalContextText(event, cap(context))))
    if (run.json?.decision === "block") {
      const reason = cap.blocking(run.json.reason ?? "Blocked by hook")
      return [
        `${systemReminder(blockingErrorText(event, run.label, reason))}\n`,
        systemReminder(stopFeedbackText(reason)),
        ...context
      ]
    }
    if (run.exit2 !== undefined) {
      return [
        systemReminder(stopFeedbackText(cap.blocking(`[${run.label}]: ${stderrText(run.exit2.stderr)}`))),
        ...context
      ]
    }
    return context
  })
  return { continueWith, notices }
}
