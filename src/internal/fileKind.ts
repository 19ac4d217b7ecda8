import * as fs from "node:fs"

/** Is `p` a directory (links followed)? False when it cannot be told. */
export const isDirectory = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** Is `p` a regular file (links followed)? False when it cannot be told. */
export const isFile = (p: string): boolean => {
  try {
    return fs.statSync(p).isFile()
  } catch {
    return false
  }
}
