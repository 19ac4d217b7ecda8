/**
 * What each permission mode does to a decision, in words the explainer
 * prints, and the mode actually in force.
 */
import type { PermissionMode } from "../../Permission.js"

/**
 * The mode in force: `bypassPermissions` falls back to `default` when a settings source sets
 * `disableBypassPermissionsMode`; `auto` has no classifier here and behaves like `default`.
 */
export const effectiveMode = (mode: PermissionMode, bypassDisabled: boolean): PermissionMode =>
  mode === "bypassPermissions" && bypassDisabled ? "default" : mode

/** The mode's part in a decision, for explanations. */
export const MODE_EFFECTS: Readonly<Record<PermissionMode, string>> = {
  default:
    "default: reads inside the working directories, read-only Bash and tools that need no permission run; everything else asks",
  acceptEdits:
    "acceptEdits: file edits inside the working directories are accepted (protected paths and paths outside still ask)",
  plan: "plan: reads and read-only Bash run; file edits always ask, even with an allow rule",
  auto: "auto: no classifier here, so it behaves like default (asks stay asks)",
  dontAsk: "dontAsk: whatever would ask is denied instead",
  bypassPermissions:
    "bypassPermissions: everything runs except what deny rules, ask rules, critical paths or user interaction stop"
}
