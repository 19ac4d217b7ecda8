/**
 * The protected files and folders (.git, .claude, .bashrc, .husky, … — the Permissions stage's
 * list) that exist in the working directories, a few levels deep: where a command may write in
 * the working directories, these stay read-only, since what is written there runs later outside
 * any sandbox (git hooks, shell start-up files, the agent's own settings).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { PROTECTED_DIRECTORIES, PROTECTED_FILES } from "../Permissions/protectedPaths.js"

/** How deep below a working directory to look (the sandbox runtime looks as deep for its own list). */
export const PROTECTED_SEARCH_DEPTH = 3
const MAX_DIRECTORIES = 5_000
const SKIPPED = new Set(["node_modules"])

const files = new Set(PROTECTED_FILES.map((f) => f.toLowerCase()))
const directories = PROTECTED_DIRECTORIES.map((d) => d.toLowerCase())

export const protectedWithin = (roots: ReadonlyArray<string>): ReadonlyArray<string> => {
  const found = new Set<string>()
  let visited = 0
  const visit = (dir: string, depth: number): void => {
    if (visited++ > MAX_DIRECTORIES) return
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const nested of directories.filter((d) => d.includes("/"))) {
      const candidate = path.join(dir, ...nested.split("/"))
      if (fs.existsSync(candidate)) found.add(candidate)
    }
    for (const entry of entries) {
      const name = entry.name.toLowerCase()
      const full = path.join(dir, entry.name)
      if (directories.includes(name) || files.has(name)) {
        found.add(full)
        continue
      }
      if (entry.isDirectory() && !entry.isSymbolicLink() && depth < PROTECTED_SEARCH_DEPTH && !SKIPPED.has(name)) visit(full, depth + 1)
    }
  }
  for (const root of roots) visit(root, 0)
  return [...found].sort()
}
