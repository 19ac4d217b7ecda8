/**
 * Claude Code's print-mode messages (`claude -p --output-format json|stream-json`), so scripts
 * written for it read toolgate's output unchanged: `system`/`init` first, an `assistant` line per
 * content block as it completes, a `user` line per tool result as it completes (then a
 * `system`/`permission_denied` line before a denied call's result), and a `result` last. The
 * `json` format prints only the `result`. Every key Claude Code sends is there, with toolgate's
 * own values (no plugins, no fast mode, no client capabilities; its own timings and subagent counts).
 *
 * `--toolgate-events` adds toolgate's own lines (`tool_call` started/progress/finished with batch
 * and times) and a `toolgate` object on the result (the call timeline, the stop kind, the
 * transcript).
 */
import { randomUUID } from "node:crypto"
import { contentText, UnparsableInput } from "../../Messages.js"
import { toApiBlock, type PromptOutcome, type AgentEvent } from "../../services/Agent.js"
import type { CallOutcome } from "../../services/CallPipeline.js"
import type { Usage } from "../../ModelEvents.js"
import { behaviorOf, describeReason } from "../../Permission.js"
import { contextWindowOf, costUsd } from "./cost.js"

export interface InitInfo {
  readonly sessionId: string
  readonly model: string
  readonly cwd: string
  readonly permissionMode: string
  readonly tools: ReadonlyArray<string>
  readonly mcpServers: ReadonlyArray<{ readonly name: string; readonly status: string }>
  readonly slashCommands: ReadonlyArray<string>
  readonly apiKeySource: string
  readonly agents: ReadonlyArray<string>
  readonly skills: ReadonlyArray<string>
  readonly additionalDirectories: ReadonlyArray<string>
  readonly version: string
  readonly transcript: string
  /** The slash commands only a terminal session offers. */
  readonly terminalSlashCommands: ReadonlyArray<string>
  /** Bash commands run in the settings sandbox (`sandbox.enabled`, and it can run here). */
  readonly sandboxEnabled: boolean
  /** The model is asked at Anthropic's own API (no other base URL, not a scripted model). */
  readonly servedByAnthropic: boolean
}

/** The Claude Code release whose behaviour toolgate follows (its tool results, texts and print-mode output). */
export const CLAUDE_CODE_VERSION = "2.1.332"

/** A model asked at Anthropic's own API: not scripted, and no base URL other than api.anthropic.com. */
export const servedByAnthropicOf = (model: string, baseUrl: string | undefined): boolean =>
  !model.startsWith("scripted:") &&
  (baseUrl === undefined || baseUrl.trim() === "" || /^https:\/\/api\.anthropic\.com(\/|$)/.test(baseUrl.trim()))

export interface CallRecord {
  readonly turn: number
  readonly tool_use_id: string
  readonly name: string
  readonly input: unknown
  readonly batch: number | null
  readonly started_ms: number | null
  readonly ended_ms: number
  readonly outcome: string
  readonly is_error: boolean
  readonly error: string | null
  readonly decision: { readonly behavior: string; readonly reason: string } | null
}

export type Line = Readonly<Record<string, unknown>>

const json = (value: unknown): string =>
  JSON.stringify(
    value,
    (_key, v: unknown) => (v instanceof UnparsableInput ? { unparsable_input: v.text, reason: v.reason } : v)
  )

export const toJsonLine = (value: unknown): string => `${json(value)}\n`

const DENIED = new Set(["PermissionDenied", "NotApproved"])

/** What the person decided, as Claude Code's `tool_result_meta` says it. */
const permissionMeta = (outcome: CallOutcome) => {
  const decision = outcome.decision
  if (decision === undefined) return undefined
  const reason = decision.reason as { readonly type?: string }
  const accepted = decision._tag === "Allow" || (decision._tag === "Ask" && outcome.error === undefined)
  return {
    id: outcome.toolUseId,
    // why a call did not run: a deny rule, or an ask nobody approved (in print mode, every ask)
    ...(accepted ? {} : { non_execution_kind: decision._tag === "Deny" ? "permission-rule" : "user-rejected" }),
    permission_decision: {
      decision: accepted ? "accept" : "reject",
      // a person answered only when an ask was approved (a print-mode ask is denied by configuration)
      source: decision._tag === "Ask" && accepted ? "user" : "config",
      ...(accepted && typeof reason.type === "string" ? { reason_type: reason.type } : {})
    }
  }
}

