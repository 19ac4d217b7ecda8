/**
 * What one hook's run means (claude-code-spec §2.5, §2.6): stdout starting with `{` is JSON
 * (invalid JSON is plain text), exit 0 applies the JSON, exit 2 blocks, other exits are
 * non-blocking errors unless stdout holds a valid JSON object, which then decides alone. A JSON
 * object that fails validation, or names another event, is a non-blocking error.
 */
import type { ProcessOutcome } from "./runProcess.js"
import type { HookEvent, HookJsonOutput } from "./types.js"
import { isRecord } from "../../internal/json.js"

/** One hook's run, reduced to what aggregation needs. */
export interface HookRun {
  /** The hook command as configured (or the in-process hook's name). */
  readonly label: string
  /** 1 for the first hook to finish, 2 for the next… */
  readonly order: number
  /** Exit code 2: a blocking error, with its stderr. */
  readonly exit2?: { readonly stderr: string }
  /** A valid JSON answer for this event. */
  readonly json?: HookJsonOutput
  /** An in-process PreToolUse hook that timed out (blocks, as SDK callback hooks do). */
  readonly timeoutBlock?: string
  readonly notices: ReadonlyArray<string>
}

export type HookRunBody = Omit<HookRun, "order" | "label">

const firstLine = (text: string) => text.split(/\r?\n/).find((l) => l.trim() !== "")?.trim() ?? ""

