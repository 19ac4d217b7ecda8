/**
 * HTML to Markdown with turndown. turndown (and its DOM) loads on first use only: it stays out of
 * the CLI bundle and costs nothing to commands that never fetch a page.
 */
import type TurndownService from "turndown"

const loadConverter = (): Promise<TurndownService> =>
  import("turndown").then((module) => {
    const Turndown = ((module as { default?: unknown }).default ?? module) as typeof TurndownService
    const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
    // Content a reader never sees; scripts would otherwise come through as text.
    service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"] as any)
    return service
  })

export type HtmlToMarkdown = (html: string) => Promise<string>

/** A converter of its own (kept by the WebFetch tool that made it), loaded on its first page. */
export const makeHtmlToMarkdown = (): HtmlToMarkdown => {
  let converter: Promise<TurndownService> | undefined
  return async (html) => {
    if (converter === undefined) {
      const loading = loadConverter()
      converter = loading
      // A failed load is tried again on the next page.
      loading.catch(() => {
        if (converter === loading) converter = undefined
      })
    }
    const service = await converter
    return service.turndown(html).trim()
  }
}

export const isHtml = (contentType: string, body: string): boolean => {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  if (type === "text/html" || type === "application/xhtml+xml") return true
  if (type === "" || type === "application/octet-stream") {
    return /^\s*(<!doctype html|<html[\s>])/i.test(body.slice(0, 512))
  }
  return false
}

/** Types read as text as they are (Markdown, plain text, JSON, XML, source code). */
export const isText = (contentType: string): boolean => {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  return (
    type === "" ||
    type.startsWith("text/") ||
    /[+/](json|xml|yaml|javascript|ecmascript|x-sh|x-python|markdown|csv)$/.test(type) ||
    type === "application/x-www-form-urlencoded"
  )
}
