/**
 * The JS fallback's directory walk, choosing the files ripgrep would: depth first with each
 * directory's entries in byte order (ripgrep's `--sort path`), symlinks and special files skipped,
 * `--glob` overrides first (they beat ignore files), then `.rgignore`, `.ignore`, `.gitignore`
 * (inside a git repository, up to its root), `.git/info/exclude` and the global git excludes file,
 * then `--type`. Hidden files are included (Claude Code passes `--hidden`).
 *
 * `walkFilesAt` walks a root already opened and checked (a served session's search root, named
 * `/proc/<pid>/fd/N`): each folder is entered through its opened parent with `O_NOFOLLOW`, never
 * by its name from the root, so a folder swapped for a symlink while the walk runs is skipped,
 * not followed out of the root; each file comes with a path naming it inside its opened folder.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { compileGitignore, compileNameGlob, type GlobMatcher, type Verdict } from "./globPattern.js"

export interface WalkOptions {
  /** An absolute directory. */
  readonly root: string
  readonly overrides?: GlobMatcher | undefined
  readonly respectIgnoreFiles: boolean
  /** File-name globs of the selected types. */
  readonly typeGlobs?: ReadonlyArray<string> | undefined
  readonly signal?: AbortSignal | undefined
}

interface Level {
  readonly dir: string
  readonly custom: GlobMatcher | undefined
  readonly ignore: GlobMatcher | undefined
  readonly git: GlobMatcher | undefined
  readonly exclude: GlobMatcher | undefined
  readonly hasGit: boolean
}

/** A file of `walkFilesAt`: its path under the root, and a path naming it inside its opened folder. */
export interface WalkedFile {
  readonly path: string
  /** Valid until the walk moves on; open it with `O_NOFOLLOW` (a symlink swapped in is refused). */
  readonly open: string
}

/** Yields absolute paths of the files to search, in ripgrep's `--sort path` order. */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<string> {
  for await (const file of walk(options, undefined)) yield file.path
}

/** Where `walkFilesAt` starts: the opened root, and what may be entered (by the folder's real path). */
export interface OpenedRoot {
  readonly at: string
  readonly allowed?: ((realPath: string) => boolean) | undefined
}

/**
 * `walkFiles` from the opened root `at` (see the top of this file): no folder is entered through
 * a symlink, and a folder whose real path `allowed` refuses (moved out meanwhile) is skipped.
 */
export const walkFilesAt = (options: WalkOptions & OpenedRoot): AsyncGenerator<WalkedFile> => walk(options, options)

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants

