/**
 * `toolgate permissions check`: the Permissions stage's explanation of a decision
 * (services/Permissions/explain.ts), rendered as text for a terminal and kept as JSON for `--json`.
 */
import { Effect } from "effect"
import type { Decision } from "../Permission.js"
import {
  Explain,
  type ExplainContext,
  type ExplainedRule,
  type ExplanationJson,
  type PermissionRequest,
  type Permissions
} from "../services/Permissions.js"

export interface Explanation {
  readonly text: string
  readonly json: ExplanationJson
}

const rendered = (json: ExplanationJson): Explanation => ({ text: renderText(json), json })

/** Explains and renders a decision; pure. */
export const explainDecision = (decision: Decision, ctx: ExplainContext): Explanation =>
  rendered(Explain.explainDecision(decision, ctx))

/** Decides (without running anything), explains and renders. */
export const permissionsCheck = (
  request: PermissionRequest,
  options: { readonly bypassDisabled?: boolean } = {}
): Effect.Effect<Explanation, never, Permissions> => Effect.map(Explain.permissionsCheck(request, options), rendered)

const ruleLine = (rule: ExplainedRule): string =>
  `'${rule.rule}' (${rule.behavior}) from ${rule.source}${rule.file === undefined ? "" : ` (${rule.file})`}`

const escapeInvisible = (text: string): string =>
  text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00a0\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g,
    (ch) => ch === "\n" ? "\\n" : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

const renderText = (json: ExplanationJson): string => {
  const lines: Array<string> = []
  lines.push(
    `${json.decision}${
      json.stageDecision !== json.decision ? ` (the permission stage says ${json.stageDecision})` : ""
    }`
  )
  lines.push(`tool:    ${json.tool}`)
  if (json.message !== undefined) lines.push(`message: ${escapeInvisible(json.message)}`)
  lines.push(`reason:  ${escapeInvisible(json.reason)}`)
  if (json.rule !== undefined) lines.push(`rule:    ${ruleLine(json.rule)}`)
  if (json.forced !== undefined) {
    lines.push(`forced:  ${json.forced ? "yes (no mode, allow rule or hook allow skips it)" : "no"}`)
  }
  lines.push(`mode:    ${json.mode}: ${json.modePart}`)
  if (json.subcommands !== undefined && json.subcommands.length > 0) {
    lines.push("subcommands:")
    for (const s of json.subcommands) {
      lines.push(
        `  ${s.decision.padEnd(5)} ${escapeInvisible(s.command)}  — ${escapeInvisible(s.reason)}${
          s.rule === undefined ? "" : `; rule ${ruleLine(s.rule)}`
        }`
      )
    }
  }
  if (json.suggestions !== undefined) lines.push(`always allow would save: ${json.suggestions.join(", ")}`)
  return lines.join("\n")
}
