/**
 * toolgate without Effect: a runtime made from plain options, a message's tool calls or one call
 * run to their results, and an agent run read with `for await` as the messages of
 * `claude -p --output-format stream-json`. Option names follow the Claude Agent SDK where they
 * mean the same; callbacks may be async; failures are thrown as error classes with a `_tag`.
 *
 *   import { query } from "toolgate/promise"
 *   for await (const message of query({ prompt: "Fix the test", options: { canUseTool, permissionMode: "acceptEdits" } })) …
 *
 * @since 0.1.0
 */
import type { Layer } from "effect"
import { Cause, Effect, Exit, ManagedRuntime, Option } from "effect"
import * as path from "node:path"
import type { ToolResultBlock, ToolResultsMessage, ToolUseBlock } from "../Messages.js"
import { toolResults } from "../Messages.js"
import { newSession, type SessionContext } from "../Session.js"
import { Agent, newConversation, type AgentEvent, type Conversation } from "../services/Agent.js"
import * as Hooks from "../services/Hooks.js"
import { McpClients } from "../services/McpClients.js"
import * as ModelClient from "../services/ModelClient.js"
import { interruptsFromAbortSignal, Scheduler } from "../services/Scheduler.js"
import { Settings } from "../services/Settings.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import * as Runtime from "../layers/Runtime.js"
import * as Testing from "../layers/Testing.js"
import { builtinTools } from "../tools/index.js"
import type { AnyTool } from "../Tool.js"
import { VERSION } from "../version.js"
import {
  ClaudeJsonTracker,
  initMessage,
  newStats,
  resultMessage,
  servedByAnthropicOf,
  type InitInfo
} from "../cli/present/claudeJson.js"
import { Sandbox } from "../services/Sandbox.js"
import { approverOf, inProcessHooksOf } from "./callbacks.js"
import type { Options } from "./options.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  CanUseTool,
  /**
   * @since 0.1.0
   * @category models
   */
  CanUseToolContext,
  /**
   * @since 0.1.0
   * @category models
   */
  HookCallback,
  /**
   * @since 0.1.0
   * @category models
   */
  HookCallbackMatcher,
  /**
   * @since 0.1.0
   * @category models
   */
  McpServerConfig,
  /**
   * @since 0.1.0
   * @category models
   */
  Options,
  /**
   * @since 0.1.0
   * @category models
   */
  PermissionResult
} from "./options.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  HookEvent,
  /**
   * @since 0.1.0
   * @category models
   */
  HookInput,
  /**
   * @since 0.1.0
   * @category models
   */
  HookJsonOutput
} from "../services/Hooks.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ToolResultBlock,
  /**
   * @since 0.1.0
   * @category models
   */
  ToolResultsMessage,
  /**
   * @since 0.1.0
   * @category models
   */
  ToolUseBlock
} from "../Messages.js"
/** The errors a call may be rejected with: each a class with a `_tag` (e.g. `BrokenSettings`, `ModelNotConfigured`). */
export {
  /**
   * @since 0.1.0
   * @category models
   */
  BadRequest,
  /**
   * @since 0.1.0
   * @category models
   */
  BrokenSettings
} from "../Errors.js"
export {
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelApiError,
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelConnectionError,
  /**
   * @since 0.1.0
   * @category models
   */
  ModelNotConfigured,
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelStreamError,
  /**
   * @since 0.1.0
   * @category errors
   */
  ScriptError
} from "../services/ModelClient.js"

/**
 * One message of an agent run, shaped as `claude -p --output-format stream-json` prints it.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Readonly<Record<string, unknown>> & { readonly type: string }

/**
 * The run was stopped by its AbortSignal before it could give a result.
 *
 * @since 0.1.0
 * @category errors
 */
export class AbortError extends Error {
  /**
   * @since 0.1.0
   */
  readonly _tag = "AbortError"
  constructor(message = "the run was aborted") {
    super(message)
    this.name = "AbortError"
  }
}

/**
 * The runtime was used after `dispose()`.
 *
 * @since 0.1.0
 * @category errors
 */
