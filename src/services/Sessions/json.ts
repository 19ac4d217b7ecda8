/**
 * Values recorded in storage are plain JSON: an input that never parsed is kept as its text
 * (as transcripts keep it), and anything JSON cannot carry is dropped.
 */
import { UnparsableInput } from "../../Messages.js"

export const toJsonValue = (value: unknown): unknown => {
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => (v instanceof UnparsableInput ? { unparsable_input: v.text, reason: v.reason } : v)
  )
  return text === undefined ? null : (JSON.parse(text) as unknown)
}
