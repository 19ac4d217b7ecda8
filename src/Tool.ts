/**
 * The tool contract: what a tool is, what it gets when it runs, and what it gives back.
 * `buildTool` fills in fail-closed defaults: not read-only, not concurrency-safe, destructive,
 * no footprint (touches everything), and permission checks that pass through to the rules and
 * the mode (so a tool nobody allowed asks).
 *
 * @since 0.1.0
 */
import type { Option } from "effect"
import { Context, Effect, JSONSchema, Schema, SchemaAST } from "effect"
import type { ToolError, InputRejected } from "./Errors.js"
import { InputRejected as InputRejectedError } from "./Errors.js"
import type { ToolResultContent } from "./Messages.js"
import {
  passthrough,
  type DecisionReason,
  type PathRules,
  type PermissionSubject,
  type ToolCheck,
  type PermissionMode
} from "./Permission.js"
import type { SessionContext } from "./Session.js"

/**
 * What a file looked like when a tool last read or wrote it (the FileState service keeps these).
 *
 * @since 0.1.0
 * @category models
 */
export interface FileSnapshot {
  /** Modification time seen at the read or write, in ms. */
  readonly mtimeMs: number
  /** sha256 of the content (LF-normalised) as read or written. */
  readonly contentHash: string
  /** True when only part of the file was read (offset/limit or a size cap). */
  readonly partial: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FileStateService {
  readonly record: (path: string, snapshot: FileSnapshot) => Effect.Effect<void>
  readonly get: (path: string) => Effect.Effect<Option.Option<FileSnapshot>>
  readonly forget: (path: string) => Effect.Effect<void>
}

/**
 * A tool's input schema: an effect Schema whose encoded side is plain JSON, or raw JSON Schema (MCP).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolInputSchema<I> =
  | { readonly _tag: "Schema"; readonly schema: Schema.Schema<I, any, never> }
  | {
    readonly _tag: "JsonSchema"
    readonly jsonSchema: Record<string, unknown>
    /** Validates untrusted input; returns the issues in the built-in style, or the input. */
    readonly validate: (
      input: unknown
    ) => { readonly ok: true; readonly value: I } | { readonly ok: false; readonly issues: ReadonlyArray<string> }
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolProgress {
  /** One line for people, e.g. "12 lines of output" or "step 3/5". */
  readonly message: string
  readonly data?: unknown
}

/**
 * What a running call gets: where it runs, the file-read state, and a way to report progress.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  readonly toolUseId: string
  readonly session: SessionContext
  readonly fileState: FileStateService
  readonly reportProgress: (progress: ToolProgress) => Effect.Effect<void>
  /** The session's path deny rules (searches leave out denied files); absent outside the pipeline. */
  readonly pathRules?: PathRules
  /** Whether this call could read `file` without asking (the permission rules and mode); absent: no. */
  readonly readsWithoutAsking?: (file: string) => Effect.Effect<boolean>
  /**
   * Why this call was allowed to run: a rule, the mode, a hook, the user's answer, or only the
   * checks' own judgement (e.g. `readOnly`: nothing but the shell analyzer approved it). Absent
   * outside the pipeline.
   */
  readonly approvedBecause?: DecisionReason
}

/**
 * What a tool's `checkPermissions` and `validateInput` see.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCheckContext {
  readonly session: SessionContext
  readonly fileState: FileStateService
  readonly mode: PermissionMode
  /** The session's path deny rules (file tools refuse denied paths before hooks run); absent outside the pipeline. */
  readonly pathRules?: PathRules
  /** Whether this call could read `file` without asking (the permission rules and mode); absent: no. */
  readonly readsWithoutAsking?: (file: string) => Effect.Effect<boolean>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolResult<O> {
  readonly data: O
  /** Messages to append to the conversation after the tool results (e.g. a loaded skill). */
  readonly newMessages?: ReadonlyArray<unknown>
  /** Changes the shared context for later calls (only for tools that are not concurrency-safe). */
  readonly contextModifier?: (session: SessionContext) => SessionContext
  readonly mcpMeta?: { readonly _meta?: Record<string, unknown>; readonly structuredContent?: unknown }
}

