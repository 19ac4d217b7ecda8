/**
 * `toolgate serve` for tests: the bundled CLI started as a process on 127.0.0.1 (a free port),
 * stopped by pid; a small HTTP client; an event stream reader; scripted sessions as JSONL.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const bin = path.join(root, "dist", "toolgate.cjs")

export interface Served {
  readonly url: string
  /** The server token it generated and showed at start (when none was given). */
  readonly token: string | undefined
  readonly pid: number
  readonly child: ChildProcess
  stderr(): string
  stdout(): string
  /** Sends the signal and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

export interface ServeOptions {
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
  /** The HTTP port (default 0: a free one). */
  readonly port?: number
  /** Most time to wait for "listening on" (a loaded machine starts slowly). */
  readonly startTimeoutMs?: number
  /** Options for node itself (e.g. `--cpu-prof` to profile the server). */
  readonly nodeArgs?: ReadonlyArray<string>
}

export const startServer = (options: ServeOptions): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      ...(options.nodeArgs ?? []),
      bin,
      "serve",
      "--port",
      String(options.port ?? 0),
      ...options.args
    ], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", ...options.env }
    })
    let stderr = ""
    let stdout = ""
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`toolgate serve did not start in time:\n${stderr}`))
    }, options.startTimeoutMs ?? 60_000)
    child.stdout!.on("data", (d) => (stdout += String(d)))
    child.stderr!.on("data", (d) => {
      stderr += String(d)
      const m = /listening on (http:\/\/\S+)/.exec(stderr)
      if (m !== null) {
        clearTimeout(timer)
        resolve({
          url: m[1]!,
          token: /server token \([^)]*\): (\S+)/.exec(stderr)?.[1],
          pid: child.pid!,
          child,
          stderr: () => stderr,
          stdout: () => stdout,
          stop: async (signal = "SIGTERM") => {
            if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal)
            await exited
          }
        })
      }
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`toolgate serve exited (${code ?? signal}) before listening:\n${stderr}\n${stdout}`))
    })
  })

export interface Reply {
  readonly status: number
  readonly body: any
  readonly text: string
}

export const request = async (
  url: string,
  method: string,
  route: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}
): Promise<Reply> => {
  const response = await fetch(url + route, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...options.headers
    },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) })
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON (the transcript, an event stream)
  }
  return { status: response.status, body, text }
}

/** Creates a session (with the server's token, if any): its id and token; anything but 201 throws with the answer. */
export const createSession = async (
  url: string,
  serverToken: string | undefined,
  body: Record<string, unknown>
): Promise<{ readonly id: string; readonly token: string }> => {
  const created = await request(url, "POST", "/sessions", {
    body,
    ...(serverToken === undefined ? {} : { token: serverToken })
  })
  if (created.status !== 201) throw new Error(`creating a session answered ${created.status}: ${created.text}`)
  return created.body as { id: string; token: string }
}

export interface SseEvent {
  readonly id: number
  readonly type: string
  readonly data: any
}

export interface EventReader {
  readonly events: Array<SseEvent>
  /** Resolves with the first event of `type` (already seen or still to come). */
  waitFor(type: string, predicate?: (e: SseEvent) => boolean): Promise<SseEvent>
  /** Resolves when the server ends the stream (or it is closed here). */
  readonly ended: Promise<void>
  close(): void
}

