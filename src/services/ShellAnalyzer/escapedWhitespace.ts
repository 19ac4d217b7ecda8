/**
 * A backslash before whitespace, as Claude Code reads it: on the raw text, quotes and comments
 * included. Only a line continuation between words (a backslash-newline after a blank) reads
 * plainly; one next to a pipe still leaves Claude Code with a pipeline part it cannot read.
 */

export type EscapedWhitespace =
  | { readonly _tag: "Escaped" }
  | { readonly _tag: "Unicode" }
  | { readonly _tag: "PipePart"; readonly parts: ReadonlyArray<string> }

const isBlank = (ch: string | undefined): boolean => ch === " " || ch === "\t"

/** The next character after `from` that is not a blank (a newline counts). */
const nextNonBlank = (text: string, from: number): string | undefined => {
  let i = from
  while (isBlank(text[i])) i++
  return text[i]
}

const previousNonBlank = (text: string, before: number): string | undefined => {
  let i = before
  while (i >= 0 && isBlank(text[i])) i--
  return i >= 0 ? text[i] : undefined
}

const isPipe = (text: string, at: number, ch: string | undefined): boolean =>
  ch === "|" && text[at - 1] !== "|" && text[at + 1] !== "|"

/** Whitespace other than a blank, a tab or a newline: bash reads it as part of a word. */
const UNICODE_WHITESPACE = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\v\f]/

export const escapedWhitespace = (command: string): EscapedWhitespace | undefined => {
  if (UNICODE_WHITESPACE.test(command)) return { _tag: "Unicode" }
  let nextToPipe = false
  for (let i = command.indexOf("\\"); i !== -1; i = command.indexOf("\\", i + 1)) {
    const after = command[i + 1]
    if (after !== " " && after !== "\t" && after !== "\n") continue
    if (after !== "\n" || !isBlank(command[i - 1])) return { _tag: "Escaped" }
    let before = i - 1
    while (before >= 0 && isBlank(command[before])) before--
    let next = i + 2
    while (isBlank(command[next])) next++
    if (
      isPipe(command, before, previousNonBlank(command, i - 1)) || isPipe(command, next, nextNonBlank(command, i + 2))
    ) {
      nextToPipe = true
    }
  }
  if (!nextToPipe) return undefined
  const parts = command.split(/(?<!\|)\|(?![|&])/).filter((part) => part.includes("\\\n")).map((part) => part.trim())
  return { _tag: "PipePart", parts }
}
