/**
 * Hook output strings given to the model are bounded as Claude Code bounds them: a context
 * (`additionalContext`, plain stdout) over 10,000 characters is replaced by a preview and the
 * path of a file holding it whole; a blocking error (a deny reason, exit-2 stderr) over 50,000
 * characters keeps its head and tail, then the same preview block. Files go to the session's
 * `tool-results/` folder.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

export const MAX_HOOK_CONTEXT_CHARS = 10_000
export const MAX_HOOK_BLOCKING_CHARS = 50_000
const PREVIEW_CHARS = 2_000

/** Caps a context; `cap.blocking` caps a blocking error. */
export interface Cap {
  (text: string): string
  readonly blocking: (text: string) => string
}

/** Where a capped text is saved: the session, the event, the call (when there is one). */
export interface CapPlace {
  readonly sessionDir: string
  readonly event: string
  readonly toolUseId?: string
}

/** `58.6KB`, `1.4MB`, as Claude Code writes sizes. */
export const formatSize = (bytes: number): string => {
  const oneDecimal = (n: number) => n.toFixed(1).replace(/\.0$/, "")
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${oneDecimal(bytes / 1024)}KB`
  return `${oneDecimal(bytes / (1024 * 1024))}MB`
}

const save = (place: CapPlace, field: string, text: string): string | undefined => {
  const hash = createHash("md5").update(text).digest("hex")
  const name = ["hook", ...(place.toolUseId === undefined ? [] : [place.toolUseId]), place.event, hash, field].join("-")
    .replace(/[^A-Za-z0-9_.-]/g, "_")
  const file = path.join(place.sessionDir, "tool-results", `${name}.txt`)
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
    return file
  } catch {
    return undefined
  }
}

const persisted = (place: CapPlace, field: string, text: string): string => {
  const file = save(place, field, text)
  const where = file === undefined ? "It could not be saved to a file." : `Full output saved to: ${file}`
  return `<persisted-output>\nOutput too large (${
    formatSize(Buffer.byteLength(text))
  }). ${where}\n\nPreview (first 2KB):\n${text.slice(0, PREVIEW_CHARS)}\n...\n</persisted-output>`
}

export const capFor = (place: CapPlace): Cap => {
  const context = (
    text: string
  ) => (text.length <= MAX_HOOK_CONTEXT_CHARS ? text : persisted(place, "additionalContext", text))
  const blocking = (text: string) => {
    if (text.length <= MAX_HOOK_BLOCKING_CHARS) return text
    const half = MAX_HOOK_BLOCKING_CHARS / 2
    return `${text.slice(0, half)}\n\n... [${text.length - 2 * half} characters truncated] ...\n\n${
      text.slice(-half)
    }\n\n${persisted(place, "blockingError", text)}`
  }
  return Object.assign(context, { blocking })
}

/** Middle truncation for strings handed to hooks (PostToolUseFailure `error`). */
export const middleTruncate = (text: string, max: number = MAX_HOOK_CONTEXT_CHARS): string => {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)}... [${text.length - 2 * half} characters truncated] ...${text.slice(-half)}`
}
