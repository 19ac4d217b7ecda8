/**
 * The MCP SDK and ajv, loaded on first use: a run without MCP servers never pays for them
 * (both stay external in the CLI bundle, so a static import would load them at start-up).
 */
import { Effect } from "effect"

const load = async () => {
  const [client, streamable, sse, auth, types, stdio, ajv, ajv2019, ajv2020] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
    import("ajv"),
    import("ajv/dist/2019.js"),
    import("ajv/dist/2020.js")
  ])
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    StreamableHTTPError: streamable.StreamableHTTPError,
    SSEClientTransport: sse.SSEClientTransport,
    SseError: sse.SseError,
    UnauthorizedError: auth.UnauthorizedError,
    auth: auth.auth,
    McpError: types.McpError,
    ResultSchema: types.ResultSchema,
    CallToolResultSchema: types.CallToolResultSchema,
    ReadResourceResultSchema: types.ReadResourceResultSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    deserializeMessage: stdio.deserializeMessage,
    serializeMessage: stdio.serializeMessage,
    Ajv: ajv.Ajv,
    Ajv2019: ajv2019.Ajv2019,
    Ajv2020: ajv2020.Ajv2020
  }
}

export type McpSdk = Awaited<ReturnType<typeof load>>

let loading: Promise<McpSdk> | undefined

export const loadSdk: Effect.Effect<McpSdk> = Effect.promise(() => (loading ??= load()))
