/**
 * The file tools' own check of the path deny rules, before hooks run (Claude Code's
 * validateInput order and wording). The permission stage checks again after hooks; this check
 * gives the model the same text Claude Code gives, and keeps hooks from seeing a denied call.
 */
import type { ToolCheckContext, ToolContext } from "../../Tool.js"

export const DENIED_DIRECTORY_MESSAGE = "File is in a directory that is denied by your permission settings."

export const readDenyCoversMessage = (action: "written" | "edited"): string =>
  `File is covered by a Read deny rule in your permission settings and cannot be ${action}.`

/** Why the session's deny rules refuse this access to an absolute path, or undefined. */
export const deniedAccessMessage = (
  ctx: ToolCheckContext,
  absolutePath: string,
  access: "read" | "write" | "edit"
): string | undefined => {
  if (ctx.pathRules === undefined) return undefined
  const denials = ctx.pathRules.denials(absolutePath)
  if (access === "read") return denials.read ? DENIED_DIRECTORY_MESSAGE : undefined
  if (denials.edit) return DENIED_DIRECTORY_MESSAGE
  return denials.read ? readDenyCoversMessage(access === "edit" ? "edited" : "written") : undefined
}

/** Files a Read deny rule covers are left out of what a search finds (as Claude Code does). */
export const readableOnly = (ctx: ToolContext): { readonly keepFile?: (absolutePath: string) => boolean } => {
  const rules = ctx.pathRules
  return rules === undefined || !rules.anyReadDeny ? {} : { keepFile: (file) => !rules.denials(file).read }
}
