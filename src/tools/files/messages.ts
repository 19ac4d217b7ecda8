/**
 * What the model reads after Write and Edit, in one place (Claude Code 2.1.332's texts).
 */

/** Appended to every successful Write and Edit: the model already holds the file as written. */
export const FILE_STATE_CURRENT_NOTE = " (file state is current in your context \u2014 no need to Read it back)"

/** Appended instead when the file had changed on disk since it was read but the edit still applied. */
export const STALE_EDIT_APPLIED_NOTE =
  " (note: the file had been modified on disk since you last read it \u2014 the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)"

export const writeCreatedText = (given: string): string =>
  `File created successfully at: ${given}${FILE_STATE_CURRENT_NOTE}`

export const writeUpdatedText = (given: string): string =>
  `The file ${given} has been updated successfully.${FILE_STATE_CURRENT_NOTE}`

/** `current`: the model holds the whole file as edited; `partial`: it read only part of it (no note); `stale`: the file had other changes. */
export const editAppliedText = (given: string, replaceAll: boolean, view: "current" | "partial" | "stale"): string => {
  const note = view === "stale" ? STALE_EDIT_APPLIED_NOTE : view === "partial" ? "" : FILE_STATE_CURRENT_NOTE
  return replaceAll
    ? `The file ${given} has been updated. All occurrences were successfully replaced.${note}`
    : `The file ${given} has been updated successfully.${note}`
}

export const isDirectoryText = (given: string): string =>
  `${given} is a directory, not a file. To create a file inside it, include the file name in file_path.`

/** Edit on a directory: Claude Code reports the failed read as a call error. */
export const EDIT_DIRECTORY_TEXT = "Error calling tool (Edit): EISDIR: illegal operation on a directory, read"
