/**
 * Edit's quote handling: curly and straight quotes match each other, and
 * the replacement takes the quote style the file uses where the match needed normalising.
 */
const LEFT_SINGLE = "\u2018"
const RIGHT_SINGLE = "\u2019"
const LEFT_DOUBLE = "\u201C"
const RIGHT_DOUBLE = "\u201D"

export const normalizeQuotes = (text: string): string =>
  text.replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, "\"")

/**
 * The text of the file that `search` stands for: itself when it occurs as is, otherwise the span
 * that matches once quotes are normalised (same length: each quote is one UTF-16 unit).
 */
export const findActualString = (content: string, search: string): string | undefined => {
  if (content.includes(search)) return search
  const index = normalizeQuotes(content).indexOf(normalizeQuotes(search))
  return index === -1 ? undefined : content.slice(index, index + search.length)
}

/** Rewrites the quotes of `newString` in the style of the matched file text. */
export const preserveQuoteStyle = (oldString: string, actualOldString: string, newString: string): string => {
  if (oldString === actualOldString) return newString
  let result = newString
  const curlyDouble = /[\u201C\u201D]/.test(actualOldString)
  const straightDouble = actualOldString.includes("\"")
  if (curlyDouble && !straightDouble) result = curlDoubleQuotes(result)
  else if (straightDouble && !curlyDouble) result = result.replace(/[\u201C\u201D]/g, "\"")
  const curlySingle = /[\u2018\u2019]/.test(actualOldString)
  const straightSingle = actualOldString.includes("'")
  if (curlySingle && !straightSingle) result = curlSingleQuotes(result)
  else if (straightSingle && !curlySingle) result = result.replace(/[\u2018\u2019]/g, "'")
  return result
}

const OPENING_CONTEXT = /[\s([{\u2014\u2013]/

const opens = (text: string, index: number): boolean => index === 0 || OPENING_CONTEXT.test(text[index - 1]!)

const curlDoubleQuotes = (text: string): string =>
  text.replace(/"/g, (_quote, index: number) => (opens(text, index) ? LEFT_DOUBLE : RIGHT_DOUBLE))

const LETTER = /\p{L}/u

const curlSingleQuotes = (text: string): string =>
  text.replace(/'/g, (_quote, index: number) => {
    const before = text[index - 1]
    const after = text[index + 1]
    if (before !== undefined && after !== undefined && LETTER.test(before) && LETTER.test(after)) return RIGHT_SINGLE
    return opens(text, index) ? LEFT_SINGLE : RIGHT_SINGLE
  })