/** What `tool_use_result` says of a call: a success's structured output (Claude Code's shape), else the text the model saw. */
const toolUseResult = (outcome: CallOutcome): unknown => {
  const text = contentText(outcome.result.content)
  if (outcome.result.is_error === true) return `Error: ${text.replace(/^<tool_use_error>|<\/tool_use_error>$/g, "")}`
  return outcome.response !== undefined && outcome.response !== null && typeof outcome.response === "object"
    ? outcome.response
    : text
}

export interface PromptStats {
  readonly startedMs: number
  apiMs: number
  toolResults: number
  /** Turns a Stop hook asked for after the model had finished (each is a message of its own). */
  continuations: number
  readonly denials: Array<{ readonly tool_name: string; readonly tool_use_id: string; readonly tool_input: unknown }>
  readonly calls: Array<CallRecord>
  /** When the prompt's first request went out, its stream began, its first block and its first text or input came (ms since the epoch). */
  readonly firsts: { request?: number; stream?: number; block?: number; token?: number }
}

export const newStats = (startedMs: number): PromptStats => ({
  startedMs,
  apiMs: 0,
  toolResults: 0,
  continuations: 0,
  denials: [],
  calls: [],
  firsts: {}
})

export interface ResultExtras {
  readonly toolgate?: Readonly<Record<string, unknown>>
  readonly resultIndex?: number
  /** stream-json's result repeats the prompt's usage by model as `model_usage_since_last_result`. */
  readonly sinceLastResult?: boolean
  /** The output token limit each request asks for. */
  readonly maxOutputTokens?: number
}

/** A model's name without its date (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`). */
const canonicalModel = (model: string): string => model.replace(/\[1m\]$/, "").replace(/-\d{8}$/, "")

/** The Agent tool's calls of one prompt, counted as Claude Code's `subagent_stats` counts them. */
const subagentStats = (calls: ReadonlyArray<CallRecord>) => {
  const agents = calls.filter((c) => c.name === "Agent" || c.name === "Task")
  const inputOf = (
    c: CallRecord
  ) => (c.input !== null && typeof c.input === "object" ? (c.input as Record<string, unknown>) : {})
  const byType: Record<string, number> = {}
  for (const call of agents) {
    const type = typeof inputOf(call).subagent_type === "string"
      ? String(inputOf(call).subagent_type)
      : "general-purpose"
    byType[type] = (byType[type] ?? 0) + 1
  }
  const background = agents.filter((c) => inputOf(c).run_in_background === true).length
  const foreground = agents.filter((c) => inputOf(c).run_in_background === false).length
  const refused = agents.filter((c) => c.error === "PermissionDenied" || c.error === "NotApproved").length
  return {
    spawned: agents.length - refused,
    requested: { background, foreground, unset: agents.length - background - foreground },
    started_in_background: background,
    max_depth: agents.length - refused > 0 ? 1 : 0,
    spawned_by_subagents: 0,
    completed: agents.filter((c) => !c.is_error).length,
    failed: agents.filter((c) => c.is_error).length - refused,
    killed: { parent: 0, user: 0, system: 0 },
    refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
    by_type: byType
  }
}

/** Times from the prompt's start to its first request, stream, block and token, as Claude Code reports them (when they happened). */
const timings = (stats: PromptStats) => {
  const since = (at: number | undefined) => (at === undefined ? undefined : Math.max(0, at - stats.startedMs))
  const { request, stream, block, token } = stats.firsts
  if (request === undefined || stream === undefined) return {}
  return {
    ttft_ms: since(token ?? block ?? stream),
    ttft_stream_ms: since(stream),
    time_to_request_ms: since(request),
    first_content_frame_ms: since(block ?? stream)
  }
}

