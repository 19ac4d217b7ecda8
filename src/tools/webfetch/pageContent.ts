/**
 * A downloaded body as text the model can read: HTML converted to Markdown, other text as it is
 * (decoded with the charset the server names, UTF-8 otherwise). Binary content is refused.
 */
import { Effect } from "effect"
import { ToolError } from "../../Errors.js"
import type { CachedPage } from "./cache.js"
import type { FetchedPage } from "./fetchPage.js"
import { isHtml, isText, type HtmlToMarkdown } from "./toMarkdown.js"

const charsetOf = (contentType: string): string => {
  const match = /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)
  return match?.[1]?.toLowerCase() ?? "utf-8"
}

const decode = (body: Uint8Array, contentType: string): string => {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`
    : bytes >= 1024
    ? `${Math.round(bytes / 1024)} KB`
    : `${bytes} bytes`

export const truncationNotice = (maxBytes: number): string =>
  `[Content truncated: the page is larger than ${formatBytes(maxBytes)}; only the first ${
    formatBytes(maxBytes)
  } were read.]`

export const toPageContent = (
  page: FetchedPage,
  maxBytes: number,
  htmlToMarkdown: HtmlToMarkdown
): Effect.Effect<CachedPage, ToolError> =>
  Effect.gen(function*() {
    const mediaType = page.contentType.split(";")[0]!.trim().toLowerCase()
    const head = decode(page.body.subarray(0, 512), page.contentType)
    if (!isText(page.contentType) && !isHtml(page.contentType, head)) {
      return yield* Effect.fail(
        new ToolError({
          reason: `WebFetch reads text and HTML only; ${page.url} returned ${mediaType} content (${
            formatBytes(page.bytes)
          }${page.truncated ? " or more" : ""}).`
        })
      )
    }
    const text = decode(page.body, page.contentType)
    const converted = isHtml(page.contentType, head)
      ? yield* Effect.tryPromise({
        try: () => htmlToMarkdown(text),
        catch: (error) =>
          new ToolError({
            reason: `Could not convert the HTML of ${page.url} to Markdown: ${
              error instanceof Error ? error.message : String(error)
            }`
          })
      })
      : text
    return {
      url: page.url,
      code: page.code,
      codeText: page.codeText,
      contentType: page.contentType,
      bytes: page.bytes,
      truncated: page.truncated,
      content: page.truncated ? `${converted}\n\n${truncationNotice(maxBytes)}` : converted
    } satisfies CachedPage
  })

export { formatBytes }
