/**
 * One WebFetch download: GET with @effect/platform's HttpClient on a Node agent whose DNS lookup
 * refuses internal addresses; same-host redirects followed (at most MAX_REDIRECTS), a redirect to
 * another host returned to the caller instead of followed; the body streamed and cut at
 * `maxBytes`. The agent lives in the call's scope, so interrupting the call closes its sockets.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import { Effect, Stream } from "effect"
import { STATUS_CODES } from "node:http"
import { ToolError } from "../../Errors.js"
import { BlockedAddressError, guardedLookup, type Resolver } from "./guardedLookup.js"
import { MAX_REDIRECTS } from "./settings.js"
import { checkUrl, normalizeHost, type InternalAccess } from "./urlPolicy.js"

export interface FetchedPage {
  /** The URL the content came from (after same-host redirects). */
  readonly url: string
  readonly code: number
  readonly codeText: string
  readonly contentType: string
  /** Bytes downloaded (at most maxBytes). */
  readonly bytes: number
  /** The body was longer than maxBytes and was cut. */
  readonly truncated: boolean
  readonly body: Uint8Array
}

export type FetchOutcome =
  | { readonly _tag: "Page"; readonly page: FetchedPage }
  | {
    readonly _tag: "Redirect"
    readonly originalUrl: string
    readonly redirectUrl: string
    readonly code: number
    readonly codeText: string
  }

export interface FetchOptions {
  readonly access: InternalAccess
  readonly maxBytes: number
  readonly userAgent: string
  /** DNS for the agent's lookup (tests); the system resolver by default. */
  readonly resolver?: Resolver
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308])

const defaultPort = (url: URL): string => url.port || (url.protocol === "https:" ? "443" : "80")

const withoutWww = (host: string): string => (host.startsWith("www.") ? host.slice(4) : host)

/**
 * A redirect WebFetch follows by itself: the same host (a `www.` prefix aside), the same port, no
 * credentials, and the same scheme or an upgrade to https. Anything else goes back to the model.
 */
export const isSameHostRedirect = (from: URL, to: URL): boolean =>
  (to.protocol === from.protocol || (from.protocol === "http:" && to.protocol === "https:")) &&
  to.username === "" &&
  to.password === "" &&
  (to.protocol !== from.protocol ? to.port === "" || to.port === "443" : defaultPort(to) === defaultPort(from)) &&
  withoutWww(normalizeHost(to.hostname)) === withoutWww(normalizeHost(from.hostname))

const statusText = (code: number): string => STATUS_CODES[code] ?? ""

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The innermost cause of an HTTP client error that says something to a person. */
const describeHttpError = (url: string) => (error: HttpClientError.HttpClientError): ToolError => {
  let cause: unknown = error.cause
  while (cause instanceof Error && !(cause instanceof BlockedAddressError) && cause.cause instanceof Error) {
    cause = cause.cause
  }
  if (cause instanceof BlockedAddressError) return new ToolError({ reason: cause.message })
  // a system error (connect ECONNREFUSED 127.0.0.1:9, getaddrinfo ENOTFOUND host) in Node's words, as Claude Code gives it
  if (cause instanceof Error && typeof (cause as { code?: unknown }).code === "string") {
    return new ToolError({ reason: cause.message })
  }
  return new ToolError({ reason: `Failed to fetch ${url}: ${cause === undefined ? error.message : errorText(cause)}` })
}

/** Reads at most `maxBytes` of the body and stops the download there. */
const readCapped = (stream: Stream.Stream<Uint8Array, unknown>, maxBytes: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    let truncated = false
    yield* Stream.runForEachWhile(stream, (chunk) =>
      Effect.sync(() => {
        const room = maxBytes - total
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          total += room
          truncated = true
          return false
        }
        chunks.push(chunk)
        total += chunk.length
        return true
      }))
    return { body: Buffer.concat(chunks, total), bytes: total, truncated }
  })

export const fetchPage = (start: URL, options: FetchOptions): Effect.Effect<FetchOutcome, ToolError> =>
  Effect.scoped(
    Effect.gen(function*() {
      let current = start
      // Loaded on the first fetch: the module also brings undici, a sixth of the CLI's start-up.
      const NodeHttpClient = yield* Effect.promise(() => import("@effect/platform-node/NodeHttpClient"))
      const agent = yield* NodeHttpClient.makeAgent({
        lookup: guardedLookup(options.access, () => current.href, options.resolver),
        keepAlive: false
      })
      const client = yield* NodeHttpClient.make.pipe(Effect.provideService(NodeHttpClient.HttpAgent, agent))
      for (let hop = 0;; hop++) {
        const request = HttpClientRequest.get(current, {
          headers: {
            "user-agent": options.userAgent,
            accept: "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5",
            "accept-encoding": "identity"
          }
        })
        const response = yield* client.execute(request).pipe(Effect.mapError(describeHttpError(current.href)))
        const code = response.status
        if (REDIRECT_CODES.has(code)) {
          const location = response.headers["location"]
          if (location === undefined || location === "") {
            return yield* Effect.fail(
              new ToolError({
                reason: `Failed to fetch ${current.href}: redirect (${code}) without a Location header.`
              })
            )
          }
          let next: URL
          try {
            next = new URL(location, current)
          } catch {
            return yield* Effect.fail(
              new ToolError({
                reason: `Failed to fetch ${current.href}: redirect to an invalid URL ${JSON.stringify(location)}.`
              })
            )
          }
          if (!isSameHostRedirect(current, next)) {
            return {
              _tag: "Redirect",
              originalUrl: start.href,
              redirectUrl: next.href,
              code,
              codeText: statusText(code)
            } satisfies FetchOutcome
          }
          if (hop >= MAX_REDIRECTS) {
            return yield* Effect.fail(
              new ToolError({
                reason: `Failed to fetch ${start.href}: too many redirects (more than ${MAX_REDIRECTS}).`
              })
            )
          }
          const checked = checkUrl(next.href, options.access)
          if (!checked.ok) return yield* Effect.fail(new ToolError({ reason: checked.reason }))
          current = checked.url
          continue
        }
        if (code < 200 || code >= 300) {
          return yield* Effect.fail(
            new ToolError({
              reason: `Request failed with status code ${code}${
                statusText(code) === "" ? "" : ` (${statusText(code)})`
              }: ${current.href}`
            })
          )
        }
        const body = yield* readCapped(response.stream, options.maxBytes).pipe(
          Effect.mapError((error) =>
            new ToolError({ reason: `Failed to read the response from ${current.href}: ${errorText(error)}` })
          )
        )
        return {
          _tag: "Page",
          page: {
            url: current.href,
            code,
            codeText: statusText(code),
            contentType: response.headers["content-type"] ?? "",
            ...body
          }
        } satisfies FetchOutcome
      }
    })
  )
