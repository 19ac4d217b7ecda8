/**
 * One server connection: the transport for its config, the MCP handshake under the startup
 * timeout, and the requests toolgate makes (paginated lists, calls, resource reads), each turned
 * into an Effect that is interruptible (interruption aborts the request, and the SDK tells the
 * server with `notifications/cancelled`).
 *
 * Failures are told apart by toolgate's own state, never by the JSON-RPC code alone: the SDK
 * reports an abort and a timeout both as -32001, so an abort is recognised by
 * our own AbortController having fired.
 */
import { Effect, type Scope } from "effect"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { McpServerConfig } from "./config.js"
import { McpRequestError, type McpRequestFailure } from "./errors.js"
import type { McpSdk } from "./sdk.js"
import { ProcessGroupStdioTransport } from "./stdioTransport.js"
import type { ProcessWrapper, ShellInvocation } from "../Sandbox.js"

export const CLIENT_INFO = { name: "toolgate", version: "0.1.0" }

/** Most pages read from one paginated list before giving up (a server could hand out new cursors forever). */
export const MAX_LIST_PAGES = 500

/** The longest timeout `setTimeout` takes. */
const MAX_TIMER_MS = 2_147_483_647

let progressTokens = 0

const REQUEST_TIMEOUT = -32001
const CONNECTION_CLOSED = -32000

export interface ServerConnection {
  readonly name: string
  readonly client: Client
  readonly transport: Transport
  /** The stdio server's pid (= its process group id). */
  readonly pid: number | undefined
  /** How the connection ended, with the server's last stderr lines, for messages. */
  readonly describeClose: () => string
  /** Routes `notifications/progress` with this token to `onProgress` until the returned function is called. */
  readonly watchProgress: (token: string, onProgress: (progress: McpProgress) => void) => () => void
}

export interface ConnectFailure {
  readonly state: "failed" | "needs-auth"
  readonly reason: string
}

export interface ConnectContext {
  readonly cwd: string
  /** The environment stdio servers inherit (before the entry's own `env`). */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly startupTimeoutMs: number
  /** For a remote server with a sign-in: the SDK's OAuth provider (adds the token, refreshes it). */
  readonly authProvider?: OAuthClientProvider
  /** Puts a stdio server into a sandbox (a served session's); a server that cannot be put there does not start. */
  readonly wrapProcess?: ProcessWrapper
}

const clampTimer = (ms: number) => Math.max(1, Math.min(Math.floor(ms), MAX_TIMER_MS))

/** The error's message, with its cause's code or message (fetch says only "fetch failed"). */
const messageOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as { cause?: unknown }).cause
  if (!(cause instanceof Error)) return error.message
  const detail = (cause as NodeJS.ErrnoException).code ?? cause.message
  return error.message.includes(detail) ? error.message : `${error.message} (${detail})`
}

const codeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "number" ? code : undefined
}

/** What the server wrote on stdout instead of JSON-RPC, when it did. */
const strayOf = (transport: Transport): string => {
  const stray = transport instanceof ProcessGroupStdioTransport ? transport.stray : undefined
  return stray === undefined ? "" : `; on stdout it wrote a line that is not JSON-RPC: ${stray}`
}

const withStderr = (text: string, stderr: string | undefined): string =>
  stderr === undefined || stderr === ""
    ? text
    : `${text}\nserver stderr (last lines):\n${stderr.split("\n").slice(-10).join("\n")}`

const stdioEnv = (
  config: Extract<McpServerConfig, { readonly type: "stdio" }>,
  context: ConnectContext
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(context.env)) if (v !== undefined) env[k] = v
  // Claude Code sets CLAUDE_PROJECT_DIR for the server (not for `${...}` expansion).
  env.CLAUDE_PROJECT_DIR = context.cwd
  Object.assign(env, config.env)
  return env
}

const makeTransport = (
  sdk: McpSdk,
  config: McpServerConfig,
  context: ConnectContext,
  invocation: ShellInvocation | undefined
): Transport => {
  if (config.type === "stdio") {
    const env = stdioEnv(config, context)
    return invocation === undefined
      ? new ProcessGroupStdioTransport(sdk, { command: config.command, args: config.args, env, cwd: context.cwd })
      : new ProcessGroupStdioTransport(sdk, {
        command: invocation.file,
        args: invocation.args,
        env: invocation.env,
        cwd: context.cwd
      })
  }
  const requestInit = { headers: { ...config.headers } }
  const auth = context.authProvider === undefined ? {} : { authProvider: context.authProvider }
  return config.type === "http"
    ? new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit, ...auth })
    : new sdk.SSEClientTransport(new URL(config.url), { requestInit, ...auth })
}

