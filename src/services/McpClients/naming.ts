/**
 * MCP tool names: `mcp__` + norm(server) + `__` + norm(tool), where norm
 * replaces every character outside `[A-Za-z0-9_-]` with `_` (for `claude.ai ` servers,
 * underscores are then collapsed and trimmed).
 *
 * The Messages API rejects tool names longer than 64 characters. A longer name is shortened
 * deterministically: the tool part is cut so that `mcp__<server>__<tool cut>_<hash>` is exactly
 * 64 characters, where `<hash>` is the first 8 hex digits of sha256(`<server>\0<tool>`) over the
 * names as configured. The server segment is kept whole, so `mcp__<server>` rules still match;
 * only when the server segment alone leaves no room for the tool (over 47 characters) is it cut
 * to 40 characters as well.
 */
import { createHash } from "node:crypto"

export const MAX_TOOL_NAME_LENGTH = 64
const HASH_LENGTH = 8
const CUT_SERVER_LENGTH = 40

export const normalizeNamePart = (name: string): string => {
  const replaced = name.replace(/[^A-Za-z0-9_-]/g, "_")
  return name.startsWith("claude.ai ") ? replaced.replace(/_+/g, "_").replace(/^_+|_+$/g, "") : replaced
}

export const toolPrefix = (serverName: string): string => `mcp__${normalizeNamePart(serverName)}__`

const shortHash = (serverName: string, toolName: string): string =>
  createHash("sha256").update(`${serverName}\u0000${toolName}`).digest("hex").slice(0, HASH_LENGTH)

/** The model-facing name of a server's tool, at most 64 characters. */
export const mcpToolName = (serverName: string, toolName: string): string => {
  const server = normalizeNamePart(serverName)
  const tool = normalizeNamePart(toolName)
  const full = `mcp__${server}__${tool}`
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full
  const hash = shortHash(serverName, toolName)
  const suffix = HASH_LENGTH + 1
  const room = MAX_TOOL_NAME_LENGTH - `mcp__${server}__`.length - suffix
  if (room >= 1) return `mcp__${server}__${tool.slice(0, room)}_${hash}`
  const cutServer = server.slice(0, CUT_SERVER_LENGTH)
  const rest = MAX_TOOL_NAME_LENGTH - `mcp__${cutServer}__`.length - suffix
  return `mcp__${cutServer}__${tool.slice(0, rest)}_${hash}`
}

/**
 * Names for all tools of one server. Two tools whose names normalise to the same string (e.g.
 * `a.b` and `a_b`) would collide; the later one, by original name, gets the hashed form.
 */
export const assignToolNames = (serverName: string, toolNames: ReadonlyArray<string>): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  const taken = new Set<string>()
  for (const original of [...toolNames].sort()) {
    let name = mcpToolName(serverName, original)
    if (taken.has(name)) {
      const hash = shortHash(serverName, original)
      name = `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`
    }
    taken.add(name)
    out.set(original, name)
  }
  return out
}
