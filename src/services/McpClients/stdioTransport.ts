/**
 * An MCP stdio transport whose server runs as the leader of its own process group. The SDK's
 * `StdioClientTransport` only signals its direct child (in @modelcontextprotocol/sdk 1.x), so a server
 * started through `npx`, a shell script or `uv run` leaves its real process behind. Here closing
 * sends SIGTERM to the whole group, waits a grace period, then SIGKILLs what is left, and only
 * resolves once no process of the group is alive (zombies aside).
 *
 * The server starts on a leash (src/internal/leash.ts): a process it starts that moves itself into
 * another session (`setsid`), out of reach of the group kill, still ends with the server.
 */
import { spawn, type ChildProcess } from "node:child_process"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { exitOf, leash } from "../../internal/leash.js"
import { killGroupPromise, trackGroup } from "../../internal/processGroup.js"
import { LineBuffer, responseIdOf } from "./lineBuffer.js"
import type { McpSdk } from "./sdk.js"

export interface StdioServerParams {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  /** How long the group gets between SIGTERM and SIGKILL. */
  readonly graceMs?: number
  /** Largest message accepted (default 64 MB); a larger response fails its request. */
  readonly maxMessageBytes?: number
}

/** How much of a stray stdout line to quote. */
const STRAY_LINE_CHARS = 200
/** How much of the server's stderr to keep for error messages. */
const STDERR_TAIL_CHARS = 4000
/** Largest single message accepted (the SDK's default is 10 MB). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T) => void

  private child: ChildProcess | undefined
  private readonly lines: LineBuffer
  private stderrTail = ""
  private exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
  private failure: string | undefined
  /** Set by the first message the server sent that could be read. */
  private heard = false
  /** The first line the server wrote on stdout that is not JSON-RPC, cut short (for error messages). */
  private strayLine: string | undefined
  private closed = false
  private closing: Promise<void> | undefined

  constructor(
    private readonly sdk: McpSdk,
    private readonly params: StdioServerParams
  ) {
    this.lines = new LineBuffer(params.maxMessageBytes ?? MAX_MESSAGE_BYTES)
  }

  /** The server's pid, which is also its process group id. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  /** The last few thousand characters the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail.trim()
  }

  /** How the server process ended, when it did so on its own. */
  get exitDescription(): string | undefined {
    if (this.failure !== undefined) return this.failure
    if (this.exit === undefined) return undefined
    return this.exit.signal !== null ? `killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("transport already started"))
    return new Promise((resolve, reject) => {
      let spawned = false
      const started = leash(this.params.command, this.params.args, this.params.env.PATH)
      const child = spawn(started.file, [...started.args], {
        cwd: this.params.cwd,
        env: this.params.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        windowsHide: true
      })
      this.child = child
      trackGroup(child.pid, { leashed: started.leashed })
      child.once("error", (error) => {
        if (!spawned) {
          this.closed = true
          reject(describeSpawnError(error, this.params.command))
        } else this.onerror?.(error)
      })
      child.once("spawn", () => {
        spawned = true
        resolve()
      })
      child.once("exit", (code, signal) => {
        this.exit = exitOf(started.leashed, code, signal)
        // stdout may stay open in a grandchild; the server itself is gone either way
        setTimeout(() => this.markClosed(), 100).unref()
      })
      child.once("close", () => this.markClosed())
      child.stdout?.on("data", (chunk: Buffer) => {
        for (const line of this.lines.push(chunk)) {
          if (this.closed) return
          if (line._tag === "Oversized") this.refuse(line.bytes, line.head, line.tail)
          else this.deliver(line.text)
        }
      })
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS)
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("error", (error) => this.onerror?.(error))
    })
  }

  /** Bytes held for the message being received (bounded by the message limit). */
  get bufferedBytes(): number {
    return this.lines.bufferedBytes
  }

  /** The first line the server wrote on stdout that is not a JSON-RPC message, if any. */
  get stray(): string | undefined {
    return this.strayLine
  }

  /**
   * A line that is not JSON-RPC is skipped (servers print banners on stdout), except one that
   * looks like JSON before the server said anything readable: a server answering `initialize`
   * with something else will never answer it, so it fails now, naming the line, instead of at
   * MCP_TIMEOUT.
   */
  private deliver(text: string) {
    if (text.trim() === "") return
    let message: JSONRPCMessage
    try {
      message = this.sdk.deserializeMessage(text)
    } catch (error) {
      const line = text.trim().length > STRAY_LINE_CHARS ? `${text.trim().slice(0, STRAY_LINE_CHARS)}…` : text.trim()
      this.strayLine ??= line
      if (!this.heard && /^[[{]/.test(text.trim())) {
        this.failure = `answered with a line that is not a JSON-RPC message (${line})`
        this.onerror?.(new Error(`the server ${this.failure}`))
        void this.close()
        return
      }
      this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message: ${(error as Error).message}`))
      return
    }
    this.heard = true
    this.onmessage?.(message)
  }

  /**
   * A message over the limit was dropped as it arrived. When it answered a request, that request
   * fails with a clear error and the connection stays; otherwise nothing can tell what was lost,
   * and the server is disconnected.
   */
  private refuse(bytes: number, head: string, tail: string) {
    const limit = this.params.maxMessageBytes ?? MAX_MESSAGE_BYTES
    const id = responseIdOf(head, tail)
    const what = `a message of ${megabytes(bytes)}, over the ${megabytes(limit)} limit of one MCP message`
    if (id !== undefined) {
      this.onmessage?.(
        {
          jsonrpc: "2.0",
          id,
          error: { code: -32603, message: `The server sent ${what}; the result was refused` }
        } as JSONRPCMessage
      )
      return
    }
    this.failure = `was disconnected: it sent ${what}`
    this.onerror?.(new Error(`the server sent ${what}`))
    void this.close()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (stdin === undefined || stdin === null || this.closed || !stdin.writable) {
        reject(new Error("Not connected"))
        return
      }
      if (stdin.write(this.sdk.serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Idempotent: every caller waits for the same shutdown. */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    const child = this.child
    if (child !== undefined) {
      try {
        child.stdin?.end()
      } catch {
        // already closed
      }
      if (child.pid !== undefined) await killGroupPromise(child.pid, this.params.graceMs ?? 2000)
      child.stdout?.destroy()
      child.stderr?.destroy()
    }
    this.lines.clear()
    this.markClosed()
  }

  private markClosed() {
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`

const describeSpawnError = (error: NodeJS.ErrnoException, command: string): Error => {
  switch (error.code) {
    case "ENOENT":
      return new Error(`command not found: ${command}`)
    case "EACCES":
      return new Error(`command is not executable: ${command}`)
    default:
      return new Error(`could not start ${command}: ${error.message}`)
  }
}
