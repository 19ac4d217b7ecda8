/**
 * The pointer Claude Code adds when the model calls a tool that is not in the pool: that a
 * built-in tool was taken out of the session (a deny rule), the tool it meant when the name
 * differs only in case (for a tool listed in full, not one deferred behind ToolSearch), or the
 * tool another runtime's name stands for (`view` → Read, see `knownAs`).
 */
import { UnknownTool } from "../../Errors.js"
import type { ToolPool } from "../ToolRegistry.js"

export const unknownToolHint = (name: string, pool: Pick<ToolPool, "tools" | "removed">): string | undefined => {
  const { tools } = pool
  if (!name.startsWith("mcp__") && pool.removed.some((r) => r.name === name)) {
    return `. ${name} is disabled for this session, in subagents as well as here.`
  }
  const lower = name.toLowerCase()
  const sameButCase = tools.filter((t) => t.name.toLowerCase() === lower)
  if (sameButCase.length === 1 && !sameButCase[0]!.shouldDefer) {
    return `. Tool names are case-sensitive: call ${sameButCase[0]!.name} instead.`
  }
  const standsFor = tools.filter((t) => t.knownAs.includes(name))
  if (standsFor.length === 1) return `. Call ${standsFor[0]!.name} instead.`
  return undefined
}

export const unknownTool = (name: string, pool: Pick<ToolPool, "tools" | "removed">): UnknownTool => {
  const hint = unknownToolHint(name, pool)
  return new UnknownTool(hint === undefined ? { toolName: name } : { toolName: name, hint })
}