/** Why a connection attempt failed, as a state and a reason saying what to do. */
const classifyConnectError = (
  sdk: McpSdk,
  error: unknown,
  config: McpServerConfig,
  transport: Transport,
  startupTimeoutMs: number
): ConnectFailure => {
  const stderr = transport instanceof ProcessGroupStdioTransport ? transport.stderr : undefined
  const status = error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError
    ? codeOf(error)
    : error instanceof sdk.UnauthorizedError
    ? 401
    : undefined
  if (config.type !== "stdio" && (status === 401 || status === 403)) {
    return {
      state: "needs-auth",
      reason:
        `${config.url} answered ${
          status === 401 ? "401 Unauthorized" : "403 Forbidden"
        }: the server needs authentication. ` +
        `In an interactive toolgate run the model can sign in to it (mcp__<server>__authenticate); or give it a token in the server's "headers" ` +
        `(e.g. "Authorization": "Bearer \${YOUR_TOKEN}"), or check that the token there is valid and has access`
    }
  }
  if (error instanceof sdk.McpError && error.code === REQUEST_TIMEOUT) {
    return {
      state: "failed",
      reason: withStderr(
        `did not answer initialize within ${startupTimeoutMs} ms (MCP_TIMEOUT)${strayOf(transport)}`,
        stderr
      )
    }
  }
  if (
    error instanceof sdk.McpError && error.code === CONNECTION_CLOSED && transport instanceof ProcessGroupStdioTransport
  ) {
    return {
      state: "failed",
      reason: withStderr(
        `the server ${transport.exitDescription ?? "closed its output"} before it finished starting`,
        stderr
      )
    }
  }
  if (config.type !== "stdio" && status !== undefined) {
    return { state: "failed", reason: `${config.url} answered HTTP ${status}: ${messageOf(error)}` }
  }
  return { state: "failed", reason: withStderr(messageOf(error), stderr) }
}

const closeQuietly = (client: Client, transport: Transport) =>
  Effect.promise(async () => {
    const remote = transport as { sessionId?: string; terminateSession?: () => Promise<void> }
    if (remote.sessionId !== undefined && typeof remote.terminateSession === "function") {
      await Promise.race([
        remote.terminateSession().catch(() => undefined),
        new Promise((r) => setTimeout(r, 1000).unref())
      ])
    }
    await client.close().catch(() => undefined)
    // The SDK may already have started closing (a failed initialize); wait for the transport itself.
    await transport.close().catch(() => undefined)
  })

/**
 * Starts and initializes one server. The connection lives in the surrounding Scope: closing it
 * closes the client and, for stdio, ends the server's whole process group.
 */
export const connectServer = (
  sdk: McpSdk,
  name: string,
  config: McpServerConfig,
  context: ConnectContext
): Effect.Effect<ServerConnection, ConnectFailure, Scope.Scope> =>
  Effect.gen(function*() {
    const invocation = config.type !== "stdio" || context.wrapProcess === undefined
      ? undefined
      : yield* context.wrapProcess({
        argv: [config.command, ...config.args],
        cwd: context.cwd,
        env: stdioEnv(config, context)
      }).pipe(
        Effect.mapError((error): ConnectFailure => ({ state: "failed", reason: error.message }))
      )
    const transport = makeTransport(sdk, config, context, invocation)
    // The SDK hands notifications to their handlers a microtask later but settles a response at
    // once, so the progress sent just before a result would reach a handler already removed.
    // Progress is therefore taken off the transport here, synchronously and in order (the
    // Client chains its own handler after this one).
    const watchers = new Map<string, (progress: McpProgress) => void>()
    transport.onmessage = (message) => {
      const m = message as { method?: unknown; params?: { progressToken?: unknown } & McpProgress }
      if (m.method !== "notifications/progress" || typeof m.params?.progressToken !== "string") return
      const { progressToken, ...progress } = m.params
      watchers.get(progressToken)?.(progress)
    }
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} })
    yield* Effect.addFinalizer(() => closeQuietly(client, transport))
    const timeoutMs = clampTimer(context.startupTimeoutMs)
    yield* Effect.tryPromise({
      try: (signal) => client.connect(transport, { timeout: timeoutMs, signal }),
      catch: (error) => classifyConnectError(sdk, error, config, transport, context.startupTimeoutMs)
    }).pipe(
      Effect.timeoutFail({
        duration: timeoutMs,
        onTimeout: (): ConnectFailure => ({
          state: "failed",
          reason: withStderr(
            `did not finish starting within ${context.startupTimeoutMs} ms (MCP_TIMEOUT)${strayOf(transport)}`,
            transport instanceof ProcessGroupStdioTransport ? transport.stderr : undefined
          )
        })
      })
    )
    const describeClose = () =>
      transport instanceof ProcessGroupStdioTransport
        ? withStderr(`the server process ${transport.exitDescription ?? "closed the connection"}`, transport.stderr)
        : "the connection was closed"
    return {
      name,
      client,
      transport,
      pid: transport instanceof ProcessGroupStdioTransport ? transport.pid : undefined,
      describeClose,
      watchProgress: (token, onProgress) => {
        watchers.set(token, onProgress)
        return () => void watchers.delete(token)
      }
    } satisfies ServerConnection
  })

