/**
 * What every request passes before the API sees it:
 *   - its Host names this server: a loopback name or address, one of this machine's addresses, or
 *     a name the server was given (`--allowed-host`). A web page that rebinds its own name to
 *     127.0.0.1 still sends its name, and is refused (DNS rebinding);
 *   - an Origin (a browser's request) must be one the server allows (`--cors-origin`): a page
 *     the user visits cannot drive the API, even with a simple POST;
 *   - its body declares its length (411 otherwise) and is at most `maxBodyBytes` (413 otherwise,
 *     before any of it is read).
 * CORS headers are answered only for the allowed origins.
 */
import type { HttpApp } from "@effect/platform"
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import * as net from "node:net"
import * as os from "node:os"

export interface HttpGuards {
  /** Host names the server answers to besides loopback names and this machine's addresses. */
  readonly allowedHosts: ReadonlyArray<string>
  /** Origins browsers may call the API from (CORS); none: a request that carries an Origin is refused. */
  readonly corsOrigins: ReadonlyArray<string>
  /** The largest request body accepted. */
  readonly maxBodyBytes: number
}

const refusal = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

const isLoopbackAddress = (address: string): boolean => {
  const lower = address.toLowerCase()
  if (net.isIPv4(lower)) return lower.startsWith("127.")
  if (lower === "::1") return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  return mapped !== null && mapped[1]!.startsWith("127.")
}

const localAddresses = (): ReadonlySet<string> =>
  new Set(
    Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((entry) => entry.address.toLowerCase().replace(/%.*$/, ""))
  )

/** The host part of a Host header, or undefined when the header is not `host[:port]`. */
export const hostOf = (header: string): { readonly name: string; readonly ip: boolean } | undefined => {
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/.exec(header)
  if (v6 !== null) return net.isIPv6(v6[1]!) ? { name: v6[1]!.toLowerCase(), ip: true } : undefined
  const plain = /^([A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(header)
  if (plain === null) return undefined
  const name = plain[1]!.toLowerCase()
  return { name, ip: net.isIPv4(name) }
}

/** Decides whether a Host header names this server. */
export const makeHostCheck = (allowedHosts: ReadonlyArray<string>) => {
  const names = new Set(["localhost", ...allowedHosts.map((h) => h.toLowerCase().replace(/\.$/, ""))])
  const addresses = localAddresses()
  return (header: string | undefined): boolean => {
    if (header === undefined) return false
    const host = hostOf(header)
    if (host === undefined) return false
    if (host.ip) return isLoopbackAddress(host.name) || addresses.has(host.name)
    // `localhost.` is the same name, written fully qualified
    return names.has(host.name.endsWith(".") ? host.name.slice(0, -1) : host.name)
  }
}

const normalOrigin = (origin: string) => origin.trim().toLowerCase().replace(/\/+$/, "")

const OPEN_PATHS = new Set(["/health", "/ready"])

/** Node parses up to `PARSER_HEADER_BYTES` of request line and headers; the app answers past these with 414 and 431. */
export const PARSER_HEADER_BYTES = 128 * 1024
const MAX_URL_BYTES = 16 * 1024
const MAX_HEADER_BYTES = 16 * 1024

/** The guards around the whole HTTP app (the API and its 404s alike). */
export const guard =
  (options: HttpGuards) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> => {
    const hostNamesServer = makeHostCheck(options.allowedHosts)
    const origins = new Set(options.corsOrigins.map(normalOrigin))
    const withCors = origins.size === 0
      ? app
      : HttpMiddleware.cors({
        allowedOrigins: [...origins],
        allowedHeaders: ["authorization", "content-type", "last-event-id"],
        allowedMethods: ["GET", "POST", "DELETE", "OPTIONS"],
        maxAge: 600
      })(app)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (request.url.length > MAX_URL_BYTES) {
        return refusal(
          414,
          "URITooLong",
          `the request URL has ${request.url.length} bytes; this server accepts at most ${MAX_URL_BYTES}`
        )
      }
      const headerBytes = Object.entries(request.headers).reduce(
        (sum, [name, value]) => sum + name.length + String(value).length + 4,
        0
      )
      if (headerBytes > MAX_HEADER_BYTES) {
        return refusal(
          431,
          "RequestHeaderFieldsTooLarge",
          `the request headers have ${headerBytes} bytes; this server accepts at most ${MAX_HEADER_BYTES}`
        )
      }
      const url = new URL(request.url, "http://server")
      const host = request.headers["host"]
      if (!OPEN_PATHS.has(url.pathname) && !hostNamesServer(host)) {
        return refusal(
          403,
          "Forbidden",
          `the Host header ${
            JSON.stringify(host ?? "")
          } does not name this server (loopback names and addresses, this machine's addresses, or a name given with --allowed-host)`
        )
      }
      const origin = request.headers["origin"]
      if (origin !== undefined && !origins.has(normalOrigin(origin))) {
        return refusal(
          403,
          "Forbidden",
          `requests from the web page ${origin} are not allowed (toolgate serve --cors-origin ${origin})`
        )
      }
      if (origin === undefined && request.headers["sec-fetch-site"] === "cross-site") {
        return refusal(403, "Forbidden", "cross-site requests from a web page are not allowed")
      }
      // a body of unknown length could only be refused half-read, with the connection cut: its length comes first
      if (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] !== undefined) {
        return refusal(411, "LengthRequired", "send the request body with a Content-Length header")
      }
      const declared = Number(request.headers["content-length"] ?? "0")
      if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
        return refusal(
          413,
          "PayloadTooLarge",
          `the request body has ${declared} bytes; this server accepts at most ${options.maxBodyBytes}`
        )
      }
      return yield* HttpServerRequest.withMaxBodySize(
        Effect.flatMap(
          bodyDepth(request),
          (depth) =>
            depth > MAX_BODY_DEPTH
              ? Effect.succeed(
                refusal(
                  400,
                  "InvalidRequest",
                  `the request body nests ${depth} levels deep; this server reads at most ${MAX_BODY_DEPTH}`
                )
              )
              : withCors
        ),
        Option.some(options.maxBodyBytes)
      )
    })
  }

