/**
 * A command shown on one line with control and invisible characters escaped, so what a person
 * sees is what runs (`\u200b`, `\r` must be visible).
 */

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

// C0/C1 controls, DEL, soft hyphen, zero-width and bidi controls, word joiners, invisible
// operators, variation selectors, BOM, interlinear annotations, Unicode tags.
const INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu

export const escapeInvisible = (text: string): string =>
  text.replace(INVISIBLE, (c) => NAMED[c] ?? codePoint(c.codePointAt(0)!))

const codePoint = (cp: number): string => {
  const hex = cp.toString(16)
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`
}

export const renderCommand = (command: string, max = 500): string => {
  const line = escapeInvisible(command)
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