export interface RequestOptions {
  readonly timeoutMs: number
  /** What the request is, for messages: `tools/call echo`. */
  readonly label: string
  readonly onProgress?: (progress: McpProgress) => void
}

export interface McpProgress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * One request as an interruptible Effect. The result is checked against `schema` (a zod schema
 * of the SDK's). Interruption aborts the request through our own controller.
 */
export const request = <A>(
  sdk: McpSdk,
  connection: ServerConnection,
  method: string,
  params: Record<string, unknown>,
  schema: unknown,
  options: RequestOptions
): Effect.Effect<A, McpRequestError> =>
  Effect.async<A, McpRequestError>((resume) => {
    const controller = new AbortController()
    const timeoutMs = clampTimer(options.timeoutMs)
    let unwatch = () => {}
    if (options.onProgress !== undefined) {
      const token = `toolgate-${++progressTokens}`
      const meta = typeof params._meta === "object" && params._meta !== null ? params._meta : {}
      params = { ...params, _meta: { ...meta, progressToken: token } }
      unwatch = connection.watchProgress(token, options.onProgress)
    }
    connection.client
      .request({ method, params } as never, schema as never, { signal: controller.signal, timeout: timeoutMs })
      .finally(() => unwatch())
      .then(
        (result) => resume(Effect.succeed(result as A)),
        (error: unknown) => {
          const kind: McpRequestFailure = controller.signal.aborted
            ? "interrupted"
            : error instanceof sdk.McpError && error.code === REQUEST_TIMEOUT
            ? "timeout"
            : error instanceof sdk.McpError && error.code === CONNECTION_CLOSED
            ? "disconnected"
            : error instanceof Error && error.message === "Not connected"
            ? "not-connected"
            : "protocol"
          const reason = kind === "timeout"
            ? `MCP server "${connection.name}": ${options.label} timed out after ${options.timeoutMs} ms`
            : kind === "disconnected"
            ? `MCP server "${connection.name}" disconnected during ${options.label}: ${connection.describeClose()}`
            : kind === "interrupted"
            ? `MCP server "${connection.name}": ${options.label} was interrupted`
            : `MCP server "${connection.name}": ${options.label} failed: ${messageOf(error)}`
          resume(Effect.fail(new McpRequestError({ server: connection.name, request: options.label, kind, reason })))
        }
      )
    return Effect.sync(() => controller.abort(new Error("interrupted")))
  })

export interface PagedList {
  readonly items: ReadonlyArray<unknown>
  readonly warnings: ReadonlyArray<string>
}

/**
 * Reads every page of a paginated list (`tools/list`, `resources/list`): the SDK v1 returns one
 * page per call. Stops at a cursor seen before (some servers loop) and after MAX_LIST_PAGES.
 * Results are read with the SDK's loose `ResultSchema` so that one malformed item does not
 * throw away the whole page; items are checked one by one by the caller.
 */
export const listAllPages = (
  sdk: McpSdk,
  connection: ServerConnection,
  method: "tools/list" | "resources/list",
  field: "tools" | "resources",
  timeoutMs: number
): Effect.Effect<PagedList, McpRequestError> =>
  Effect.gen(function*() {
    const items: Array<unknown> = []
    const warnings: Array<string> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 1;; page++) {
      const result = yield* request<Record<string, unknown>>(
        sdk,
        connection,
        method,
        cursor === undefined ? {} : { cursor },
        sdk.ResultSchema,
        {
          timeoutMs,
          label: method
        }
      )
      const pageItems = result[field]
      if (Array.isArray(pageItems)) items.push(...pageItems)
      else warnings.push(`${method} page ${page} has no "${field}" array`)
      const next = result.nextCursor
      if (typeof next !== "string" || next === "") break
      if (seen.has(next)) {
        warnings.push(
          `${method}: the server repeated the cursor ${JSON.stringify(next)} on page ${page}; stopped listing there`
        )
        break
      }
      if (page >= MAX_LIST_PAGES) {
        warnings.push(`${method}: stopped after ${MAX_LIST_PAGES} pages`)
        break
      }
      seen.add(next)
      cursor = next
    }
    return { items, warnings }
  })