/** Parses stdout as JSON when it starts with `{`; anything else (or invalid JSON) is plain text. */
export const parseStdout = (stdout: string): Record<string, unknown> | undefined => {
  const text = stdout.trimStart()
  if (!text.startsWith("{")) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

const optionalType = (o: Record<string, unknown>, key: string, type: "string" | "boolean" | "object"): string | undefined => {
  const v = o[key]
  if (v === undefined) return undefined
  if (type === "object" ? !isRecord(v) : typeof v !== type) return `"${key}" must be ${type === "object" ? "an object" : `a ${type}`}`
  return undefined
}

const oneOf = (o: Record<string, unknown>, key: string, values: ReadonlyArray<string>): string | undefined => {
  const v = o[key]
  if (v === undefined || (typeof v === "string" && values.includes(v))) return undefined
  return `"${key}" must be one of ${values.map((x) => `"${x}"`).join(", ")}`
}

const UPDATE_TYPES = ["addRules", "replaceRules", "removeRules", "setMode", "addDirectories", "removeDirectories"]
const DESTINATIONS = ["session", "localSettings", "projectSettings", "userSettings"]

const checkPermissionUpdate = (u: unknown, i: number): string | undefined => {
  if (!isRecord(u)) return `"updatedPermissions[${i}]" must be an object`
  const where = `updatedPermissions[${i}]`
  if (typeof u.type !== "string" || !UPDATE_TYPES.includes(u.type)) return `"${where}.type" is not a permission update type`
  if (typeof u.destination !== "string" || !DESTINATIONS.includes(u.destination)) return `"${where}.destination" is not a destination`
  if (u.type.endsWith("Rules")) {
    if (!Array.isArray(u.rules) || u.rules.some((r) => !isRecord(r) || typeof r.toolName !== "string" || (r.ruleContent !== undefined && typeof r.ruleContent !== "string"))) {
      return `"${where}.rules" must be an array of {toolName, ruleContent?}`
    }
    if (u.behavior !== "allow" && u.behavior !== "deny" && u.behavior !== "ask") return `"${where}.behavior" must be allow, deny or ask`
  }
  if (u.type === "setMode" && typeof u.mode !== "string") return `"${where}.mode" must be a string`
  if (u.type.endsWith("Directories") && (!Array.isArray(u.directories) || u.directories.some((d) => typeof d !== "string"))) {
    return `"${where}.directories" must be an array of strings`
  }
  return undefined
}

const checkSpecific = (event: HookEvent, s: Record<string, unknown>): string | undefined => {
  switch (event) {
    case "PreToolUse":
      return (
        oneOf(s, "permissionDecision", ["allow", "deny", "ask", "defer"]) ??
        optionalType(s, "permissionDecisionReason", "string") ??
        optionalType(s, "updatedInput", "object") ??
        optionalType(s, "additionalContext", "string")
      )
    case "PermissionRequest": {
      const d = s.decision
      if (d === undefined) return undefined
      if (!isRecord(d)) return `"decision" must be an object`
      if (d.behavior === "allow") {
        const bad = optionalType(d, "updatedInput", "object")
        if (bad !== undefined) return bad
        if (d.updatedPermissions === undefined) return undefined
        if (!Array.isArray(d.updatedPermissions)) return `"updatedPermissions" must be an array`
        for (let i = 0; i < d.updatedPermissions.length; i++) {
          const problem = checkPermissionUpdate(d.updatedPermissions[i], i)
          if (problem !== undefined) return problem
        }
        return undefined
      }
      if (d.behavior === "deny") return optionalType(d, "message", "string") ?? optionalType(d, "interrupt", "boolean")
      return `"decision.behavior" must be "allow" or "deny"`
    }
    case "PostToolUse":
    case "PostToolUseFailure":
    case "PostToolBatch":
      return optionalType(s, "additionalContext", "string")
  }
}

/** Validates a JSON answer for an event; returns the problem, or undefined when it is valid. */
export const validateOutput = (event: HookEvent, o: Record<string, unknown>): string | undefined => {
  if (o.async === true) return undefined
  const common =
    optionalType(o, "continue", "boolean") ??
    optionalType(o, "stopReason", "string") ??
    optionalType(o, "suppressOutput", "boolean") ??
    optionalType(o, "systemMessage", "string") ??
    oneOf(o, "decision", ["approve", "block"]) ??
    optionalType(o, "reason", "string") ??
    optionalType(o, "hookSpecificOutput", "object")
  if (common !== undefined) return common
  const specific = o.hookSpecificOutput
  if (!isRecord(specific)) return undefined
  if (specific.hookEventName !== event) {
    return `Hook returned incorrect event name: expected '${event}' but got '${String(specific.hookEventName)}'`
  }
  return checkSpecific(event, specific)
}

/** Reads a parsed answer: the JSON if valid, else a non-blocking error notice. */
export const acceptJson = (
  event: HookEvent,
  hookName: string,
  parsed: Record<string, unknown>
): { readonly json?: HookJsonOutput; readonly notice?: string } => {
  const problem = validateOutput(event, parsed)
  if (problem !== undefined) return { notice: `${hookName} hook error: JSON validation failed: ${problem}` }
  return { json: parsed as HookJsonOutput }
}

/** Interprets a finished hook process. */
export const interpretProcess = (event: HookEvent, hookName: string, outcome: ProcessOutcome): HookRunBody => {
  switch (outcome._tag) {
    case "SpawnFailed":
      return { notices: [`${hookName} hook error: could not start the hook: ${outcome.message}`] }
    case "TimedOut":
      return { notices: [`${hookName} hook error: the hook timed out and was cancelled; its output was discarded`] }
    case "Signalled":
      return { notices: [`${hookName} hook error: the hook was killed by ${outcome.signal}${outcome.stderr.trim() === "" ? "" : `: ${firstLine(outcome.stderr)}`}`] }
    case "Exited": {
      const parsed = parseStdout(outcome.stdout)
      const accepted = parsed === undefined ? {} : acceptJson(event, hookName, parsed)
      const notices: Array<string> = accepted.notice === undefined ? [] : [accepted.notice]
      if (outcome.exitCode === 2) {
        return accepted.json === undefined
          ? { exit2: { stderr: outcome.stderr }, notices }
          : { exit2: { stderr: outcome.stderr }, json: accepted.json, notices }
      }
      if (accepted.json !== undefined) return { json: accepted.json, notices }
      if (outcome.exitCode !== 0 && accepted.notice === undefined) {
        const line = firstLine(outcome.stderr)
        notices.push(`${hookName} hook error: Failed with non-blocking status code: ${line === "" ? "No stderr output" : line}`)
      }
      return { notices }
    }
  }
}
