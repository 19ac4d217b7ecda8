/**
 * A permission decision explained without running anything: the final allow / ask / deny after
 * the mode's part (dontAsk turns an ask into a denial), the deciding rule with its source and
 * file, what the mode did, and for Bash each subcommand with its own verdict.
 * `toolgate permissions check` renders it.
 */
import { Effect } from "effect"
import * as Messages from "./messages.js"
import { MODE_EFFECTS, effectiveMode } from "./modes.js"
import {
  behaviorOf,
  describeReason,
  isForced,
  type Decision,
  type PermissionMode,
  type PermissionRule
} from "../../Permission.js"
import { Permissions, type PermissionRequest } from "../Permissions.js"

export interface ExplainContext {
  readonly toolName: string
  readonly input: unknown
  readonly mode: PermissionMode
  /** Set when a settings source forbids bypassPermissions (the mode then acts as default). */
  readonly bypassDisabled?: boolean
}

export interface ExplainedRule {
  readonly rule: string
  readonly behavior: PermissionRule["behavior"]
  readonly source: PermissionRule["source"]
  readonly file?: string
}

export interface ExplanationJson {
  readonly tool: string
  readonly input: unknown
  readonly mode: PermissionMode
  /** The outcome after the mode's part: what would happen to this call. */
  readonly decision: "allow" | "ask" | "deny"
  /** The Permissions stage's own answer, before dontAsk turns an ask into a denial. */
  readonly stageDecision: "allow" | "ask" | "deny"
  /** Deny: the text the model sees; ask: the prompt text. */
  readonly message?: string
  /** Ask only: true when neither a mode nor a hook allow may skip it. */
  readonly forced?: boolean
  readonly reason: string
  readonly rule?: ExplainedRule
  /** What the mode did to this call. */
  readonly modePart: string
  readonly subcommands?: ReadonlyArray<{
    readonly command: string
    readonly decision: "allow" | "ask" | "deny"
    readonly reason: string
    readonly rule?: ExplainedRule
  }>
  /** What "always allow" would save. */
  readonly suggestions?: ReadonlyArray<string>
}

const explainRule = (rule: PermissionRule): ExplainedRule =>
  rule.file === undefined
    ? { rule: rule.raw, behavior: rule.behavior, source: rule.source }
    : { rule: rule.raw, behavior: rule.behavior, source: rule.source, file: rule.file }

const modePartOf = (decision: Decision, mode: PermissionMode, inForce: PermissionMode): string => {
  if (inForce !== mode) {
    return `${mode} is disabled by permissions.disableBypassPermissionsMode, so ${inForce} applies. ${
      MODE_EFFECTS[inForce]
    }`
  }
  if (decision.reason.type === "mode") return `decided by the mode. ${MODE_EFFECTS[mode]}`
  if (decision._tag === "Ask" && mode === "dontAsk") return "dontAsk turns this ask into a denial."
  if (decision._tag === "Ask" && isForced(decision)) {
    return `this ask is forced: no mode, allow rule or hook allow skips it. ${MODE_EFFECTS[mode]}`
  }
  if (decision._tag === "Ask") {
    return `no part: nothing allowed the call, so it asks (a PermissionRequest hook, the prompt or a callback answers; with nothing to ask, it is denied). ${
      MODE_EFFECTS[mode]
    }`
  }
  return `no part: the ${behaviorOf(decision)} does not depend on the mode. ${MODE_EFFECTS[mode]}`
}

/** Explains a decision; pure. */
export const explainDecision = (decision: Decision, ctx: ExplainContext): ExplanationJson => {
  const inForce = effectiveMode(ctx.mode, ctx.bypassDisabled === true)
  const final: "allow" | "ask" | "deny" = decision._tag === "Ask" && inForce === "dontAsk"
    ? "deny"
    : behaviorOf(decision)
  const message = decision._tag === "Allow"
    ? undefined
    : final === "deny" && decision._tag === "Ask"
    ? Messages.dontAskDenied(ctx.toolName)
    : decision.message
  const rule = decision.reason.type === "rule" ? explainRule(decision.reason.rule) : undefined
  const subcommands = decision.subcommands?.map((s) => ({
    command: s.command,
    decision: s.behavior,
    reason: s.reason,
    ...(s.rule === undefined ? {} : { rule: explainRule(s.rule) })
  }))
  const suggestions = decision._tag === "Ask" && decision.suggestions.length > 0
    ? decision.suggestions.map((s) => s.rule)
    : undefined
  const json: ExplanationJson = {
    tool: ctx.toolName,
    input: ctx.input,
    mode: ctx.mode,
    decision: final,
    stageDecision: behaviorOf(decision),
    ...(message === undefined ? {} : { message }),
    ...(decision._tag === "Ask" ? { forced: isForced(decision) } : {}),
    reason: describeReason(decision.reason),
    ...(rule === undefined ? {} : { rule }),
    modePart: modePartOf(decision, ctx.mode, inForce),
    ...(subcommands === undefined ? {} : { subcommands }),
    ...(suggestions === undefined ? {} : { suggestions })
  }
  return json
}

/** Decides (without running anything) and explains. */
export const permissionsCheck = (
  request: PermissionRequest,
  options: { readonly bypassDisabled?: boolean } = {}
): Effect.Effect<ExplanationJson, never, Permissions> =>
  Effect.gen(function*() {
    const permissions = yield* Permissions
    const decision = yield* permissions.decide(request)
    return explainDecision(decision, {
      toolName: request.tool.name,
      input: request.input,
      mode: request.session.permissionMode,
      ...(options.bypassDisabled === undefined ? {} : { bypassDisabled: options.bypassDisabled })
    })
  })
