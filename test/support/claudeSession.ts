/**
 * The scripted session behind the print-mode comparison with Claude Code
 * (test/fixtures/claude-code/session.json): its turns as Anthropic SSE events, and the shape of
 * a JSON value (keys and types, recursively) for comparing outputs whose values differ.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { SseFrame } from "./fakeAnthropic.js"

export const CLAUDE_FIXTURES = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  "..",
  "fixtures",
  "claude-code"
)

export interface SessionTurn {
  readonly blocks: ReadonlyArray<Record<string, unknown>>
  readonly stop_reason: string
}

export interface ScriptedSession {
  readonly prompt: string
  readonly model: string
  readonly files: Readonly<Record<string, string>>
  readonly turns: ReadonlyArray<SessionTurn>
}

export const loadSession = (): ScriptedSession =>
  JSON.parse(fs.readFileSync(path.join(CLAUDE_FIXTURES, "session.json"), "utf8"))

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

/** One model turn as the Messages API streams it; `{{cwd}}` in tool inputs replaced. */
export const sseEventsOf = (
  turn: SessionTurn,
  model: string,
  id: string,
  cwd: string
): Array<Record<string, unknown>> => {
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage
      }
    }
  ]
  turn.blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
      events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } })
    } else {
      const input = JSON.stringify(block.input).split("{{cwd}}").join(cwd)
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
      })
      for (let i = 0; i < input.length; i += 64) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: input.slice(i, i + 64) }
        })
      }
    }
    events.push({ type: "content_block_stop", index })
  })
  events.push({
    type: "message_delta",
    delta: { stop_reason: turn.stop_reason, stop_sequence: null },
    usage: { output_tokens: 20 }
  })
  events.push({ type: "message_stop" })
  return events
}

export const sseFramesOf = (events: ReadonlyArray<Record<string, unknown>>): Array<SseFrame> =>
  events.map((e) => ({ event: String(e.type), data: JSON.stringify(e), delayMs: 0 }))

export type Shape = string | { readonly [key: string]: Shape } | ReadonlyArray<Shape>

/** Keys and JSON types, recursively; an array's shape is its first element's. */
export const shapeOf = (value: unknown): Shape => {
  if (value === null) return "null"
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])]
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shapeOf(v)]))
  }
  return typeof value
}

export interface ShapeRules {
  /** Paths (`result.usage.iterations`, `*` for any key) Claude Code has and toolgate leaves out. */
  readonly claudeOnly: ReadonlySet<string>
  /** Paths whose type may differ (a tool's structured output). */
  readonly anyType: ReadonlySet<string>
  /** Paths toolgate adds. */
  readonly toolgateOnly: ReadonlySet<string>
  /** Objects whose keys are names (a model's usage by model name): their values are compared. */
  readonly maps: ReadonlySet<string>
}

const matches = (set: ReadonlySet<string>, at: string) => set.has(at) || set.has(at.replace(/\.[^.]+$/, ".*"))

/** Differences between Claude Code's shape and toolgate's, as readable lines (none when they agree). */
export const shapeDifferences = (claude: Shape, toolgate: Shape, at: string, rules: ShapeRules): Array<string> => {
  if (matches(rules.anyType, at)) return []
  if (typeof claude === "string" || typeof toolgate === "string") {
    return claude === toolgate
      ? []
      : [`${at}: Claude Code has ${JSON.stringify(claude)}, toolgate ${JSON.stringify(toolgate)}`]
  }
  if (Array.isArray(claude) || Array.isArray(toolgate)) {
    if (!Array.isArray(claude) || !Array.isArray(toolgate)) return [`${at}: array in one, not the other`]
    if (claude.length === 0 || toolgate.length === 0) return []
    return shapeDifferences(claude[0]!, toolgate[0]!, `${at}[]`, rules)
  }
  const c = claude as Record<string, Shape>
  const t = toolgate as Record<string, Shape>
  if (matches(rules.maps, at)) {
    const [cv] = Object.values(c)
    const [tv] = Object.values(t)
    return cv === undefined || tv === undefined ? [] : shapeDifferences(cv, tv, `${at}.*`, rules)
  }
  const out: Array<string> = []
  for (const key of Object.keys(c)) {
    const path = `${at}.${key}`
    if (matches(rules.claudeOnly, path)) continue
    if (!(key in t)) out.push(`${path}: missing in toolgate`)
    else out.push(...shapeDifferences(c[key]!, t[key]!, path, rules))
  }
  for (const key of Object.keys(t)) {
    const path = `${at}.${key}`
    if (!(key in c) && !matches(rules.toolgateOnly, path) && !matches(rules.claudeOnly, path)) {
      out.push(`${path}: only in toolgate`)
    }
  }
  return out
}

/** `system/init`, `assistant`, `result/success`, … */
export const kindOf = (
  line: Record<string, unknown>
): string => (typeof line.subtype === "string" ? `${line.type}/${line.subtype}` : String(line.type))