/** Deeper JSON (100,000 `[`) overflows the stack of the code that decodes it or describes its errors. */
const MAX_BODY_DEPTH = 512

/**
 * How deep the request's JSON body nests (0 without a body). The body is read once: the request
 * keeps it for the API. A body that cannot be read is left for the API to answer.
 */
const bodyDepth = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<number> =>
  request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" ||
    request.headers["content-length"] === undefined
    ? Effect.succeed(0)
    : Effect.map(request.text, jsonDepth).pipe(Effect.orElseSucceed(() => 0))

/** The deepest nesting of arrays and objects in JSON text (strings skipped), without parsing it. */
export const jsonDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth)
    else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/**
 * What Node answers before a request reaches the app (a request line or headers past its limit,
 * bytes that are not HTTP): a status and a one-line body, then the rest of what the client sends
 * is read and dropped for a moment so that it reads the answer instead of a reset connection.
 */
export const answerClientError = (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: net.Socket): void => {
  if (socket.destroyed || !socket.writable) {
    socket.destroy()
    return
  }
  const raw = error.rawPacket
  const inRequestLine = raw !== undefined && /^[A-Z]+ /.test(raw.subarray(0, 16).toString("latin1")) &&
    !raw.includes("\r\n")
  const [status, reason, message] = error.code === "HPE_HEADER_OVERFLOW"
    ? inRequestLine
      ? [414, "URI Too Long", "the request URL is too long"]
      : [431, "Request Header Fields Too Large", "the request headers are too large"]
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout", "the request took too long to arrive"]
    : [400, "Bad Request", "the request is not valid HTTP"]
  const body = JSON.stringify({ _tag: reason.replace(/ /g, ""), message })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${
      Buffer.byteLength(body)
    }\r\n\r\n${body}`
  )
  socket.on("error", () => socket.destroy())
  socket.resume()
  setTimeout(() => socket.destroy(), 2_000).unref()
}