/** Why the turn ended; none when a UserPromptSubmit hook blocked the prompt (Claude Code sends no such key then). */
const terminalReason = (outcome: PromptOutcome): string | undefined => {
  switch (outcome.stop) {
    case "end_turn":
      return "completed"
    case "max_turns":
      return "max_turns"
    case "interrupted":
      // Ctrl-C while the calls ran: Claude Code's reason for it
      return outcome.stopReason === "tool_use" ? "aborted_tools" : "aborted"
    case "hook_stop":
      return "hook_stopped"
    case "context_window":
      return "prompt_too_long"
    case "refusal":
      return "refusal"
    case "max_tokens":
      return "max_tokens"
    case "error":
      // an HTTP error of the API, as Claude Code names it; a failed stream or connection stays a model error
      return outcome.error?._tag === "ModelApiError" ? "api_error" : "model_error"
    case "tool_deferred":
      return "tool_deferred"
    case "prompt_blocked":
      return undefined
  }
}

/** The text of an error outcome, as `claude -p` gives it (an API error: its status and the API's own words). */
export const errorText = (outcome: PromptOutcome, maxTurns: number | undefined): string | undefined => {
  if (outcome.stop === "max_turns") return `Reached max turns (${maxTurns ?? outcome.turns})`
  if (outcome.stop !== "error") return undefined
  const error = outcome.error
  if (error?._tag === "ModelApiError") return `API Error: ${error.status} ${error.reason}`
  return `API Error: ${error?.message ?? "the model failed"}`
}

/**
 * What `claude -p` prints on stdout in text mode when a prompt ends in an error or Ctrl-C stopped it
 * (the max-turns and Ctrl-C lines have no line end).
 */
export const printedErrorOf = (outcome: PromptOutcome, maxTurns: number | undefined): string | undefined => {
  if (outcome.stop === "interrupted") return "Execution error"
  const text = errorText(outcome, maxTurns)
  if (text === undefined) return undefined
  return outcome.stop === "max_turns" ? `Error: ${text}` : `${text}\n`
}

export const isErrorOutcome = (outcome: PromptOutcome): boolean =>
  outcome.stop === "error" || outcome.stop === "max_turns"

