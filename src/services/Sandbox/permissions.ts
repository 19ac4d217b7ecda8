/**
 * How the settings sandbox bears on a Bash permission decision (Claude Code 2.1.332, asked):
 *   - a call that asks to run outside the sandbox (`dangerouslyDisableSandbox`, allowed by
 *     `allowUnsandboxedCommands`) needs an allow rule: what only the analyzer's judgement or the
 *     mode would have approved, and what would have asked for approval anyway, asks
 *     "Run outside of the sandbox" (deny rules, ask rules and safety checks keep their word);
 *   - with `autoAllowBashIfSandboxed`, a call that runs in the sandbox and only lacked an approval
 *     is approved: the sandbox holds what it may write and reach. Deny rules, ask rules, safety
 *     checks and protected paths still stop it, and so does a command the analyzer could not
 *     read fully while Bash deny or ask rules exist (one of them could be hidden in it).
 * Excluded commands (`excludedCommands`) run outside the sandbox, so they are never auto-approved.
 */
import { Effect } from "effect"
import * as Permission from "../../Permission.js"
import type { Decision, PermissionRule } from "../../Permission.js"

export const RUN_OUTSIDE_SANDBOX = "Run outside of the sandbox"
export const AUTO_ALLOWED_IN_SANDBOX = "Auto-allowed with sandbox (autoAllowBashIfSandboxed enabled)"

/** The settings sandbox as the Permissions stage sees it; present only while it is in force. */
export interface SandboxPermissions {
  readonly autoAllowBashIfSandboxed: boolean
  /** `allowUnsandboxedCommands`: `dangerouslyDisableSandbox` may take a call out of the sandbox. */
  readonly unsandboxedCommandsAllowed: boolean
  /** The call matches `excludedCommands` and runs outside the sandbox. */
  readonly isExcluded: (command: string) => Effect.Effect<boolean>
}

export interface SandboxedBashCall {
  readonly command: string
  readonly disableSandbox: boolean
  /** The Bash content rules of the session (every behavior). */
  readonly bashRules: ReadonlyArray<PermissionRule>
}

const runOutside = (verdict: Decision): Decision =>
  Permission.ask(RUN_OUTSIDE_SANDBOX, {
    reason: { type: "sandbox", detail: "the call asks to run outside the sandbox (dangerouslyDisableSandbox)" },
    kind: "unapproved",
    subcommands: verdict.subcommands,
    suggestions: verdict._tag === "Ask" ? verdict.suggestions : []
  })

export const withSandbox = (
  verdict: Decision,
  call: SandboxedBashCall,
  sandbox: SandboxPermissions
): Effect.Effect<Decision> => {
  if (verdict._tag === "Deny") return Effect.succeed(verdict)
  if (call.disableSandbox && sandbox.unsandboxedCommandsAllowed) {
    if (verdict._tag === "Allow") return Effect.succeed(verdict.reason.type === "rule" ? verdict : runOutside(verdict))
    return Effect.succeed(verdict.kind === "rule" || verdict.kind === "safety" ? verdict : runOutside(verdict))
  }
  if (!sandbox.autoAllowBashIfSandboxed || verdict._tag !== "Ask") return Effect.succeed(verdict)
  const approvable = verdict.kind === "unapproved" ||
    (verdict.kind === "guarded" && !call.bashRules.some((r) => r.behavior === "deny" || r.behavior === "ask"))
  if (!approvable) return Effect.succeed(verdict)
  return Effect.map(
    sandbox.isExcluded(call.command),
    (excluded) =>
      excluded
        ? verdict
        : Permission.allow({ type: "sandbox", detail: AUTO_ALLOWED_IN_SANDBOX }, { subcommands: verdict.subcommands })
  )
}
