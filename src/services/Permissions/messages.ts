/**
 * The texts the model and the user see for permission outcomes.
 * One place, so the pipeline, the explainer and the checks never drift apart.
 */
import type { PermissionRule } from "../../Permission.js"

export const wholeToolDenied = (toolName: string): string => `Permission to use ${toolName} has been denied.`

export const bashDenied = (command: string): string => `Permission to use Bash with command ${command} has been denied.`

export const domainDenied = (toolName: string, host: string): string => `${toolName} denied access to domain:${host}.`

export const readDenied = (path: string): string => `Permission to read ${path} has been denied.`

export const editDenied = (path: string): string => `Permission to edit ${path} has been denied.`

export const agentTypeDenied = (agentType: string, rule: PermissionRule): string =>
  `Agent type '${agentType}' has been denied by permission rule '${rule.raw}' from ${rule.source}.`

/** The paragraph Claude Code appends to a denial the model might try to work around. */
export const DENIAL_WORKAROUND_GUIDANCE =
  "IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."

/** What the model sees when `dontAsk` turns an ask into a denial. */
export const dontAskDenied = (toolName: string): string =>
  `Permission to use ${toolName} has been denied because Claude Code is running in don't ask mode. ${DENIAL_WORKAROUND_GUIDANCE}`

export const askToUse = (toolName: string): string =>
  `Claude requested permissions to use ${toolName}, but you haven't granted it yet.`

export const askToRead = (path: string): string =>
  `Claude requested permissions to read from ${path}, but you haven't granted it yet.`

export const askToWrite = (path: string): string =>
  `Claude requested permissions to write to ${path}, but you haven't granted it yet.`

export const resolvesOutside = (path: string, realPath: string): string =>
  `${path} resolves through a symlink to ${realPath}, which is outside the allowed working directories.`

export const askSensitiveFile = (path: string): string =>
  `Claude requested permissions to edit ${path} which is a sensitive file.`

/** Plan mode refuses file edits (an ask rule's text is the tool's own ask: the rule is in the reason). */
export const planModeWrite = (path: string): string => `Cannot write to ${path} while in plan mode.`
