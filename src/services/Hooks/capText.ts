/**
 * Hook output strings given to the model (stderr reasons, `additionalContext`, `systemMessage`)
 * are capped at 10,000 characters (claude-code-spec §2.5); longer text is saved to a file in the
 * session directory and replaced by a preview plus the path.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { randomBytes } from "node:crypto"

export const MAX_HOOK_OUTPUT_CHARS = 10_000
const PREVIEW_CHARS = 2_000

export const capText = (text: string, sessionDir: string): string => {
  if (text.length <= MAX_HOOK_OUTPUT_CHARS) return text
  const preview = text.slice(0, PREVIEW_CHARS)
  try {
    const dir = path.join(sessionDir, "hook-output")
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${Date.now()}-${randomBytes(4).toString("hex")}.txt`)
    fs.writeFileSync(file, text, { flag: "wx" })
    return `${preview}\n\n... [hook output too long: ${text.length} characters; full output saved to ${file}]`
  } catch {
    const half = Math.floor((MAX_HOOK_OUTPUT_CHARS - 100) / 2)
    return `${text.slice(0, half)}\n... [${text.length - 2 * half} characters truncated] ...\n${text.slice(-half)}`
  }
}

/** Middle truncation for strings handed to hooks (PostToolUseFailure `error`, §2.4.4). */
export const middleTruncate = (text: string, max: number = MAX_HOOK_OUTPUT_CHARS): string => {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)}... [${text.length - 2 * half} characters truncated] ...${text.slice(-half)}`
}