async function* walk(options: WalkOptions, opened: OpenedRoot | undefined): AsyncGenerator<WalkedFile> {
  const at = opened?.at
  const types = options.typeGlobs?.map(compileNameGlob)
  const parents = options.respectIgnoreFiles ? await parentLevels(options.root) : []
  const globalExcludes = options.respectIgnoreFiles ? await loadMatcher(globalExcludesFile()) : undefined

  const verdict = (abs: string, name: string, isDir: boolean, chain: ReadonlyArray<Level>): Verdict | undefined => {
    if (options.overrides !== undefined) {
      const v = options.overrides.match(toPosix(path.relative(options.root, abs)), isDir)
      if (v !== undefined) return v
    }
    let whitelisted: Verdict | undefined
    if (options.respectIgnoreFiles) {
      const v = ignoreVerdict(abs, isDir, chain, globalExcludes, options.root)
      if (v === "ignore") return v
      whitelisted = v
    }
    if (types !== undefined && !isDir) {
      if (!types.some((t) => t.test(name))) return "ignore"
      whitelisted = "whitelist"
    }
    return whitelisted
  }

  /** `dir` is the folder's path under the root; `from` names it for reading (itself, or its opened folder). */
  async function* visit(dir: string, from: string, chain: ReadonlyArray<Level>): AsyncGenerator<WalkedFile> {
    options.signal?.throwIfAborted()
    let entries: Array<fs.Dirent>
    try {
      entries = await fs.promises.readdir(from, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))
    for (const entry of entries) {
      if (!entry.isDirectory() && !entry.isFile()) continue
      const abs = path.join(dir, entry.name)
      const isDir = entry.isDirectory()
      if (verdict(abs, entry.name, isDir, chain) === "ignore") continue
      if (!isDir) {
        yield { path: abs, open: at === undefined ? abs : `${from}/${entry.name}` }
        continue
      }
      if (at === undefined) {
        const level = options.respectIgnoreFiles ? await loadLevel(abs) : undefined
        yield* visit(abs, abs, level === undefined ? chain : [level, ...chain])
        continue
      }
      // entered through this open folder, never through a symlink put in its place
      let handle: fs.promises.FileHandle
      try {
        handle = await fs.promises.open(`${from}/${entry.name}`, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
      } catch {
        continue
      }
      try {
        const inside = `/proc/self/fd/${handle.fd}`
        if (opened?.allowed !== undefined && !opened.allowed(await fs.promises.readlink(inside))) continue
        const level = options.respectIgnoreFiles ? await loadLevel(abs, inside) : undefined
        yield* visit(abs, inside, level === undefined ? chain : [level, ...chain])
      } finally {
        await handle.close()
      }
    }
  }

  const rootLevel = options.respectIgnoreFiles ? await loadLevel(options.root, at) : undefined
  yield* visit(options.root, at ?? options.root, rootLevel === undefined ? parents : [rootLevel, ...parents])
}

const ignoreVerdict = (
  abs: string,
  isDir: boolean,
  chain: ReadonlyArray<Level>,
  globalExcludes: GlobMatcher | undefined,
  root: string
): Verdict | undefined => {
  const inGit = chain.some((level) => level.hasGit)
  let custom: Verdict | undefined
  let ignore: Verdict | undefined
  let git: Verdict | undefined
  let exclude: Verdict | undefined
  let sawGit = false
  for (const level of chain) {
    const rel = toPosix(path.relative(level.dir, abs))
    custom ??= level.custom?.match(rel, isDir)
    ignore ??= level.ignore?.match(rel, isDir)
    if (inGit && !sawGit) {
      git ??= level.git?.match(rel, isDir)
      exclude ??= level.exclude?.match(rel, isDir)
    }
    sawGit ||= level.hasGit
  }
  const global = inGit ? globalExcludes?.match(toPosix(path.relative(root, abs)), isDir) : undefined
  return custom ?? ignore ?? git ?? exclude ?? global
}

/** The ignore files of `dir`, read from `from` (the folder itself, or a path naming it opened). */
const loadLevel = async (dir: string, from = dir): Promise<Level> => {
  const gitPath = path.join(from, ".git")
  const gitStat = await fs.promises.stat(gitPath).catch(() => undefined)
  // inside an opened folder, an ignore file that is a symlink is not followed either
  const flag = from === dir ? O_RDONLY : O_RDONLY | O_NOFOLLOW
  return {
    dir,
    custom: await loadMatcher(path.join(from, ".rgignore"), flag),
    ignore: await loadMatcher(path.join(from, ".ignore"), flag),
    git: await loadMatcher(path.join(from, ".gitignore"), flag),
    exclude: gitStat?.isDirectory() === true
      ? await loadMatcher(path.join(gitPath, "info", "exclude"), flag)
      : undefined,
    hasGit: gitStat !== undefined
  }
}

/** Ignore files of the directories above the search root, nearest first. */
const parentLevels = async (root: string): Promise<ReadonlyArray<Level>> => {
  const levels: Array<Level> = []
  for (let dir = path.dirname(root);; dir = path.dirname(dir)) {
    levels.push(await loadLevel(dir))
    if (path.dirname(dir) === dir) break
  }
  return root === path.dirname(root) ? [] : levels
}

const loadMatcher = async (file: string | undefined, flag = O_RDONLY): Promise<GlobMatcher | undefined> => {
  if (file === undefined) return undefined
  try {
    const text = await fs.promises.readFile(file, { encoding: "utf8", flag })
    return compileGitignore(text.split(/\r?\n/))
  } catch {
    return undefined
  }
}

const globalExcludesFile = (): string => {
  const xdg = process.env.XDG_CONFIG_HOME
  return path.join(xdg !== undefined && xdg !== "" ? xdg : path.join(os.homedir(), ".config"), "git", "ignore")
}

const toPosix = (p: string): string => (path.sep === "/" ? p : p.split(path.sep).join("/"))
