/**
 * What the interactive session's `/permissions`, `/mcp` and `/tools` show.
 */
import { Effect } from "effect"
import type { SessionContext } from "../Session.js"
import { McpClients } from "../services/McpClients.js"
import { Settings } from "../services/Settings.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { SlashHandlers } from "./interactive.js"

const ruleLine = (rule: { readonly raw: string; readonly source: string; readonly file?: string }) =>
  `    ${rule.raw}  (${rule.source}${rule.file === undefined ? "" : `: ${rule.file}`})`

export const slashViews = (session: () => SessionContext, clear: () => void) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const mcp = yield* McpClients
    const registry = yield* ToolRegistry
    const permissions = Effect.gen(function*() {
      const loaded = yield* settings.current
      const current = session()
      const lines = [
        `Permission mode: ${current.permissionMode}`,
        `Working directories: ${[current.projectDir, ...current.additionalDirectories].join(", ")}`
      ]
      for (const behavior of ["deny", "ask", "allow"] as const) {
        const rules = loaded.rules.filter((r) => r.behavior === behavior)
        lines.push(`  ${behavior} (${rules.length}):`, ...(rules.length === 0 ? ["    (none)"] : rules.map(ruleLine)))
      }
      lines.push(`"Always allow" answers are saved to ${loaded.localSettingsFile}`)
      return lines.join("\n")
    })
    const servers = Effect.gen(function*() {
      const list = yield* mcp.servers
      if (list.length === 0) return "No MCP servers configured (.mcp.json, ~/.claude.json or --mcp-config)."
      return list
        .flatMap((s) => [
          `  ${s.name}  ${s.state}  ${s.type}${
            s.state === "connected" ? `  ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}` : ""
          }`,
          ...(s.reason === undefined ? [] : [`    ${s.reason.split("\n")[0]}`])
        ])
        .join("\n")
    })
    const tools = Effect.map(registry.pool, (pool) => {
      const width = Math.max(...pool.tools.map((t) => t.name.length))
      return pool.tools.map((t) =>
        `  ${t.name.padEnd(width)}  ${t.mcp === undefined ? "built-in" : `mcp:${t.mcp.serverName}`}`
      ).join("\n")
    })
    return { clear: () => Effect.sync(clear), permissions, mcp: servers, tools } satisfies SlashHandlers
  })