export class RuntimeDisposed extends Error {
  /**
   * @since 0.1.0
   */
  readonly _tag = "RuntimeDisposed"
  constructor() {
    super("the toolgate runtime was disposed")
    this.name = "RuntimeDisposed"
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** Aborting it interrupts the calls: those that can be cancelled stop, every call gets a result. */
  readonly signal?: AbortSignal
}

/**
 * @since 0.1.0
 * @category models
 */
export interface QueryOptions extends RunOptions {
  readonly maxTurns?: number
}

/**
 * An agent run: its messages in order (`for await`), and a way to interrupt it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Query extends AsyncGenerator<Message, void> {
  /** Interrupts the run as Ctrl-C would: it ends with every call answered and a `result` message. */
  readonly interrupt: () => Promise<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolgateRuntime {
  /** Runs one assistant message's tool_use blocks; the user message of their results. */
  readonly runMessage: (blocks: ReadonlyArray<ToolUseBlock>, options?: RunOptions) => Promise<ToolResultsMessage>
  /** Runs one call through every stage; its tool_result. */
  readonly call: (
    toolName: string,
    input: Record<string, unknown>,
    options?: RunOptions & { readonly id?: string }
  ) => Promise<ToolResultBlock>
  /** Sends a prompt to the agent; the conversation goes on from one prompt to the next. Needs a model (`model`, `script` or `ANTHROPIC_API_KEY`). */
  readonly query: (prompt: string, options?: QueryOptions) => Query
  /** Stops background shells and MCP servers and releases everything the runtime holds. */
  readonly dispose: () => Promise<void>
  readonly [Symbol.asyncDispose]: () => Promise<void>
}

/** The model of the options: inline turns, a scripted file, Claude; none when nothing says which. */
const modelOf = (options: Options, cwd: string): Layer.Layer<ModelClient.ModelClient, unknown> | undefined => {
  if (options.script !== undefined) return Testing.scriptedModel(cwd, options.script)
  const model = options.model
  if (model?.startsWith("scripted:") === true) {
    return ModelClient.layerScripted({ script: path.resolve(cwd, model.slice("scripted:".length)), cwd, timeScale: 0 })
  }
  if (model !== undefined || (process.env.ANTHROPIC_API_KEY ?? "") !== "") {
    return ModelClient.layerAnthropicConfig(model)
  }
  return undefined
}

const runtimeOptionsOf = (options: Options, cwd: string): Runtime.RuntimeOptions => ({
  cwd,
  // a tool may require the runtime's own services (given to each call); nothing else can be provided here
  tools: [...builtinTools, ...((options.tools ?? []) as ReadonlyArray<AnyTool>)],
  ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
  ...(options.disallowedTools === undefined ? {} : { disallowedTools: options.disallowedTools }),
  ...(options.permissionMode === undefined ? {} : { permissionMode: options.permissionMode }),
  ...(options.additionalDirectories === undefined ? {} : { addDirs: options.additionalDirectories }),
  ...(options.settings === undefined ? {} : { settings: options.settings }),
  ...(options.trustProject === undefined ? {} : { trustProject: options.trustProject }),
  ...(options.canUseTool === undefined ? {} : { approver: approverOf(options.canUseTool) }),
  ...(options.hooks === undefined ? {} : { hooks: Hooks.layerWithInProcess(inProcessHooksOf(options.hooks)) }),
  ...(options.mcpServers === undefined
    ? {}
    : { mcp: { mcpConfig: [JSON.stringify({ mcpServers: options.mcpServers })] } }),
  ...(options.env === undefined ? {} : { processEnv: options.env })
})

/** The first failure of an exit, as the error it is (a class with `_tag`), or an AbortError for an interruption. */
const rethrow = (cause: Cause.Cause<unknown>): never => {
  if (Cause.isInterruptedOnly(cause)) throw new AbortError()
  throw Cause.squash(cause)
}

const run = async <A>(
  managed: ManagedRuntime.ManagedRuntime<any, any>,
  effect: Effect.Effect<A, unknown, any>,
  signal?: AbortSignal
): Promise<A> => {
  const exit = await managed.runPromiseExit(effect, signal === undefined ? undefined : { signal })
  return Exit.isSuccess(exit) ? exit.value : rethrow(exit.cause)
}

/**
 * Creates a runtime from options; rejects with the typed error when settings or options cannot be used.
 *
 * @since 0.1.0
 * @category api
 */
export const createRuntime = async (options: Options = {}): Promise<ToolgateRuntime> => {
  const cwd = path.resolve(options.cwd ?? process.cwd())
  const runtimeOptions = runtimeOptionsOf(options, cwd)
  const model = modelOf(options, cwd)
  const layer: Layer.Layer<any, unknown> = model === undefined
    ? Runtime.layer(runtimeOptions)
    : Runtime.layerWithAgent({ ...runtimeOptions, model })
  const managed = ManagedRuntime.make(layer)
  let disposed = false
  const alive = () => {
    if (disposed) throw new RuntimeDisposed()
  }
  // One session per runtime: its working directory follows `cd`s, its conversation goes on.
  let session: SessionContext = await run(
    managed,
    Effect.map(
      Effect.flatMap(Settings, (s) => s.current),
      (loaded) => newSession({ cwd, permissionMode: loaded.mode, additionalDirectories: loaded.additionalDirectories })
    )
  ).catch(async (error: unknown) => {
    await managed.dispose()
    throw error
  })
  let conversation: Conversation | undefined

  const runMessage = async (
    blocks: ReadonlyArray<ToolUseBlock>,
    runOptions: RunOptions = {}
  ): Promise<ToolResultsMessage> => {
    alive()
    const signal = runOptions.signal
    const result = await run(
      managed,
      Effect.flatMap(
        Scheduler,
        (scheduler) =>
          scheduler.runMessage(blocks, {
            session,
            ...(signal === undefined ? {} : { interrupts: interruptsFromAbortSignal(signal) })
          })
      )
    )
    session = result.session
    return result.message
  }

  const call = async (
    toolName: string,
    input: Record<string, unknown>,
    runOptions: RunOptions & { readonly id?: string } = {}
  ): Promise<ToolResultBlock> => {
    const id = runOptions.id ?? `toolu_${Math.random().toString(36).slice(2, 12)}`
    const [result] = toolResults(await runMessage([{ type: "tool_use", id, name: toolName, input }], runOptions))
    return result!
  }

  const query = (prompt: string, queryOptions: QueryOptions = {}): Query => {
    alive()
    const abort = new AbortController()
    const forward = () => abort.abort()
    queryOptions.signal?.addEventListener("abort", forward, { once: true })
    if (queryOptions.signal?.aborted === true) abort.abort()
    const lines = new Lines()
    const program = Effect.gen(function*() {
      const agent = yield* Effect.serviceOption(Agent)
      if (Option.isNone(agent)) {
        return yield* new ModelClient.ModelNotConfigured({ reason: ModelClient.NO_MODEL_MESSAGE })
      }
      const client = yield* ModelClient.ModelClient
      const pool = yield* (yield* ToolRegistry).pool
      const servers = yield* (yield* McpClients).servers
      const sandbox = yield* Effect.serviceOption(Sandbox)
      const info: InitInfo = {
        sessionId: session.sessionId,
        model: client.model,
        cwd: session.cwd,
        permissionMode: session.permissionMode,
        tools: pool.tools.map((t) => t.name),
        mcpServers: servers.map((s) => ({ name: s.name, status: s.state })),
        slashCommands: [],
        apiKeySource: client.model.startsWith("scripted:") ? "none" : "ANTHROPIC_API_KEY",
        agents: [],
        skills: [],
        additionalDirectories: session.additionalDirectories,
        version: VERSION,
        transcript: "",
        terminalSlashCommands: [],
        sandboxEnabled: Option.isSome(sandbox) ? yield* sandbox.value.settingsProfileActive : false,
        servedByAnthropic: servedByAnthropicOf(client.model, process.env.ANTHROPIC_BASE_URL)
      }
      const started = Date.now()
      const tracker = new ClaudeJsonTracker(session.sessionId, newStats(started), false, Date.now)
      lines.push(initMessage(info) as Message)
      const system = options.systemPrompt
      const systemPrompt = system === undefined
        ? undefined
        : typeof system === "string"
        ? { replace: system }
        : system.append === undefined
        ? {}
        : { append: system.append }
      const maxTurns = queryOptions.maxTurns ?? options.maxTurns
      const outcome = yield* agent.value.prompt(conversation ?? newConversation(session), prompt, {
        interrupts: interruptsFromAbortSignal(abort.signal),
        onEvent: (event: AgentEvent) =>
          Effect.sync(() => tracker.onEvent(event).forEach((line) => lines.push(line as Message))),
        ...(systemPrompt === undefined ? {} : { systemPrompt }),
        ...(maxTurns === undefined ? {} : { maxTurns })
      })
      conversation = outcome.conversation
      session = outcome.conversation.session
      lines.push(resultMessage(outcome, info, tracker.stats, Date.now(), maxTurns) as Message)
    })
    const running = run(managed, program).then(
      () => lines.end(),
      (error: unknown) => lines.fail(error)
    )
    const messages = async function*(): AsyncGenerator<Message, void> {
      try {
        yield* lines.drain()
      } finally {
        // A consumer that stops reading interrupts the run and waits for its end.
        abort.abort()
        queryOptions.signal?.removeEventListener("abort", forward)
        await running
      }
    }
    return Object.assign(messages(), { interrupt: async () => abort.abort() })
  }

  const dispose = async () => {
    if (disposed) return
    disposed = true
    await managed.dispose()
  }
  return { runMessage, call, query, dispose, [Symbol.asyncDispose]: dispose }
}

/**
 * One prompt to an agent made from `options`, as the Agent SDK's `query`: its messages with
 * `for await`; the runtime is released when the run ends (or the loop stops reading).
 *
 * @example
 * ```ts
 * import { query } from "toolgate/promise"
 *
 * export const run = async (): Promise<void> => {
 *   for await (const message of query({
 *     prompt: "Fix the failing test",
 *     options: {
 *       permissionMode: "acceptEdits",
 *       canUseTool: async (toolName, input) =>
 *         toolName === "Bash" ? { behavior: "deny", message: "no shell here" } : { behavior: "allow", updatedInput: input }
 *     }
 *   })) {
 *     if (message.type === "result") console.log(message)
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category api
 */
export const query = ({ prompt, options = {} }: { readonly prompt: string; readonly options?: Options }): Query => {
  const signal = options.abortController?.signal
  const abort = new AbortController()
  let runtime: ToolgateRuntime | undefined
  const messages = async function*(): AsyncGenerator<Message, void> {
    runtime = await createRuntime(options)
    try {
      if (signal?.aborted === true) abort.abort()
      signal?.addEventListener("abort", () => abort.abort(), { once: true })
      yield* runtime.query(prompt, { signal: abort.signal })
    } finally {
      await runtime.dispose()
    }
  }
  return Object.assign(messages(), { interrupt: async () => abort.abort() })
}

/** Messages handed from the run to the reader, in order. */
class Lines {
  private readonly queue: Array<Message> = []
  private done = false
  private failure: { readonly error: unknown } | undefined
  private wake: (() => void) | undefined

  push(line: Message) {
    this.queue.push(line)
    this.notify()
  }
  end() {
    this.done = true
    this.notify()
  }
  fail(error: unknown) {
    this.failure = { error }
    this.end()
  }
  private notify() {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
  async *drain(): AsyncGenerator<Message, void> {
    for (;;) {
      const next = this.queue.shift()
      if (next !== undefined) {
        yield next
        continue
      }
      if (this.done) {
        if (this.failure !== undefined) throw this.failure.error
        return
      }
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }
}