/** Claude Code's `result` message for one prompt. */
export const resultMessage = (
  outcome: PromptOutcome,
  info: Pick<InitInfo, "sessionId" | "model">,
  stats: PromptStats,
  nowMs: number,
  maxTurns: number | undefined,
  extras: ResultExtras = {}
): Line => {
  const usage = outcome.usage
  const cost = costUsd(info.model, usage)
  const status = outcome.error?._tag === "ModelApiError" ? outcome.error.status : null
  // a prompt whose requests all failed used no model (Claude Code: an empty object)
  const modelUsage = usage.input_tokens + usage.output_tokens === 0 && (outcome.turns === 0 || outcome.stop === "error")
    ? {}
    : {
      [info.model]: {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadInputTokens: usage.cache_read_input_tokens,
        cacheCreationInputTokens: usage.cache_creation_input_tokens,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: contextWindowOf(info.model),
        maxOutputTokens: extras.maxOutputTokens ?? 0,
        thinkingTokens: 0,
        cacheCreationEphemeral5mInputTokens: usage.cache_creation_input_tokens,
        cacheCreationEphemeral1hInputTokens: 0,
        canonicalModel: canonicalModel(info.model),
        provider: "firstParty",
        costBasis: "list"
      }
    }
  // Ctrl-C: Claude Code reports an error during execution (no result text, the interrupt counted as a turn)
  const interrupted = outcome.stop === "interrupted"
  const base = {
    type: "result",
    subtype: outcome.stop === "max_turns" ? "error_max_turns" : interrupted ? "error_during_execution" : "success",
    is_error: isErrorOutcome(outcome) || interrupted,
    duration_ms: Math.max(0, nowMs - stats.startedMs),
    duration_api_ms: stats.apiMs,
    num_turns: outcome.stop === "max_turns"
      ? outcome.turns + 1
      : outcome.stop === "prompt_blocked"
      ? 0
      : 1 + stats.toolResults + stats.continuations + (interrupted ? 1 : 0),
    ...(outcome.stop === "max_turns" || interrupted
      ? {}
      : { result: outcome.stop === "error" ? errorText(outcome, maxTurns)! : outcome.text }),
    stop_reason: outcome.stopReason ?? null,
    session_id: info.sessionId,
    total_cost_usd: cost,
    usage: fullUsage(usage),
    modelUsage,
    permission_denials: stats.denials,
    ...(terminalReason(outcome) === undefined ? {} : { terminal_reason: terminalReason(outcome) }),
    // Claude Code's max-turns result has no API status
    ...(outcome.stop === "max_turns" || interrupted ? {} : { api_error_status: status }),
    ...(outcome.error?._tag === "ModelApiError" && outcome.error.errorType !== undefined
      ? { api_error_type: outcome.error.errorType }
      : {}),
    // a call a PreToolUse hook deferred: the caller runs it (or not) and resumes
    ...(outcome.stop === "tool_deferred" && outcome.halt?.toolUse !== undefined
      ? { deferred_tool_use: outcome.halt.toolUse }
      : {}),
    ...(outcome.stop === "max_turns"
      ? { errors: [`Reached maximum number of turns (${maxTurns ?? outcome.turns})`] }
      : {}),
    ...(interrupted
      ? {
        errors: [`[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=${outcome.stopReason ?? "null"}`]
      }
      : {}),
    // toolgate has no fast mode, no safety stops and no queue of turns; its subagents are the Agent tool's calls
    fast_mode_state: "off",
    fast_mode_disabled_reason: "unsupported",
    subagent_stats: subagentStats(stats.calls),
    safety_stops: 0,
    ...timings(stats),
    queued_turn_count: 0,
    ...(extras.sinceLastResult === true ? { model_usage_since_last_result: modelUsage } : {}),
    uuid: randomUUID(),
    ...(extras.resultIndex === undefined ? {} : { result_index: extras.resultIndex }),
    ...(extras.toolgate === undefined ? {} : { toolgate: extras.toolgate })
  }
  return base
}

const fullUsage = (usage: Usage) => ({
  input_tokens: usage.input_tokens,
  cache_creation_input_tokens: usage.cache_creation_input_tokens,
  cache_read_input_tokens: usage.cache_read_input_tokens,
  output_tokens: usage.output_tokens,
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  service_tier: "standard",
  output_tokens_details: { thinking_tokens: 0 },
  // cache writes last the API's default five minutes (toolgate asks for no longer)
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: usage.cache_creation_input_tokens },
  inference_geo: "",
  iterations: [],
  speed: "standard",
  fallback_credit: null
})

export const initMessage = (info: InitInfo): Line => ({
  type: "system",
  subtype: "init",
  cwd: info.cwd,
  session_id: info.sessionId,
  tools: info.tools,
  mcp_servers: info.mcpServers,
  model: info.model,
  permissionMode: info.permissionMode,
  slash_commands: info.slashCommands,
  apiKeySource: info.apiKeySource,
  output_style: "default",
  agents: info.agents,
  skills: info.skills,
  plugins: [],
  uuid: randomUUID(),
  original_cwd: info.cwd,
  additional_directories: info.additionalDirectories,
  terminal_slash_commands: info.terminalSlashCommands,
  claude_code_version: CLAUDE_CODE_VERSION,
  // toolgate speaks no client protocol beyond these lines, sends nothing home, and has no fast mode, effort or ultrathink
  capabilities: [],
  analytics_disabled: true,
  product_feedback_disabled: true,
  served_by_anthropic: info.servedByAnthropic,
  sandbox_enabled: info.sandboxEnabled,
  memory_paths: {},
  messaging_socket_path: null,
  fast_mode_state: "off",
  fast_mode_disabled_reason: "unsupported",
  per_turn_effort_active: false,
  ultrathink_available: false,
  ultrathink_typed_raises: false,
  view_mode: "default",
  toolgate_version: info.version
})

