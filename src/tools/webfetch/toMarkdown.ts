/**
 * HTML to Markdown with turndown. turndown (and its DOM) loads on first use only: it stays out of
 * the CLI bundle and costs nothing to commands that never fetch a page.
 */
import type TurndownService from "turndown"

let converter: Promise<TurndownService> | undefined

const load = (): Promise<TurndownService> => {
  converter ??= import("turndown").then((module) => {
    const Turndown = ((module as { default?: unknown }).default ?? module) as typeof TurndownService
    const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
    // Content a reader never sees; scripts would otherwise come through as text.
    service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"] as any)
    return service
  })
  converter.catch(() => {
    converter = undefined
  })
  return converter
}

export const htmlToMarkdown = async (html: string): Promise<string> => {
  const service = await load()
  return service.turndown(html).trim()
}

export const isHtml = (contentType: string, body: string): boolean => {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  if (type === "text/html" || type === "application/xhtml+xml") return true
  if (type === "" || type === "application/octet-stream") return /^\s*(<!doctype html|<html[\s>])/i.test(body.slice(0, 512))
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
