/** The string replacement Edit performs on the LF-normalised text of a file. */

/** How often `search` occurs (non-overlapping). */
export const countOccurrences = (content: string, search: string): number =>
  search === "" ? 0 : content.split(search).length - 1

/**
 * Replaces the first (or every) occurrence. Deleting text that does not end in a newline also
 * deletes the newline right after it, so a removed line leaves no blank line behind.
 */
export const applyEdit = (content: string, oldString: string, newString: string, replaceAll: boolean): string => {
  if (oldString === "") return newString
  const eatNewline = newString === "" && !oldString.endsWith("\n")
  if (replaceAll) {
    const parts = content.split(oldString)
    let result = parts[0]!
    for (const part of parts.slice(1)) {
      result += newString + (eatNewline && part.startsWith("\n") ? part.slice(1) : part)
    }
    return result
  }
  const index = content.indexOf(oldString)
  if (index === -1) return content
  let end = index + oldString.length
  if (eatNewline && content[end] === "\n") end++
  return content.slice(0, index) + newString + content.slice(end)
}