/**
 * Follows one prompt's events and returns the lines to print (stream-json), keeping what the
 * result needs (API time, tool results, denials, call records).
 */
export class ClaudeJsonTracker {
  private message: { id: string; model: string; usage: Usage } | undefined
  private turnStartedMs = 0
  /** The turn's API time is counted once its message has streamed (tools may run on after that). */
  private apiCounted = false
  private readonly emitted = new Set<string>()
  /** Results that finish while the model still streams wait for its message to end (as in Claude Code). */
  private streaming = false
  private held: Array<Line> = []
  private endedWithoutResults = false

  constructor(
    private readonly sessionId: string,
    readonly stats: PromptStats,
    private readonly toolgateEvents: boolean,
    private readonly now: () => number
  ) {}

  private envelope(type: "assistant" | "user", message: unknown, extra: Line = {}): Line {
    return {
      type,
      message,
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUUID(),
      timestamp: new Date(this.now()).toISOString(),
      ...extra
    }
  }

  private resultLines(outcome: CallOutcome): Array<Line> {
    if (this.emitted.has(outcome.toolUseId)) return []
    this.emitted.add(outcome.toolUseId)
    // a call a PreToolUse hook deferred has no result yet (the caller runs it), as in Claude Code
    if (outcome.halt?.kind === "deferred") return []
    this.stats.toolResults++
    const lines: Array<Line> = []
    if (outcome.error !== undefined && DENIED.has(outcome.error._tag)) {
      const message = contentText(outcome.result.content)
      this.stats.denials.push({
        tool_name: outcome.toolName,
        tool_use_id: outcome.toolUseId,
        tool_input: outcome.input
      })
      lines.push({
        type: "system",
        subtype: "permission_denied",
        tool_name: outcome.toolName,
        tool_use_id: outcome.toolUseId,
        message,
        uuid: randomUUID(),
        session_id: this.sessionId
      })
    }
    const meta = permissionMeta(outcome)
    lines.push(
      this.envelope("user", { role: "user", content: [outcome.result] }, {
        tool_use_result: toolUseResult(outcome),
        ...(meta === undefined ? {} : { tool_result_meta: [meta] })
      })
    )
    return lines
  }

  private countApiTime() {
    if (this.apiCounted) return
    this.apiCounted = true
    this.stats.apiMs += Math.max(0, this.now() - this.turnStartedMs)
  }