/** Follows a session's event stream (server-sent events) until closed. */
export const readEvents = (url: string, sessionId: string, token: string, query = ""): EventReader => {
  const events: Array<SseEvent> = []
  const waiters: Array<{ type: string; predicate: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = []
  const controller = new AbortController()
  const push = (event: SseEvent) => {
    events.push(event)
    for (const w of [...waiters]) {
      if (w.type === event.type && w.predicate(event)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(event)
      }
    }
  }
  const ended = (async () => {
    const response = await fetch(`${url}/sessions/${sessionId}/events${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal
    })
    const decoder = new TextDecoder()
    let buffer = ""
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields = Object.fromEntries(
          frame
            .split("\n")
            .filter((line) => !line.startsWith(":") && line.includes(": "))
            .map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)])
        )
        if (fields.event !== undefined) {
          push({ id: Number(fields.id), type: fields.event, data: JSON.parse(fields.data ?? "null") })
        }
      }
    }
  })().catch(() => {})
  return {
    events,
    ended,
    waitFor: (type, predicate = () => true) => {
      const seen = events.find((e) => e.type === type && predicate(e))
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve) => waiters.push({ type, predicate, resolve }))
    },
    close: () => controller.abort()
  }
}

/** A scripted session: one `turn` line per model turn. */
export const scriptOf = (
  turns: ReadonlyArray<{ readonly content: ReadonlyArray<Record<string, unknown>>; readonly stop_reason: string }>
): string => turns.map((turn) => JSON.stringify({ type: "turn", ...turn })).join("\n")

export const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({
  type: "tool_use",
  id,
  name,
  input
})
export const text = (value: string) => ({ type: "text", text: value })

/** Polls `check` until it returns a value (a generous bound; never a timed assertion). */
export const eventually = async <A>(
  check: () => Promise<A | undefined> | A | undefined,
  timeoutMs = 60_000,
  everyMs = 50
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error("condition not reached in time")
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/** One streamed Messages API response for the fake Anthropic server: the blocks, then the stop reason. */
export const anthropicTurn = (
  id: string,
  content: ReadonlyArray<Record<string, unknown>>,
  stopReason: string
): Array<Record<string, unknown>> => [
  {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 }
    }
  },
  ...content.flatMap((block, index): Array<Record<string, unknown>> =>
    block.type === "text"
      ? [
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } },
        { type: "content_block_stop", index }
      ]
      : [
        { type: "content_block_start", index, content_block: { ...block, input: {} } },
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
        },
        { type: "content_block_stop", index }
      ]
  ),
  { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } },
  { type: "message_stop" }
]

/** A raw HTTP/1.1 request (node:http), for headers fetch will not send as given (Host). */
export const rawRequest = (
  url: string,
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string
): Promise<{ readonly status: number; readonly text: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const req = http.request(
      { host: target.hostname, port: Number(target.port), method, path: route, headers, setHost: false },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += String(d)))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/**
 * Sends tool_use blocks as an assistant message and answers every permission question with
 * `allow` (as a session's own token holder can), until the input finishes; its tool_result texts by id.
 */
export const runApproving = async (
  url: string,
  session: { id: string; token: string },
  blocks: ReadonlyArray<Record<string, unknown>>
) => {
  const key = `k${Math.random().toString(36).slice(2)}`
  const sent = await request(url, "POST", `/sessions/${session.id}/messages?wait=false`, {
    token: session.token,
    body: { role: "assistant", content: blocks, key }
  })
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${sent.text}`)
  for (;;) {
    const input = await request(url, "GET", `/sessions/${session.id}/messages/${key}?wait=false`, {
      token: session.token
    })
    if (input.body.status === "done" || input.body.status === "failed") {
      const results = (input.body.messages?.[1]?.content ?? []) as Array<
        { tool_use_id: string; content: unknown; is_error?: boolean }
      >
      return new Map(
        results.map((
          r
        ) => [r.tool_use_id, {
          text: typeof r.content === "string" ? r.content : JSON.stringify(r.content),
          isError: r.is_error === true
        }])
      )
    }
    const open = await request(url, "GET", `/sessions/${session.id}/approvals?wait=true&timeout=1`, {
      token: session.token
    })
    for (const question of (open.body ?? []) as Array<{ toolUseId: string }>) {
      await request(url, "POST", `/sessions/${session.id}/approvals/${question.toolUseId}`, {
        token: session.token,
        body: { decision: "allow", scope: "once" }
      })
    }
  }
}
