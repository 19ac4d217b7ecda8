/**
 * Which repository git would use when started in a directory, the way git looks for it: at each
 * level up, `.git` first, then the directory itself as a bare repository. A repository's config
 * can name programs that read-only commands run (`core.fsmonitor`, `diff.external`); a `.git`
 * directory is a protected path, but the files that make a folder look like a bare repository
 * (`HEAD`, `config`, `objects/`, `refs/`) are ordinary files any edit can plant.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { isDirectory, isFile } from "../../internal/fileKind.js"

export type RepositoryTrust =
  /** No repository, or a `.git` directory (its config can only change through a protected path). */
  | { readonly trusted: true }
  | { readonly trusted: false; readonly reason: string }

/** git's own test for a repository directory: HEAD, objects/ and refs/. */
const looksLikeRepository = (dir: string): boolean =>
  isFile(path.join(dir, "HEAD")) && isDirectory(path.join(dir, "objects")) && isDirectory(path.join(dir, "refs"))

/** A `.git` file names the repository (`gitdir: …`); trusted only when that is inside a `.git` directory (a worktree, a submodule). */
const gitfileTrust = (file: string): RepositoryTrust => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch {
    return { trusted: false, reason: `${file} cannot be read` }
  }
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
  if (target === undefined) return { trusted: false, reason: `${file} does not name a repository` }
  const resolved = path.resolve(path.dirname(file), target)
  return resolved.split(path.sep).includes(".git")
    ? { trusted: true }
    : { trusted: false, reason: `${file} points git at ${resolved}` }
}

export const repositoryTrust = (start: string): RepositoryTrust => {
  let dir = path.resolve(start)
  for (;;) {
    const dotGit = path.join(dir, ".git")
    if (isDirectory(dotGit)) return { trusted: true }
    if (isFile(dotGit)) return gitfileTrust(dotGit)
    if (looksLikeRepository(dir)) {
      return {
        trusted: false,
        reason: `git would take ${dir} itself for a repository (its HEAD, config, objects and refs are ordinary files)`
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) return { trusted: true }
    dir = parent
  }
}