  readonly onEvent = (event: AgentEvent): Array<Line> => {
    switch (event._tag) {
      case "TurnStarted":
        // a turn after one that ended without tool calls: a Stop hook kept the model going
        if (this.endedWithoutResults) this.stats.continuations++
        this.endedWithoutResults = false
        this.turnStartedMs = this.now()
        this.stats.firsts.request ??= this.turnStartedMs
        this.apiCounted = false
        this.message = undefined
        this.streaming = true
        return []
      case "Model": {
        const e = event.event
        if (e._tag === "MessageStart") {
          this.message = { id: e.id, model: e.model, usage: e.usage }
          this.stats.firsts.stream ??= this.now()
        }
        if (e._tag === "MessageStop") this.countApiTime()
        if (e._tag === "BlockStart") this.stats.firsts.block ??= this.now()
        if (e._tag === "TextDelta" || e._tag === "ToolInputDelta" || e._tag === "ThinkingDelta") {
          this.stats.firsts.token ??= this.now()
        }
        if (e._tag !== "BlockStop") return []
        if (e.block.type === "text" && e.block.text.trim() === "") return []
        const m = this.message
        return [
          this.envelope("assistant", {
            id: m?.id ?? randomUUID(),
            type: "message",
            role: "assistant",
            model: m?.model ?? "",
            content: [toApiBlock(e.block)],
            stop_reason: null,
            stop_sequence: null,
            usage: m?.usage ??
              { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
            context_management: null
          })
        ]
      }
      case "AssistantMessage": {
        this.countApiTime()
        this.streaming = false
        this.endedWithoutResults = true
        const held = this.held
        this.held = []
        return held
      }
      case "TurnFailed":
        return [
          this.envelope(
            "assistant",
            {
              id: randomUUID(),
              type: "message",
              role: "assistant",
              model: "<synthetic>",
              content: [{ type: "text", text: `API Error: ${event.error.message}` }],
              stop_reason: "stop_sequence",
              stop_sequence: "",
              usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
              context_management: null
            },
            { is_api_error_message: true }
          )
        ]
      case "Call": {
        const e = event.event
        const extra: Array<Line> = []
        if (this.toolgateEvents) {
          if (e._tag === "CallStarted") {
            extra.push({
              type: "tool_call",
              event: "started",
              turn: event.turn,
              tool_use_id: e.toolUseId,
              index: e.index,
              batch: e.batch,
              at: event.atMs
            })
          } else if (e._tag === "CallProgress") {
            extra.push({
              type: "tool_call",
              event: "progress",
              turn: event.turn,
              tool_use_id: e.toolUseId,
              message: e.progress.message,
              at: event.atMs
            })
          } else if (e._tag === "CallFinished") {
            extra.push({
              type: "tool_call",
              event: "finished",
              turn: event.turn,
              tool_use_id: e.outcome.toolUseId,
              name: e.outcome.toolName,
              is_error: e.outcome.result.is_error === true,
              at: event.atMs
            })
          }
        }
        if (e._tag !== "CallFinished") return extra
        if (!this.streaming) return [...extra, ...this.resultLines(e.outcome)]
        this.held.push(...this.resultLines(e.outcome))
        return extra
      }
      case "ToolResults": {
        this.endedWithoutResults = false
        const lines: Array<Line> = []
        event.run.outcomes.forEach((o, i) => {
          const t = event.run.timeline[i]
          this.stats.calls.push({
            turn: event.turn,
            tool_use_id: o.toolUseId,
            name: o.toolName,
            input: o.input,
            batch: t?.batch ?? null,
            started_ms: t?.startedMs ?? null,
            ended_ms: t?.endedMs ?? 0,
            outcome: t?.outcome ?? "ok",
            is_error: o.result.is_error === true,
            error: o.error?._tag ?? null,
            decision: o.decision === undefined
              ? null
              : { behavior: behaviorOf(o.decision), reason: describeReason(o.decision.reason) }
          })
          lines.push(...this.resultLines(o))
        })
        // results the scheduler never ran (the stream ended first) and text for the model (hook context, reminders)
        const content = typeof event.message.content === "string" ? [] : event.message.content
        // a call a PreToolUse hook deferred gets no result (the caller runs it later), as in Claude Code
        const deferred = event.run.halt?.kind === "deferred" ? event.run.halt.toolUse?.id : undefined
        const missed = content.filter(
          (b) =>
            b.type === "tool_result" && typeof b.tool_use_id === "string" && !this.emitted.has(b.tool_use_id) &&
            b.tool_use_id !== deferred
        )
        for (const block of missed) {
          this.emitted.add(String(block.tool_use_id))
          this.stats.toolResults++
          lines.push(
            this.envelope("user", { role: "user", content: [block] }, {
              tool_use_result: contentText(block.content as never)
            })
          )
        }
        const rest = content.filter((b) => b.type !== "tool_result")
        if (rest.length > 0) lines.push(this.envelope("user", { role: "user", content: rest }))
        return lines
      }
      case "Retrying":
        return [
          {
            type: "system",
            subtype: "api_retry",
            attempt: event.info.attempt,
            max_retries: event.info.maxAttempts - 1,
            retry_delay_ms: event.info.delayMs,
            error_status: null,
            error: event.info.reason,
            session_id: this.sessionId,
            uuid: randomUUID()
          }
        ]
      case "Notice":
        return this.toolgateEvents
          ? [{ type: "system", subtype: "notice", text: event.text, session_id: this.sessionId, uuid: randomUUID() }]
          : []
      default:
        return []
    }
  }
}
