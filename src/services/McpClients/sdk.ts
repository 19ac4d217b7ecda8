/**
 * The MCP SDK and ajv, loaded on first use: a run without MCP servers never pays for them
 * (both stay external in the CLI bundle, so a static import would load them at start-up).
 */
import { Effect } from "effect"

type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index.js")
type StreamableModule = typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")
type SseModule = typeof import("@modelcontextprotocol/sdk/client/sse.js")
type AuthModule = typeof import("@modelcontextprotocol/sdk/client/auth.js")
type TypesModule = typeof import("@modelcontextprotocol/sdk/types.js")
type StdioModule = typeof import("@modelcontextprotocol/sdk/shared/stdio.js")

/**
 * Written out (not inferred) so the published declarations name the SDK's own modules and never
 * the packages behind them (its zod).
 */
export interface McpSdk {
  readonly Client: ClientModule["Client"]
  readonly StreamableHTTPClientTransport: StreamableModule["StreamableHTTPClientTransport"]
  readonly StreamableHTTPError: StreamableModule["StreamableHTTPError"]
  readonly SSEClientTransport: SseModule["SSEClientTransport"]
  readonly SseError: SseModule["SseError"]
  readonly UnauthorizedError: AuthModule["UnauthorizedError"]
  readonly auth: AuthModule["auth"]
  readonly McpError: TypesModule["McpError"]
  readonly ResultSchema: TypesModule["ResultSchema"]
  readonly CallToolResultSchema: TypesModule["CallToolResultSchema"]
  readonly ReadResourceResultSchema: TypesModule["ReadResourceResultSchema"]
  readonly ToolListChangedNotificationSchema: TypesModule["ToolListChangedNotificationSchema"]
  readonly deserializeMessage: StdioModule["deserializeMessage"]
  readonly serializeMessage: StdioModule["serializeMessage"]
  /**
   * The ajv for a JSON Schema dialect, made on first use and kept with this loaded SDK (one per
   * McpClients layer), so compiled schemas never leak from one runtime into another.
   */
  readonly ajvFor: (dialect: SchemaDialect) => AjvLike
}

export type SchemaDialect = "draft-07" | "2019-09" | "2020-12"

export type AjvLike = { compile: (schema: Record<string, unknown>) => import("ajv").ValidateFunction }

const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  verbose: true,
  validateFormats: false,
  // schemas of different tools may share an `$id`; never register them globally
  addUsedSchema: false,
  logger: false
} as const

const load = async (): Promise<McpSdk> => {
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
  const instances = new Map<SchemaDialect, AjvLike>()
  const ajvFor = (dialect: SchemaDialect): AjvLike => {
    let instance = instances.get(dialect)
    if (instance === undefined) {
      instance = dialect === "2020-12"
        ? new ajv2020.Ajv2020(AJV_OPTIONS)
        : dialect === "2019-09"
        ? new ajv2019.Ajv2019(AJV_OPTIONS)
        : new ajv.Ajv(AJV_OPTIONS)
      instances.set(dialect, instance)
    }
    return instance
  }
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
    ajvFor
  }
}

/** Node caches the modules, so a second layer that loads them pays only for its own ajv instances. */
export const loadSdk: Effect.Effect<McpSdk> = Effect.promise(load)
