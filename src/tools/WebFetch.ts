/**
 * WebFetch: fetches a URL, turns HTML into Markdown, and
 * answers the prompt about it with the ModelClient when one is in the context (the Markdown
 * itself otherwise). http is upgraded to https (loopback hosts excepted); a redirect to another
 * host is reported to the model, not followed; pages are cached for 15 minutes.
 *
 * Internal targets: loopback, private-network, link-local and reserved addresses — as IP
 * literals, `localhost` names, or what a host name resolves to — are refused in every permission
 * mode unless an allow rule names the host exactly (`WebFetch(domain:127.0.0.1)`). The check runs
 * when the call starts (after the permission stage, so an unapproved host asks first, as in
 * Claude Code; the input is final there, hook changes included) and at connection time on every
 * resolved address (see webfetch/guardedLookup.ts). The rules come from the Settings service in
 * the fiber's context.
 * Domain allow/deny/ask rules themselves are the permission engine's (subject `{kind:"url"}`).
 */
import { Clock, Duration, Effect, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { ZodIssue, zodIssue } from "../internal/formatIssues.js"
import { buildTool, reject, type ToolContext, type ToolResult } from "../Tool.js"
import { described, optional, SafeIntLike } from "./schemas.js"
import { currentInternalAccess } from "./webfetch/access.js"
import { answerAboutPage } from "./webfetch/answer.js"
import { makePageCache, type CachedPage, type PageCache } from "./webfetch/cache.js"
import { fetchPage } from "./webfetch/fetchPage.js"
import { BlockedAddressError, resolveChecked } from "./webfetch/guardedLookup.js"
import { formatBytes, toPageContent } from "./webfetch/pageContent.js"
import { makeHtmlToMarkdown } from "./webfetch/toMarkdown.js"
import { redirectMessage } from "./webfetch/redirect.js"
import { MAX_MARKDOWN_FOR_MODEL, webFetchSettings } from "./webfetch/settings.js"
import { checkUrl, DOTLESS_HOST, literalClass, WEB_FETCH_TOOL_NAME, type InternalAccess } from "./webfetch/urlPolicy.js"

/** For checking only the form of a URL: no host is refused here. */
const ANY_HOST: InternalAccess = { allows: () => true, hosts: [] }

export { WEB_FETCH_TOOL_NAME }

const parsesAsUrl = (text: string): boolean => {
  try {
    new URL(text.trim())
    return true
  } catch {
    return false
  }
}

export const WebFetchInput = Schema.Struct({
  url: Schema.String.pipe(
    Schema.filter(parsesAsUrl, { [ZodIssue]: () => zodIssue.invalidFormat("url", "Invalid URL") })
  ).annotations({
    description: "The URL to fetch content from",
    jsonSchema: { type: "string", format: "uri", description: "The URL to fetch content from" }
  }),
  prompt: Schema.String.annotations({ description: "The prompt to run on the fetched content" }),
  offset: optional(
    described(
      SafeIntLike({ minimum: 0 }),
      "Where in the page text to start reading (a character position): to read on through a long page, give the offset the previous result named."
    )
  )
})
export type WebFetchInput = typeof WebFetchInput.Type

export interface WebFetchOutput {
  /** The URL as the model gave it. */
  readonly url: string
  /** Where the content came from (https upgrade and same-host redirects applied). */
  readonly finalUrl: string
  readonly code: number
  readonly codeText: string
  readonly bytes: number
  /** What the model reads: the answer to the prompt, the Markdown, or the redirect notice. */
  readonly result: string
  readonly durationMs: number
  readonly cached: boolean
  /** The model that answered the prompt; absent when the Markdown itself is the result. */
  readonly answeredBy?: string
}

const PROMPT = `Fetches a URL and answers a prompt about its content.

- Takes a URL and a prompt. HTML is converted to Markdown; a model then reads the page and answers the prompt (without a model, the Markdown itself is returned).
- The URL must be a fully-formed http:// or https:// URL; http is upgraded to https.
- Read-only: it never changes anything. Results of the same URL are cached for 15 minutes.
- When a URL redirects to a different host, the result says so and gives the new URL: call WebFetch again with it.
- Loopback and private-network hosts are refused unless an allow rule names the host (WebFetch(domain:<host>)).
- If an MCP tool for web fetching is available, prefer it.`

export interface WebFetchToolOptions {
  readonly cache?: PageCache
  readonly userAgent?: string
}

const fail = (reason: string) => Effect.fail(new ToolError({ reason }))

export const makeWebFetchTool = (options: WebFetchToolOptions = {}) => {
  const cache = options.cache ?? makePageCache()
  const userAgent = options.userAgent ?? "toolgate-WebFetch/0.1"
  const htmlToMarkdown = makeHtmlToMarkdown()

  const download = (url: URL, timeoutMs: number, maxBytes: number, access: InternalAccess) =>
    fetchPage(url, { access, maxBytes, userAgent }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(timeoutMs),
        onTimeout: () => new ToolError({ reason: `WebFetch timed out after ${timeoutMs} ms fetching ${url.href}.` })
      })
    )

  const run = Effect.fn("WebFetch.call")(function*(input: WebFetchInput, ctx: ToolContext) {
    const startedAt = yield* Clock.currentTimeMillis
    const settings = yield* webFetchSettings
    const access = yield* currentInternalAccess
    const form = checkUrl(input.url, ANY_HOST)
    if (form.ok && !form.host.includes(".")) return yield* fail(DOTLESS_HOST)
    const checked = checkUrl(input.url, access)
    if (!checked.ok) return yield* fail(checked.reason)
    const url = checked.url
    // A clear refusal for a host name that resolves inward; the agent's lookup checks again per connection.
    if (literalClass(checked.host) === undefined) {
      const refusal = yield* Effect.promise(() =>
        resolveChecked(checked.host, access, url.href).then(
          () => undefined,
          // DNS failures surface from the request itself; only a refusal ends the call here.
          (error) => (error instanceof BlockedAddressError ? error.message : undefined)
        )
      ).pipe(
        Effect.timeoutTo({
          duration: Duration.millis(settings.timeoutMs),
          onSuccess: (r) => r,
          onTimeout: () => undefined
        })
      )
      if (refusal !== undefined) return yield* fail(refusal)
    }
    yield* ctx.reportProgress({ message: `Fetching ${url.href}` })
    let page: CachedPage | undefined = yield* cache.get(url.href, settings.cacheTtlMs)
    const cached = page !== undefined
    if (page === undefined) {
      const outcome = yield* download(url, settings.timeoutMs, settings.maxBytes, access)
      if (outcome._tag === "Redirect") {
        const output: WebFetchOutput = {
          url: input.url,
          finalUrl: url.href,
          code: outcome.code,
          codeText: outcome.codeText,
          bytes: 0,
          result: redirectMessage({ ...outcome, prompt: input.prompt }),
          durationMs: (yield* Clock.currentTimeMillis) - startedAt,
          cached: false
        }
        return { data: output } satisfies ToolResult<WebFetchOutput>
      }
      page = yield* toPageContent(outcome.page, settings.maxBytes, htmlToMarkdown)
      yield* cache.set(url.href, page)
    }
    const offset = input.offset ?? 0
    if (offset > 0 && offset >= page.content.length) {
      return yield* fail(`offset ${offset} is past the end of the page text (${page.content.length} characters).`)
    }
    const text = page.content.slice(offset)
    const answer = yield* answerAboutPage(text, input.prompt)
    const readTo = offset + Math.min(text.length, MAX_MARKDOWN_FOR_MODEL)
    const goesOn = answer._tag === "Model" && readTo < page.content.length
      ? `\n\n[The page text goes on after character ${readTo} of ${page.content.length}: call WebFetch again with offset: ${readTo} to read on.]`
      : ""
    const output: WebFetchOutput = {
      url: input.url,
      finalUrl: page.url,
      code: page.code,
      codeText: page.codeText,
      bytes: page.bytes,
      result: answer._tag === "Model" ? `${answer.text}${goesOn}` : text,
      durationMs: (yield* Clock.currentTimeMillis) - startedAt,
      cached,
      ...(answer._tag === "Model" ? { answeredBy: answer.model } : {})
    }
    return { data: output } satisfies ToolResult<WebFetchOutput>
  })

  return buildTool<WebFetchInput, WebFetchOutput>({
    name: WEB_FETCH_TOOL_NAME,
    knownAs: ["web_fetch"],
    shouldDefer: true,
    inputSchema: WebFetchInput,
    description: "Fetch a web page (HTML as Markdown) and answer a prompt about its content.",
    prompt: PROMPT,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    interruptBehavior: () => "cancel",
    maxResultSizeChars: 100_000,
    permissionSubject: (input) => ({ kind: "url", url: input.url }),
    // Only the URL's form here: an internal host is refused when the call runs (the input it gets is
    // final, after hooks and approvals), so that an unapproved host asks first, as in Claude Code.
    validateInput: (input) => {
      const checked = checkUrl(input.url, ANY_HOST)
      return checked.ok ? Effect.void : reject(WEB_FETCH_TOOL_NAME, checked.reason)
    },
    call: run,
    mapResult: (output) => output.result,
    userFacingName: () => "Fetch",
    renderUse: (input) => input.url,
    renderResult: (output) =>
      output.bytes === 0 && output.code >= 300 && output.code < 400
        ? `Redirected (${output.code}) to another host`
        : `Received ${formatBytes(output.bytes)} (${output.code}${
          output.codeText === "" ? "" : ` ${output.codeText}`
        })${output.cached ? ", cached" : ""}`
  })
}

export const WebFetchTool = makeWebFetchTool()
