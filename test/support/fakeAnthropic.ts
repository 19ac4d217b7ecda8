/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests: serves queued responses — recorded SSE
 * streams (with delays or gates between events), JSON errors, dropped connections — and records
 * every request and the time each event was written, so tests can relate what the server did to
 * what the client did.
 *
 * SSE fixtures (test/fixtures/anthropic/*.sse) are raw `event:` / `data:` frames separated by blank
 * lines; a comment line `: delay <ms>` in a frame waits that long before sending it. `{{cwd}}` in
 * data is replaced by `vars.cwd`.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"

export interface SseFrame {
  readonly event: string
  readonly data: string
  readonly delayMs: number
  /** Sent only once this resolves (after the delay). */
  readonly gate?: Promise<unknown>
}

export type FakeResponse =
  | { readonly kind: "sse"; readonly frames: ReadonlyArray<SseFrame> }
  | { readonly kind: "json"; readonly status: number; readonly body: unknown }
  /** Accepts the request and closes the socket without answering. */
  | { readonly kind: "drop" }

export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: any
  readonly at: number
}

export interface SentEvent {
  /** Which response (0-based, in request order). */
  readonly response: number
  readonly index: number
  readonly type: string
  readonly at: number
}

export interface FakeAnthropic {
  readonly url: string
  readonly requests: Array<RecordedRequest>
  readonly sent: Array<SentEvent>
  enqueue(...responses: ReadonlyArray<FakeResponse>): void
  /** When the event of `type` (the nth, default first) of a response was written. */
  sentAt(response: number, type: string, nth?: number): number
  close(): Promise<void>
}

export interface FakeOptions {
  /** When set, requests without this key (x-api-key or Bearer) get a 401. */
  readonly apiKey?: string
}

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "fixtures", "anthropic")

export const parseSse = (text: string, vars: Readonly<Record<string, string>> = {}): Array<SseFrame> => {
  const frames: Array<SseFrame> = []
  for (const chunk of text.split(/\n\s*\n/)) {
    let event = ""
    let data = ""
    let delayMs = 0
    for (const line of chunk.split("\n")) {
      const delay = /^:\s*delay\s+(\d+)/.exec(line)
      if (delay) delayMs = Number(delay[1])
      else if (line.startsWith("event:")) event = line.slice(6).trim()
      else if (line.startsWith("data:")) data += line.slice(5).trim()
    }
    if (event === "" && data === "") continue
    for (const [key, value] of Object.entries(vars)) data = data.split(`{{${key}}}`).join(value)
    frames.push({ event, data, delayMs })
  }
  return frames
}

export const fixture = (name: string, vars: Readonly<Record<string, string>> = {}): Array<SseFrame> => {
  for (const value of Object.values(vars)) {
    if (/["\\]/.test(value)) throw new Error(`fixture variable ${value} needs no JSON escaping`)
  }
  return parseSse(fs.readFileSync(path.join(FIXTURES, `${name}.sse`), "utf8"), vars)
}

export const sse = (frames: ReadonlyArray<SseFrame>): FakeResponse => ({ kind: "sse", frames })

export const jsonError = (status: number, type: string, message: string): FakeResponse => ({
  kind: "json",
  status,
  body: { type: "error", error: { type, message } }
})

/** Builds frames from event objects (event name from `type`). */
export const framesOf = (events: ReadonlyArray<Record<string, unknown>>, delayMs = 0): Array<SseFrame> =>
  events.map((e) => ({ event: String(e.type), data: JSON.stringify(e), delayMs }))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const startFakeAnthropic = async (options: FakeOptions = {}): Promise<FakeAnthropic> => {
  const queue: Array<FakeResponse> = []
  const requests: Array<RecordedRequest> = []
  const sent: Array<SentEvent> = []
  const sockets = new Set<import("node:net").Socket>()

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const responseIndex = requests.length
      let body: unknown = undefined
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        body = Buffer.concat(chunks).toString("utf8")
      }
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, at: Date.now() })
      const given = req.headers["x-api-key"] ?? (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "")
      if (options.apiKey !== undefined && given !== options.apiKey) {
        res.writeHead(401, { "content-type": "application/json", "request-id": "req_fake_401" })
        res.end(
          JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } })
        )
        return
      }
      const response = queue.shift()
      if (response === undefined) {
        res.writeHead(500, { "content-type": "application/json" })
        res.end(
          JSON.stringify({ type: "error", error: { type: "api_error", message: "fake server: no response queued" } })
        )
        return
      }
      if (response.kind === "drop") {
        req.socket.destroy()
        return
      }
      if (response.kind === "json") {
        res.writeHead(response.status, {
          "content-type": "application/json",
          "request-id": `req_fake_${responseIndex}`
        })
        res.end(JSON.stringify(response.body))
        return
      }
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": `req_fake_${responseIndex}`
      })
      void (async () => {
        for (const [index, frame] of response.frames.entries()) {
          if (frame.delayMs > 0) await sleep(frame.delayMs)
          if (frame.gate !== undefined) await frame.gate
          if (res.destroyed) return
          res.write(`event: ${frame.event}\ndata: ${frame.data}\n\n`)
          sent.push({ response: responseIndex, index, type: frame.event, at: Date.now() })
        }
        res.end()
      })()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sent,
    enqueue: (...responses) => void queue.push(...responses),
    sentAt: (response, type, nth = 0) => {
      const hits = sent.filter((s) => s.response === response && s.type === type)
      const hit = hits[nth]
      if (hit === undefined) throw new Error(`response ${response} never sent ${type} #${nth}`)
      return hit.at
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
