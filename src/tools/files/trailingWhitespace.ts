/**
 * Claude Code 2.1.332 strips trailing whitespace from each line the model writes (Edit's
 * new_string in an existing file, Write's content), except in Markdown, where two trailing spaces
 * are a line break. Line ends (LF, CRLF, a lone CR) are kept as they are.
 */
const MARKDOWN = /\.(?:md|mdx)$/i

export const keepsTrailingWhitespace = (file: string): boolean => MARKDOWN.test(file)

export const stripTrailingWhitespace = (text: string): string => text.replace(/[^\r\n]+/g, (line) => line.trimEnd())

/** What is written for `text` in `file`: stripped, unless the file is Markdown. */
export const writtenText = (
  file: string,
  text: string
): string => (keepsTrailingWhitespace(file) ? text : stripTrailingWhitespace(text))
