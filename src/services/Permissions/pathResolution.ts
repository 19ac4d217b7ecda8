/**
 * Every name a path goes by: the lexical path, the path after each
 * symlink hop, and the real path. For a path that does not exist yet, the deepest existing
 * ancestor is resolved and the rest re-appended. `..` is applied the way the kernel does it:
 * after the symlink before it has been followed.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** Linux's limit on symlinks followed while resolving one path (MAXSYMLINKS). */
export const MAX_SYMLINK_HOPS = 40

export type PathResolution =
  | {
    readonly ok: true
    /** Lexical path first, real path last; no duplicates. */
    readonly candidates: ReadonlyArray<string>
    /** The path the kernel reaches (existing prefix resolved, missing remainder appended). */
    readonly realPath: string
    /** False when some component does not exist (a new file). */
    readonly exists: boolean
  }
  | { readonly ok: false; readonly reason: string; readonly candidates: ReadonlyArray<string> }

const splitComponents = (p: string): Array<string> => p.split(path.sep).filter((c) => c !== "")

/**
 * Resolves an absolute path component by component. The input may still contain `.`/`..`
 * (a shell argument); the lexical candidate is its normalised form.
 */
export const resolveCandidates = (absolutePath: string): PathResolution => {
  const lexical = path.resolve(absolutePath)
  const candidates = new Set<string>([lexical])
  const pending = splitComponents(absolutePath)
  let current = path.parse(lexical).root
  let hops = 0
  let exists = true
  while (pending.length > 0) {
    const component = pending.shift()!
    if (component === ".") continue
    if (component === "..") {
      current = path.dirname(current)
      continue
    }
    const next = path.join(current, component)
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(next)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === "ENOENT") {
        // the rest does not exist: it is where a new file would be created
        exists = false
        const rest = path.resolve(next, ...pending)
        candidates.add(rest)
        return { ok: true, candidates: Array.from(candidates), realPath: rest, exists }
      }
      if (code === "ENOTDIR") {
        const rest = path.resolve(next, ...pending)
        candidates.add(rest)
        return { ok: false, reason: `a component of ${lexical} is not a directory`, candidates: Array.from(candidates) }
      }
      return {
        ok: false,
        reason: `cannot inspect ${next}: ${code ?? (e as Error).message}`,
        candidates: Array.from(candidates)
      }
    }
    if (!stat.isSymbolicLink()) {
      current = next
      continue
    }
    hops++
    if (hops > MAX_SYMLINK_HOPS) {
      return {
        ok: false,
        reason: `too many symbolic links (or a loop) resolving ${lexical}`,
        candidates: Array.from(candidates)
      }
    }
    let target: string
    try {
      target = fs.readlinkSync(next)
    } catch (e) {
      return {
        ok: false,
        reason: `cannot read link ${next}: ${(e as Error).message}`,
        candidates: Array.from(candidates)
      }
    }
    // the name the path has after this hop (lexically joined: an extra candidate, never the only one)
    candidates.add(path.resolve(current, target, ...pending))
    pending.unshift(...splitComponents(target))
    if (path.isAbsolute(target)) current = path.parse(path.resolve(target)).root
  }
  candidates.add(current)
  // a second opinion from the OS, for anything the walk could have missed
  try {
    candidates.add(fs.realpathSync.native(lexical))
  } catch {
    // the walk's answer stands
  }
  return { ok: true, candidates: Array.from(candidates), realPath: current, exists }
}

/** An existing regular file with more than one name: a write would change the other names too. */
export const isHardLinked = (realPath: string): boolean => {
  try {
    const stat = fs.statSync(realPath)
    return stat.isFile() && stat.nlink > 1
  } catch {
    return false
  }
}

export { isDirectory } from "../../internal/fileKind.js"

const caseProbeCache = new Map<number, boolean>()

/**
 * Is the volume holding `p` (or its deepest existing ancestor) case-insensitive? Probed once per
 * device by stat-ing a case-flipped name and comparing device and inode.
 */
export const isCaseInsensitiveVolume = (p: string): boolean => {
  let dir = path.resolve(p)
  for (;;) {
    let stat: fs.Stats | undefined
    try {
      stat = fs.statSync(dir)
    } catch {
      stat = undefined
    }
    if (stat !== undefined) {
      const cached = caseProbeCache.get(stat.dev)
      if (cached !== undefined) return cached
      const probe = probeCase(dir, stat)
      if (probe !== undefined) {
        caseProbeCache.set(stat.dev, probe)
        return probe
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) return false
    dir = parent
  }
}

const probeCase = (dir: string, stat: fs.Stats): boolean | undefined => {
  const base = path.basename(dir)
  const flipped = Array.from(base)
    .map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()))
    .join("")
  if (flipped === base) return undefined
  try {
    const other = fs.statSync(path.join(path.dirname(dir), flipped))
    return other.dev === stat.dev && other.ino === stat.ino
  } catch {
    return false
  }
}
