/**
 * A server's `tools/list` entries → toolgate tools. Each entry is checked on its own, so one bad
 * tool (no name, an input schema that is not valid JSON Schema, task-only execution) is skipped
 * with a warning while the others load.
 */
import type { AnyTool } from "../../Tool.js"
import { makeMcpTool, type McpToolListing, type McpToolSpec } from "./McpTool.js"
import { compileInputSchema, type CompiledInputSchema } from "./jsonSchema.js"
import { assignToolNames } from "./naming.js"
import type { McpSdk } from "./sdk.js"
import { isRecord } from "../../internal/json.js"

export interface ServerToolsResult {
  readonly tools: ReadonlyArray<AnyTool>
  readonly warnings: ReadonlyArray<string>
}

export const buildServerTools = (
  sdk: McpSdk,
  items: ReadonlyArray<unknown>,
  common: Omit<McpToolSpec, "name" | "listing" | "schema" | "call"> & {
    readonly call: (toolName: string) => McpToolSpec["call"]
  }
): ServerToolsResult => {
  const warnings: Array<string> = []
  const accepted = new Map<string, { readonly listing: McpToolListing; readonly schema: CompiledInputSchema }>()
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || typeof item.name !== "string" || item.name === "") {
      warnings.push(`tool #${i + 1} has no name and was skipped`)
      continue
    }
    const name = item.name
    if (accepted.has(name)) {
      warnings.push(`tool "${name}" is listed more than once; the first entry is used`)
      continue
    }
    const execution = isRecord(item.execution) ? item.execution : {}
    if (execution.taskSupport === "required") {
      warnings.push(`tool "${name}" was skipped: it can only run as an MCP task, which toolgate does not support`)
      continue
    }
    const compiled = compileInputSchema(sdk, item.inputSchema)
    if (!compiled.ok) {
      warnings.push(`tool "${name}" was skipped: ${compiled.reason}`)
      continue
    }
    const listing: McpToolListing = {
      name,
      ...(typeof item.title === "string" ? { title: item.title } : {}),
      ...(typeof item.description === "string" ? { description: item.description } : {}),
      ...(isRecord(item.annotations) ? { annotations: item.annotations } : {}),
      ...(isRecord(item._meta) ? { _meta: item._meta } : {})
    }
    accepted.set(name, { listing, schema: compiled.compiled })
  }
  const names = assignToolNames(common.serverName, Array.from(accepted.keys()))
  const tools = Array.from(accepted.values()).map(({ listing, schema }) =>
    makeMcpTool({
      name: names.get(listing.name)!,
      serverName: common.serverName,
      scope: common.scope,
      listing,
      schema,
      alwaysLoad: common.alwaysLoad,
      maxOutputTokens: common.maxOutputTokens,
      call: common.call(listing.name)
    })
  )
  return { tools, warnings }
}
