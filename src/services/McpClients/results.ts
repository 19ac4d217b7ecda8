/**
 * From an MCP `tools/call` result to `tool_result` content, and the `MAX_MCP_OUTPUT_TOKENS` cap.
 * Tokens are estimated as characters / 4; an image counts 1600 tokens.
 * Over the cap, text is cut to cap × 4 characters and the truncation notice is appended; what is
 * still over the tool's persistence threshold is then spilled by the pipeline's ResultStore.
 */
import type { DocumentBlock, ImageBlock, TextBlock, ToolResultContent } from "../../Messages.js"

/** The parts of a `CallToolResult` this module reads (the SDK's type is wider). */
export interface McpCallResult {
  readonly content?: ReadonlyArray<Record<string, unknown>>
  readonly structuredContent?: unknown
  readonly isError?: boolean
  readonly _meta?: Record<string, unknown>
}

export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000
export const IMAGE_TOKENS = 1600
const CHARS_PER_TOKEN = 4

/** Image types the Messages API takes; others become a text note. */
const API_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

type Block = TextBlock | ImageBlock | DocumentBlock

const text = (value: string): TextBlock => ({ type: "text", text: value })

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

const base64Bytes = (data: string): number => Math.floor((data.length * 3) / 4)

const blockOf = (item: Record<string, unknown>): Block | undefined => {
  switch (item.type) {
    case "text":
      return text(str(item.text) ?? "")
    case "image": {
      const mime = str(item.mimeType) ?? "application/octet-stream"
      const data = str(item.data) ?? ""
      return API_IMAGE_TYPES.has(mime)
        ? { type: "image", source: { type: "base64", media_type: mime, data } }
        : text(`[Image: ${mime}, ${base64Bytes(data)} bytes, not shown]`)
    }
    case "audio":
      return text(
        `[Audio: ${str(item.mimeType) ?? "unknown type"}, ${base64Bytes(str(item.data) ?? "")} bytes, not shown]`
      )
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>
      const uri = str(resource.uri) ?? ""
      const mime = str(resource.mimeType)
      if (typeof resource.text === "string") return text(resource.text)
      const blob = str(resource.blob) ?? ""
      if (mime !== undefined && API_IMAGE_TYPES.has(mime)) {
        return { type: "image", source: { type: "base64", media_type: mime, data: blob } }
      }
      return text(
        `[Resource: ${uri}${mime === undefined ? "" : ` (${mime})`}, ${
          base64Bytes(blob)
        } bytes of binary content, not shown]`
      )
    }
    case "resource_link": {
      const name = str(item.name) ?? str(item.uri) ?? "resource"
      const description = str(item.description)
      return text(
        `[Resource link: ${name}] ${str(item.uri) ?? ""}${description === undefined ? "" : `\n${description}`}`
      )
    }
    default:
      return undefined
  }
}

/** The blocks of a result; no content but `structuredContent` gives that as JSON text. */
const blocksOf = (result: McpCallResult): Array<Block> => {
  const blocks = (result.content ?? []).map(blockOf).filter((b): b is Block => b !== undefined)
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    blocks.push(text(JSON.stringify(result.structuredContent, null, 2)))
  }
  return blocks
}

/** A single text block becomes a plain string; no output at all gives Claude Code's notice. */
export const resultContent = (result: McpCallResult, toolName: string): ToolResultContent => {
  const blocks = blocksOf(result)
  if (blocks.length === 0 || blocks.every((b) => b.type === "text" && b.text.trim() === "")) {
    return `(${toolName} completed with no output)`
  }
  if (blocks.length === 1 && blocks[0]!.type === "text") return blocks[0]!.text
  return blocks
}

/** The text of an error result, for the model and the PostToolUseFailure hooks. */
export const errorText = (result: McpCallResult): string => {
  const joined = blocksOf(result)
    .map((b) => (b.type === "text" ? b.text : "[image]"))
    .join("\n")
  return joined.trim() === "" ? "The MCP tool reported an error without a message" : joined
}

export const estimateTokens = (content: ToolResultContent): number =>
  typeof content === "string"
    ? Math.ceil(content.length / CHARS_PER_TOKEN)
    : content.reduce((n, b) => n + (b.type === "text" ? Math.ceil(b.text.length / CHARS_PER_TOKEN) : IMAGE_TOKENS), 0)

export const truncationNotice = (maxTokens: number): string =>
  `[OUTPUT TRUNCATED - exceeded ${maxTokens} token limit]\n\nThe tool output was truncated. If this MCP server provides pagination or filtering tools, use them to retrieve specific portions of the data. If pagination is not available, inform the user that you are returning truncated data due to the tool output limit.`

/** Applies the output cap: unchanged when under it, else cut to the budget plus the notice. */
export const capContent = (
  content: ToolResultContent,
  maxTokens: number
): { readonly content: ToolResultContent; readonly truncated: boolean } => {
  if (estimateTokens(content) <= maxTokens) return { content, truncated: false }
  let budget = maxTokens * CHARS_PER_TOKEN
  const notice = `\n\n${truncationNotice(maxTokens)}`
  if (typeof content === "string") return { content: `${content.slice(0, budget)}${notice}`, truncated: true }
  const kept: Array<Block> = []
  for (const block of content) {
    if (budget <= 0) break
    if (block.type !== "text") {
      if (IMAGE_TOKENS * CHARS_PER_TOKEN <= budget) {
        kept.push(block)
        budget -= IMAGE_TOKENS * CHARS_PER_TOKEN
      }
      continue
    }
    kept.push(block.text.length <= budget ? block : text(block.text.slice(0, budget)))
    budget -= block.text.length
  }
  kept.push(text(truncationNotice(maxTokens)))
  return { content: kept, truncated: true }
}
