/**
 * ListMcpResourcesTool and ReadMcpResourceTool: the built-in tools over the resources of the
 * connected MCP servers (as in Claude Code: read-only, concurrency-safe, deferred, no
 * permission needed). Binary contents are saved under `<sessionDir>/mcp-resources/` and the model
 * gets the path.
 */
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ToolError } from "../../Errors.js"
import { writeFileAtomic } from "../../internal/atomicWrite.js"
import { buildTool, type AnyTool } from "../../Tool.js"
import { allow } from "../../Permission.js"
import type { McpRequestError, McpResourceAccess, McpResourceEntry } from "../../services/McpClients.js"

export const LIST_MCP_RESOURCES = "ListMcpResourcesTool"
export const READ_MCP_RESOURCE = "ReadMcpResourceTool"

const unknownServer = (server: string, available: ReadonlyArray<string>) =>
  new ToolError({
    reason: `Server "${server}" not found or it offers no resources. Available servers: ${
      available.length === 0 ? "(none)" : available.join(", ")
    }`
  })

const toToolError = (e: McpRequestError) => new ToolError({ reason: e.reason })

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "application/pdf": "pdf",
  "application/json": "json",
  "application/gzip": "gz",
  "application/zip": "zip"
}

const saveBlob = (sessionDir: string, server: string, uri: string, mimeType: string | undefined, base64: string) =>
  Effect.tryPromise({
    try: async () => {
      const hash = createHash("sha256").update(`${server}\u0000${uri}`).digest("hex").slice(0, 16)
      const file = path.join(sessionDir, "mcp-resources", `${hash}.${(mimeType && EXTENSIONS[mimeType]) ?? "bin"}`)
      await fs.promises.mkdir(path.dirname(file), { recursive: true })
      await writeFileAtomic(file, Buffer.from(base64, "base64"))
      return file
    },
    catch: (e) => new ToolError({ reason: `could not save the binary content of ${uri}: ${(e as Error).message}` })
  })

export const makeListMcpResourcesTool = (access: McpResourceAccess): AnyTool =>
  buildTool({
    name: LIST_MCP_RESOURCES,
    inputSchema: Schema.Struct({
      server: Schema.optionalWith(
        Schema.String.annotations({ description: "Optional server name to filter resources by" }),
        { exact: true }
      )
    }),
    description:
      "Lists available resources from configured MCP servers. Each resource object includes a 'server' field indicating which server it's from.",
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    interruptBehavior: () => "cancel",
    checkPermissions: () => Effect.succeed(allow("listing MCP resources needs no permission")),
    shouldDefer: true,
    call: (input) =>
      Effect.gen(function*() {
        const available = yield* access.resourceServers
        if (input.server !== undefined && !available.includes(input.server)) {
          return yield* unknownServer(input.server, available)
        }
        const servers = input.server === undefined ? available : [input.server]
        const lists = yield* Effect.forEach(
          servers,
          (s) => access.listResources(s).pipe(Effect.mapError(toToolError)),
          { concurrency: 5 }
        )
        return { data: lists.flat() as ReadonlyArray<McpResourceEntry> }
      }),
    mapResult: (output) =>
      output.length === 0
        ? "No resources found. MCP servers may still provide tools even if they have no resources."
        : JSON.stringify(output, null, 2)
  })

export const makeReadMcpResourceTool = (access: McpResourceAccess): AnyTool =>
  buildTool({
    name: READ_MCP_RESOURCE,
    inputSchema: Schema.Struct({
      server: Schema.String.annotations({ description: "The MCP server name" }),
      uri: Schema.String.annotations({ description: "The resource URI to read" })
    }),
    description: "Reads a specific resource from an MCP server, identified by server name and resource URI.",
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    interruptBehavior: () => "cancel",
    checkPermissions: () => Effect.succeed(allow("reading MCP resources needs no permission")),
    shouldDefer: true,
    renderUse: (input) => `${input.server}: ${input.uri}`,
    call: (input, ctx) =>
      Effect.gen(function*() {
        const available = yield* access.resourceServers
        if (!available.includes(input.server)) return yield* unknownServer(input.server, available)
        const result = yield* access.readResource(input.server, input.uri).pipe(Effect.mapError(toToolError))
        const contents = yield* Effect.forEach(result.contents, (item) => {
          const uri = typeof item.uri === "string" ? item.uri : input.uri
          const mimeType = typeof item.mimeType === "string" ? item.mimeType : undefined
          const base = { uri, ...(mimeType === undefined ? {} : { mimeType }) }
          if (typeof item.text === "string") return Effect.succeed({ ...base, text: item.text })
          if (typeof item.blob === "string") {
            return saveBlob(ctx.session.sessionDir, input.server, uri, mimeType, item.blob).pipe(
              Effect.map((file) => ({
                ...base,
                blobSavedTo: file,
                text: `[Binary content (${mimeType ?? "unknown type"}) saved to ${file}]`
              }))
            )
          }
          return Effect.succeed(base)
        })
        return { data: { contents } }
      }),
    mapResult: (output) => JSON.stringify(output, null, 2)
  })

export const makeResourceTools = (
  access: McpResourceAccess
): ReadonlyArray<AnyTool> => [makeListMcpResourcesTool(access), makeReadMcpResourceTool(access)]
