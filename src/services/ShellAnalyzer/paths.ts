/**
 * Turning path words into absolute paths the way bash would see them, and containment in the
 * working directories by path components (never string prefixes), with symlinks resolved for the
 * part of the path that exists.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { WordFacts } from "./words.js"

/**
 * Another part of the command may change the file tree (create a symlink, rename a directory)
 * before or while this one runs: none of its paths can be judged now.
 */
export const TREE_CHANGED: unique symbol = Symbol("the file tree may change")

/**
 * The directories a relative path may be resolved against; null: a directory only known at run
 * time; TREE_CHANGED: no path can be judged.
 */
export type Dirs = ReadonlyArray<string | null | typeof TREE_CHANGED>

export type Resolved = { readonly ok: true; readonly paths: ReadonlyArray<string> } | {
  readonly ok: false
  readonly reason: string
}

/** Resolves a literal path word against each candidate directory; `~` and `~/…` expand to home. */
export const resolvePathWord = (word: WordFacts, dirs: Dirs, home: string): Resolved => {
  if (typeof word.value !== "string") return { ok: false, reason: `the path ${word.raw} is only known at run time` }
  const value = word.value
  if (value.length === 0) return { ok: false, reason: "an empty path" }
  if (value.includes("\u0000")) return { ok: false, reason: "a path with a NUL byte" }
  if (dirs.includes(TREE_CHANGED)) {
    return { ok: false, reason: `the path ${value} is used by a command that may change the file tree first` }
  }
  if (word.tilde || value.startsWith("~")) {
    if (value === "~" || value.startsWith("~/")) return { ok: true, paths: [path.resolve(home, value.slice(2))] }
    return { ok: false, reason: `the path ${value} names another user's home directory` }
  }
  if (path.isAbsolute(value)) return checkable(kernelJoin("/", value))
  const paths: Array<string> = []
  for (const dir of dirs) {
    if (dir === null || dir === TREE_CHANGED) {
      return { ok: false, reason: `the relative path ${value} after a cd to a directory only known at run time` }
    }
    paths.push(kernelJoin(dir, value))
  }
  return checkable(...paths)
}

/**
 * A path as the kernel will walk it. With a `..` component the text is kept as written (the
 * kernel applies `..` after following the symlink before it; the path check does the same);
 * without one, normalising changes nothing the kernel would see.
 */
const kernelJoin = (dir: string, value: string): string => {
  if (!value.split("/").includes("..")) return path.resolve(dir, value)
  if (path.isAbsolute(value)) return value
  return dir.endsWith("/") ? dir + value : `${dir}/${value}`
}

/** /proc paths name the process that opens them: judged in toolgate's process, they say nothing of the shell's. */
const checkable = (...paths: ReadonlyArray<string>): Resolved => {
  const magic = paths.find((p) => p === "/proc" || p.startsWith("/proc/"))
  return magic === undefined
    ? { ok: true, paths }
    : { ok: false, reason: `${magic} depends on the process that opens it` }
}

export const isInsideDir = (child: string, dir: string): boolean => {
  const rel = path.relative(dir, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/** The realpath of the deepest existing ancestor, plus the rest (for paths that do not exist yet). */
export const realPathOf = (abs: string): string => {
  let current = abs
  const rest: Array<string> = []
  // existsSync does not throw: far cheaper than realpath failing on each missing level.
  for (let i = 0; i < 256 && !fs.existsSync(current); i++) {
    const parent = path.dirname(current)
    if (parent === current) return abs
    rest.push(path.basename(current))
    current = parent
  }
  try {
    const real = fs.realpathSync.native(current)
    return rest.length === 0 ? real : path.join(real, ...rest.reverse())
  } catch {
    return abs
  }
}

/** Working directories with their real paths, computed once per check. */
export interface WorkingDirs {
  readonly lexical: ReadonlyArray<string>
  readonly real: ReadonlyArray<string>
}

// Working directories change rarely; their real paths are remembered briefly across checks.
const WORKING_DIR_TTL_MS = 2_000
const workingDirCache = new Map<string, { readonly real: string; readonly at: number }>()

const realWorkingDir = (dir: string): string => {
  const now = Date.now()
  const hit = workingDirCache.get(dir)
  if (hit !== undefined && now - hit.at < WORKING_DIR_TTL_MS) return hit.real
  if (workingDirCache.size > 64) workingDirCache.clear()
  const real = realPathOf(dir)
  workingDirCache.set(dir, { real, at: now })
  return real
}

export const workingDirsOf = (dirs: ReadonlyArray<string>): WorkingDirs => ({
  lexical: dirs,
  real: dirs.map(realWorkingDir)
})

/** Is the path (lexically, and with symlinks resolved) inside one of the directories? */
export const isInsideWorkingDirs = (abs: string, dirs: WorkingDirs): boolean => {
  const inside = (p: string) => dirs.lexical.some((d) => isInsideDir(p, d)) || dirs.real.some((d) => isInsideDir(p, d))
  const lexical = path.resolve(abs)
  return inside(lexical) && inside(realPathOf(lexical))
}

const GLOB = /[*?[]/

/** Splits a path at its first component with a glob: the directory before it and the rest. */
export const globBase = (abs: string): { readonly base: string; readonly globbed: string } | undefined => {
  const parts = abs.split(path.sep)
  const index = parts.findIndex((p) => GLOB.test(p))
  if (index === -1) return undefined
  return { base: parts.slice(0, index).join(path.sep) || path.sep, globbed: parts.slice(index).join(path.sep) }
}

/** A glob component as a regular expression (`*`, `?`, `[…]`; a leading dot is matched only by a dot, as bash does). */
const componentPattern = (glob: string): RegExp => {
  let source = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") source += "[^/]*"
    else if (c === "?") source += "[^/]"
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2)
      if (end === -1) source += "\\["
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")
        source += `[${body}]`
        i = end
      }
    } else source += c.replace(/[.+^${}()|\\\]]/g, "\\$&")
  }
  return new RegExp(`^${source}$`, "s")
}

/**
 * The existing files a glob names, when the glob is confined to its last component (one directory
 * listing); undefined when that cannot be told cheaply (globbed directories), so the caller asks.
 * Names starting with a dot match only a pattern that starts with one, as in bash, unless the
 * command may turn `dotglob` on (then every name the pattern matches counts).
 */
export const globMatches = (abs: string, dotglob: boolean): ReadonlyArray<string> | undefined => {
  const split = globBase(abs)
  if (split === undefined) return [abs]
  if (split.globbed.includes(path.sep)) return undefined
  const pattern = componentPattern(split.globbed)
  const hidden = dotglob || split.globbed.startsWith(".")
  try {
    return fs
      .readdirSync(split.base)
      .filter((name) => pattern.test(name) && (hidden || !name.startsWith(".")))
      .map((name) => path.join(split.base, name))
  } catch {
    return []
  }
}
