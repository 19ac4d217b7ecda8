/**
 * Checks on the raw command text before parsing: characters that
 * bash and the parser read differently (CR, VT, NUL…), invisible Unicode that makes approval
 * prompts lie, and zsh-only syntax.
 */
import { MAX_COMMAND_LENGTH } from "./parser.js"

// Tab and newline are the only control characters a command may contain.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/
// Unicode spaces other than U+0020 (the Zs category without it), line/paragraph separators, format characters (zero-width,
// bidi controls, BOM, tags), private use, surrogates, unassigned, and invisible "letters"
// (Hangul fillers, Mongolian/Khmer vowel marks, variation selectors, combining grapheme joiner).
const INVISIBLE =
  /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\p{Zl}\p{Zp}\p{Cf}\p{Co}\p{Cs}\p{Cn}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2800\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/u

const describeChar = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`

/** Why the text may not be analysed at all, or undefined when it may. */
export const checkHygiene = (command: string): string | undefined => {
  if (command.length > MAX_COMMAND_LENGTH) return `the command is longer than ${MAX_COMMAND_LENGTH} characters`
  const control = CONTROL.exec(command)
  if (control !== null) return `the command contains a control character (${describeChar(control[0])})`
  const invisible = INVISIBLE.exec(command)
  if (invisible !== null) {
    return `the command contains an invisible or non-standard Unicode character (${describeChar(invisible[0])})`
  }
  return undefined
}

/** Escapes control and invisible characters for display in prompts and messages. */
export const escapeForDisplay = (text: string): string =>
  text.replace(new RegExp(`${CONTROL.source}|${INVISIBLE.source}`, "gu"), (ch) => {
    if (ch === "\r") return "\\r"
    if (ch === "\u000B") return "\\v"
    if (ch === "\u0000") return "\\0"
    const code = ch.codePointAt(0)!
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`
  })
