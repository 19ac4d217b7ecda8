import * as fs from "node:fs"
import * as path from "node:path"

/** The nearest directory at or above `start` that holds a `.git`, if any. */
export const findGitRoot = (start: string): string | undefined => {
  let dir = start
  for (;;) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}
