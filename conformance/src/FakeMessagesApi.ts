/**
 * A scripted Anthropic Messages API on 127.0.0.1, one per program run. The *main-agent* request
 * of turn k (k = assistant messages already in the conversation, so a retry gets the same turn)
 * is answered with the script's turn k, streamed as the real API streams; past the script it gets
 * "Done.". Every other request (titles, side queries of the program) gets a short text, and
 * count_tokens gets a rough count (a quarter of the characters). Every request is logged.
 *
 * A request is the main agent's when it carries tools, its first user message holds the run's
 * marker, and its last message is that first message or carries tool_result blocks (so side
 * queries that fork the conversation with their own instruction are told apart).
 */
import { Effect, type Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { ScriptBlock, Turn } from "./Scenario.js"

export interface LoggedRequest {
  readonly path: string
  readonly main: boolean
  /** For a main-agent request: the turn it asked for. */
  readonly turn: number | undefined
  readonly body: unknown
}

export interface FakeMessagesApi {
  readonly url: string
  readonly requests: ReadonlyArray<LoggedRequest>
}

type Message = { readonly role?: unknown; readonly content?: unknown }

const isRecord = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content
      .filter((b): b is { type: "text"; text: string } =>
        isRecord(b) && b.type === "text" && typeof b.text === "string"
      )
      .map((b) => b.text)
      .join("\n")
    : ""

const messagesOf = (body: Record<string, unknown>): ReadonlyArray<Message> =>
  Array.isArray(body.messages) ? (body.messages as ReadonlyArray<Message>).filter(isRecord) : []

export const isMainRequest = (urlPath: string, body: unknown, marker: string): boolean => {
  if (!urlPath.replace(/\/+$/, "").endsWith("/v1/messages") || !isRecord(body)) return false
  const tools = body.tools
  const messages = messagesOf(body).filter((m) => m.role === "user" || m.role === "assistant")
  if (!Array.isArray(tools) || tools.length === 0 || messages.length === 0) return false
  const first = messages[0]!
  if (first.role !== "user" || !textOf(first.content).includes(marker)) return false
  const last = messages[messages.length - 1]!
  if (last.role !== "user") return false
  if (messages.length === 1) return true
  return Array.isArray(last.content) && last.content.some((b) => isRecord(b) && b.type === "tool_result")
}

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

const stopReasonOf = (turn: Turn): string =>
  turn.stop_reason ?? (turn.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn")

const contentBlock = (block: ScriptBlock) =>
  block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "tool_use", id: block.id, name: block.name, input: block.input }

/** The SSE events of one streamed answer; a tool's input arrives as JSON in 64-character pieces. */
const streamEvents = (id: string, model: string, blocks: ReadonlyArray<ScriptBlock>, stopReason: string) => {
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
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
      events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } })
    } else {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
      })
      const json = JSON.stringify(block.input)
      for (let at = 0; at < json.length; at += 64) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: json.slice(at, at + 64) }
        })
      }
    }
    events.push({ type: "content_block_stop", index })
  })
  events.push({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 20 }
  })
  events.push({ type: "message_stop" })
  return events
}

const sendJson = (res: http.ServerResponse, status: number, value: unknown) => {
  const data = JSON.stringify(value)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(data),
    "request-id": "req_fake"
  })
  res.end(data)
}

const answer = (
  res: http.ServerResponse,
  body: Record<string, unknown>,
  seq: number,
  blocks: ReadonlyArray<ScriptBlock>,
  stopReason: string
) => {
  const model = typeof body.model === "string" ? body.model : "claude-fake"
  const id = `msg_fake_${seq}`
  if (body.stream !== true) {
    return sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: blocks.map(contentBlock),
      stop_reason: stopReason,
      stop_sequence: null,
      usage
    })
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_fake" })
  for (const event of streamEvents(id, model, blocks, stopReason)) {
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
  }
  res.end()
}

const DONE: ReadonlyArray<ScriptBlock> = [{ type: "text", text: "Done." }]
const SIDE_ANSWER: ReadonlyArray<ScriptBlock> = [{ type: "text", text: "ok" }]

/** Starts the server for one run; it stops (and drops open connections) when the scope closes. */
export const make = (script: ReadonlyArray<Turn>, marker: string): Effect.Effect<FakeMessagesApi, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly api: FakeMessagesApi; readonly server: http.Server }>((resume) => {
      const requests: Array<LoggedRequest> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const urlPath = new URL(req.url ?? "/", "http://127.0.0.1").pathname
          let body: unknown
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            body = Buffer.concat(chunks).toString("utf8")
          }
          const seq = requests.length + 1
          if (req.method !== "POST") {
            requests.push({ path: urlPath, main: false, turn: undefined, body })
            return sendJson(res, 200, { data: [], has_more: false })
          }
          const main = isMainRequest(urlPath, body, marker)
          const turn = main
            ? messagesOf(body as Record<string, unknown>).filter((m) => m.role === "assistant").length
            : undefined
          requests.push({ path: urlPath, main, turn, body })
          if (urlPath.replace(/\/+$/, "").endsWith("/count_tokens")) {
            const chars = isRecord(body) ? messagesOf(body).reduce((n, m) => n + textOf(m.content).length, 0) : 0
            return sendJson(res, 200, { input_tokens: Math.max(1, Math.ceil(chars / 4)) })
          }
          if (!isRecord(body)) {
            return sendJson(res, 400, { type: "error", error: { type: "invalid_request_error", message: "bad json" } })
          }
          const scripted = turn === undefined ? undefined : script[turn]
          if (scripted !== undefined) return answer(res, body, seq, scripted.blocks, stopReasonOf(scripted))
          return answer(res, body, seq, main ? DONE : SIDE_ANSWER, "end_turn")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ api: { url: `http://127.0.0.1:${port}`, requests }, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ api }) => api))
