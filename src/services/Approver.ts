/**
 * Answers an "ask" (claude-code-spec §1.4 step 7, after PermissionRequest hooks): a terminal
 * prompt, a library callback (`canUseTool`), or — when nothing can ask — a denial.
 */
import { Context, Effect, Layer } from "effect"
import type { AnyTool } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import type { PermissionDecision, RuleSuggestion } from "../permissions/types.js"

export interface ApprovalRequest {
  readonly tool: AnyTool
  /** The input as checked (paths absolute). */
  readonly input: unknown
  readonly toolUseId: string
  /** The prompt text, e.g. `Claude requested permissions to use Bash, but you haven't granted it yet.` */
  readonly message: string
  readonly decision: Extract<PermissionDecision, { behavior: "ask" }>
  readonly suggestions: ReadonlyArray<RuleSuggestion>
  readonly session: SessionContext
}

export type ApprovalAnswer =
  | {
      readonly behavior: "allow"
      /** once: this call; session: add the suggested rules for this session; always: also save them to `.claude/settings.local.json`. */
      readonly scope: "once" | "session" | "always"
      readonly updatedInput?: Record<string, unknown>
      /** The rules to add for session/always; defaults to the request's suggestions. */
      readonly rules?: ReadonlyArray<string>
    }
  | {
      readonly behavior: "deny"
      /** Shown to the model after the rejection text. */
      readonly feedback?: string
      /** Stop the whole turn, not just this call. */
      readonly interrupt?: boolean
    }

export interface ApproverService {
  /** True when someone (a person or a callback) can answer; false means every ask is denied. */
  readonly canAsk: boolean
  readonly request: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
}

export class Approver extends Context.Tag("toolgate/Approver")<Approver, ApproverService>() {}

/** Nothing can ask: every "ask" is denied (fail closed). */
export const layerDeny: Layer.Layer<Approver> = Layer.succeed(Approver, {
  canAsk: false,
  request: () => Effect.succeed({ behavior: "deny" })
})

/** A library callback decides, like the Agent SDK's `canUseTool`. */
export const layerCallback = (
  canUseTool: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
): Layer.Layer<Approver> => Layer.succeed(Approver, { canAsk: true, request: canUseTool })
