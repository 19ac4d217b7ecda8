/**
 * Read-before-write by model, as Claude Code 2.1.332 has it: the models of its list (the older
 * ones) must read a file before Edit or Write change it; newer models may change a file they have
 * not read when they could have read it without asking (no Read deny or ask rule on it, inside
 * the working directories or in bypassPermissions). Calls with no model, or one that is not a
 * Claude model, keep the rule (fail closed).
 */
import { Effect } from "effect"
import type { ToolCheckContext, ToolContext } from "../../Tool.js"

const MODELS_THAT_READ_FIRST: ReadonlySet<string> = new Set([
  "claude-opus-4-6",
  "claude-haiku-4-5",
  "claude-opus-4-5",
  "claude-opus-4-1",
  "claude-opus-4-0",
  "claude-sonnet-4-5",
  "claude-sonnet-4-0",
  "claude-3-7-sonnet",
  "claude-3-5-sonnet",
  "claude-3-5-haiku"
])

/** A model id without provider prefixes, version or date suffixes: `claude-sonnet-4-5`; undefined if not Claude. */
export const canonicalModel = (id: string): string | undefined => {
  const match = /claude-[a-z0-9-]*[a-z0-9]/.exec(id.toLowerCase())
  return match === null ? undefined : match[0].replace(/-v\d+$/, "").replace(/-\d{8}$/, "").replace(/-latest$/, "")
}

/** True when the model of the call must read a file before changing it. */
export const mustReadFirst = (model: string | undefined): boolean => {
  const canonical = model === undefined ? undefined : canonicalModel(model)
  return canonical === undefined || MODELS_THAT_READ_FIRST.has(canonical)
}

/** Whether this call may change `file` although it has not read it. */
export const mayChangeUnread = (ctx: ToolCheckContext | ToolContext, file: string): Effect.Effect<boolean> =>
  mustReadFirst(ctx.session.model) || ctx.readsWithoutAsking === undefined
    ? Effect.succeed(false)
    : ctx.readsWithoutAsking(file)