/**
 * Paths a call reads and writes, for footprint scheduling; real paths with symlinks resolved.
 *
 * @since 0.1.0
 * @category models
 */
export interface Footprint {
  readonly reads: ReadonlyArray<string>
  readonly writes: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export type InterruptBehavior = "cancel" | "block"

/**
 * @since 0.1.0
 * @category models
 */
export interface McpToolInfo {
  readonly serverName: string
  readonly toolName: string
  readonly source?: string
}

/**
 * A tool. `R` is what its `call` requires: services of the runtime (Settings, FileState, …) or
 * of your own, provided to the runtime layer; the runtime gives them to every call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<I = any, O = any, R = never> {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly inputSchema: ToolInputSchema<I>
  /** Short description sent with the tool definition. */
  readonly description: string
  /** Longer usage text for the system prompt. */
  readonly prompt: string
  readonly isEnabled: Effect.Effect<boolean>
  readonly isReadOnly: (input: I) => boolean
  readonly isConcurrencySafe: (input: I) => boolean
  readonly isDestructive: (input: I) => boolean
  readonly interruptBehavior: () => InterruptBehavior
  /** Results longer than min(this, 50000) characters are spilled to a file. */
  readonly maxResultSizeChars: number
  /** Input as hooks and permission checks see it: paths made absolute. */
  readonly expandInput: (input: I, session: SessionContext) => I
  readonly validateInput: (input: I, ctx: ToolCheckContext) => Effect.Effect<void, InputRejected>
  /** What content rules apply to (a path, a command, a URL). */
  readonly permissionSubject: (input: I, session: SessionContext) => PermissionSubject
  /** The tool's own decision (`Permission.allow`, `ask`, `deny`), or `Permission.passthrough` to leave it to the rules and the mode. */
  readonly checkPermissions: (input: I, ctx: ToolCheckContext) => Effect.Effect<ToolCheck>
  readonly call: (input: I, ctx: ToolContext) => Effect.Effect<ToolResult<O>, ToolError, R>
  readonly mapResult: (output: O, toolUseId: string) => ToolResultContent
  /** The structured response PostToolUse hooks receive as `tool_response`. */
  readonly hookResponse: (output: O) => unknown
  /**
   * Reads an output a PostToolUse hook gives in place of the tool's own (`updatedToolOutput`, in
   * the shape of `hookResponse`); undefined when it does not fit, and the tool's own output stands.
   * A tool without it never takes a replacement.
   */
  readonly hookOutput: ((replacement: unknown) => O | undefined) | undefined
  readonly footprint: ((input: I, session: SessionContext) => Effect.Effect<Footprint>) | undefined
  readonly userFacingName: (input: I | undefined) => string
  readonly renderUse: (input: I) => string
  readonly renderResult: (output: O) => string
  readonly renderProgress: (progress: ToolProgress) => string
  readonly mcp: McpToolInfo | undefined
  /** Listed by name only until ToolSearch loads its schema. */
  readonly shouldDefer: boolean
  /** Extra words ToolSearch matches on (MCP `_meta["anthropic/searchHint"]`). */
  readonly searchHint: string | undefined
  readonly requiresUserInteraction: boolean
  /** Loads what the synchronous flags need (e.g. the shell parser), once, before calls are planned. */
  readonly warmup: Effect.Effect<void>
  /**
   * When a call of this tool fails for real (`ToolFailed`), the calls running beside it in its
   * concurrent batch are cancelled, and this names the failed call in their results (Bash: its
   * command). Undefined: a failure cancels nothing.
   */
  readonly siblingCancellationLabel: ((input: I) => string) | undefined
  /**
   * Fixes the shapes models commonly get wrong, before the input is checked (Claude Code does the
   * same per tool, e.g. Read drops a negative offset): the repaired input, or undefined when
   * nothing needed fixing. Hooks, permissions and the call see the repaired input.
   */
  readonly repairInput: ((input: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined) | undefined
  /** Names other agent runtimes give this tool (e.g. `view` for Read): a call by one is not run, its error names this tool. */
  readonly knownAs: ReadonlyArray<string>
}

/**
 * A tool in the pool. Its requirements are gone: the runtime provides what a tool given to it
 * requires (see `CallServices`).
 *
 * @since 0.1.0
 * @category models
 */
export type AnyTool = Tool<any, any>

/**
 * The services every tool call gets: the runtime's, and what was provided to the runtime layer.
 * The runtime fills `context` once it is built; the pipeline provides it to each call.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallServicesHolder {
  context: Context.Context<never> | undefined
}

/**
 * @since 0.1.0
 * @category services
 */
export class CallServices extends Context.Tag("toolgate/CallServices")<CallServices, CallServicesHolder>() {}

/**
 * The parts of a tool a definition must give; everything else has a fail-closed default.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition<I, O, R = never> {
  readonly name: string
  readonly inputSchema: Schema.Schema<I, any, never> | ToolInputSchema<I>
  readonly description: string
  readonly call: (input: I, ctx: ToolContext) => Effect.Effect<ToolResult<O>, ToolError, R>
  readonly aliases?: ReadonlyArray<string>
  readonly prompt?: string
  readonly isEnabled?: Effect.Effect<boolean>
  readonly isReadOnly?: (input: I) => boolean
  readonly isConcurrencySafe?: (input: I) => boolean
  readonly isDestructive?: (input: I) => boolean
  readonly interruptBehavior?: () => InterruptBehavior
  readonly maxResultSizeChars?: number
  readonly expandInput?: (input: I, session: SessionContext) => I
  readonly validateInput?: (input: I, ctx: ToolCheckContext) => Effect.Effect<void, InputRejected>
  readonly permissionSubject?: (input: I, session: SessionContext) => PermissionSubject
  readonly checkPermissions?: (input: I, ctx: ToolCheckContext) => Effect.Effect<ToolCheck>
  readonly mapResult?: (output: O, toolUseId: string) => ToolResultContent
  readonly hookResponse?: (output: O) => unknown
  readonly hookOutput?: (replacement: unknown) => O | undefined
  readonly footprint?: (input: I, session: SessionContext) => Effect.Effect<Footprint>
  readonly userFacingName?: (input: I | undefined) => string
  readonly renderUse?: (input: I) => string
  readonly renderResult?: (output: O) => string
  readonly renderProgress?: (progress: ToolProgress) => string
  readonly mcp?: McpToolInfo
  readonly shouldDefer?: boolean
  readonly searchHint?: string
  readonly requiresUserInteraction?: boolean
  readonly warmup?: Effect.Effect<void>
  readonly siblingCancellationLabel?: (input: I) => string
  readonly repairInput?: (input: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined
  readonly knownAs?: ReadonlyArray<string>
}

const isSchema = (u: unknown): u is Schema.Schema<any, any, never> => Schema.isSchema(u)

/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000

/**
 * Builds a tool from its definition, with fail-closed defaults for everything it leaves out.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Errors, Tool } from "toolgate"
 *
 * export const WordCount = Tool.buildTool({
 *   name: "WordCount",
 *   description: "Counts the words of a text.",
 *   inputSchema: Schema.Struct({ text: Schema.String }),
 *   isReadOnly: () => true,
 *   isConcurrencySafe: () => true,
 *   call: ({ text }) =>
 *     text.length > 1_000_000
 *       ? Effect.fail(new Errors.ToolError({ reason: "text too long" }))
 *       : Effect.succeed({ data: `${text.split(/\s+/).filter(Boolean).length} words` })
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const buildTool = <I, O, R = never>(definition: ToolDefinition<I, O, R>): Tool<I, O, R> => {
  const given = definition.inputSchema
  const inputSchema: ToolInputSchema<I> = isSchema(given)
    ? { _tag: "Schema", schema: given as Schema.Schema<I, any, never> }
    : (given as ToolInputSchema<I>)
  return {
    name: definition.name,
    aliases: definition.aliases ?? [],
    inputSchema,
    description: definition.description,
    prompt: definition.prompt ?? definition.description,
    isEnabled: definition.isEnabled ?? Effect.succeed(true),
    isReadOnly: definition.isReadOnly ?? (() => false),
    isConcurrencySafe: definition.isConcurrencySafe ?? (() => false),
    isDestructive: definition.isDestructive ?? (() => true),
    interruptBehavior: definition.interruptBehavior ?? (() => "block"),
    maxResultSizeChars: definition.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
    expandInput: definition.expandInput ?? ((input) => input),
    validateInput: definition.validateInput ?? (() => Effect.void),
    permissionSubject: definition.permissionSubject ?? (() => ({ kind: "none" })),
    checkPermissions: definition.checkPermissions ?? (() => Effect.succeed(passthrough)),
    call: definition.call,
    mapResult: definition.mapResult ?? defaultMapResult(definition.name),
    hookResponse: definition.hookResponse ?? ((output) => output),
    hookOutput: definition.hookOutput,
    footprint: definition.footprint,
    userFacingName: definition.userFacingName ?? (() => definition.name),
    renderUse: definition.renderUse ?? ((input) => oneLine(JSON.stringify(input) ?? "", 120)),
    renderResult: definition.renderResult ??
      ((output) => oneLine(typeof output === "string" ? output : JSON.stringify(output) ?? "", 200)),
    renderProgress: definition.renderProgress ?? ((progress) => progress.message),
    mcp: definition.mcp,
    shouldDefer: definition.shouldDefer ?? false,
    searchHint: definition.searchHint,
    requiresUserInteraction: definition.requiresUserInteraction ?? false,
    warmup: definition.warmup ?? Effect.void,
    siblingCancellationLabel: definition.siblingCancellationLabel,
    repairInput: definition.repairInput,
    knownAs: definition.knownAs ?? []
  }
}

/** Strings pass through; anything else is JSON; empty output gets Claude Code's notice. */
const defaultMapResult = (toolName: string) => (output: unknown): ToolResultContent => {
  const text = typeof output === "string" ? output : JSON.stringify(output, null, 2) ?? ""
  return text.trim() === "" ? `(${toolName} completed with no output)` : text
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * The JSON Schema of a tool's input as the API wants it (no `$schema` key).
 *
 * @since 0.1.0
 * @category utils
 */
export const inputJsonSchema = (tool: AnyTool): Record<string, unknown> => {
  if (tool.inputSchema._tag === "JsonSchema") return tool.inputSchema.jsonSchema
  const { ast } = tool.inputSchema.schema
  // An empty Struct becomes `anyOf: [object, array]`, which the Messages API refuses.
  if (SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return { type: "object", properties: {}, additionalProperties: false }
  }
  const { $schema: _ignored, ...rest } = JSONSchema.make(tool.inputSchema.schema) as unknown as Record<string, unknown>
  return withoutEmptyRequired(rest) as Record<string, unknown>
}

/** An object schema with no required property says nothing about `required` (as zod writes it). */
const withoutEmptyRequired = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutEmptyRequired)
  if (node === null || typeof node !== "object") return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === "required" && Array.isArray(value) && value.length === 0))
      .map(([key, value]) => [key, withoutEmptyRequired(value)])
  )
}

/**
 * Fails `validateInput` with the given text (the model sees it wrapped in `<tool_use_error>`).
 *
 * @since 0.1.0
 * @category utils
 */
export const reject = (toolName: string, reason: string): Effect.Effect<never, InputRejected> =>
  Effect.fail(new InputRejectedError({ toolName, reason }))
