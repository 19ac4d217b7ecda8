/**
 * The JS fallback's directory walk, choosing the files ripgrep would: depth first with each
 * directory's entries in byte order (ripgrep's `--sort path`), symlinks and special files skipped,
 * `--glob` overrides first (they beat ignore files), then `.rgignore`, `.ignore`, `.gitignore`
 * (inside a git repository, up to its root), `.git/info/exclude` and the global git excludes file,
 * then `--type`. Hidden files are included (Claude Code passes `--hidden`).
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

/** Yields absolute paths of the files to search, in ripgrep's `--sort path` order. */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<string> {
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

  async function* visit(dir: string, chain: ReadonlyArray<Level>): AsyncGenerator<string> {
    options.signal?.throwIfAborted()
    let entries: Array<fs.Dirent>
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))
    for (const entry of entries) {
      if (!entry.isDirectory() && !entry.isFile()) continue
      const abs = path.join(dir, entry.name)
      const isDir = entry.isDirectory()
      if (verdict(abs, entry.name, isDir, chain) === "ignore") continue
      if (isDir) {
        const level = options.respectIgnoreFiles ? await loadLevel(abs) : undefined
        yield* visit(abs, level === undefined ? chain : [level, ...chain])
      } else yield abs
    }
  }

  const rootLevel = options.respectIgnoreFiles ? await loadLevel(options.root) : undefined
  yield* visit(options.root, rootLevel === undefined ? parents : [rootLevel, ...parents])
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

const loadLevel = async (dir: string): Promise<Level> => {
  const gitPath = path.join(dir, ".git")
  const gitStat = await fs.promises.stat(gitPath).catch(() => undefined)
  return {
    dir,
    custom: await loadMatcher(path.join(dir, ".rgignore")),
    ignore: await loadMatcher(path.join(dir, ".ignore")),
    git: await loadMatcher(path.join(dir, ".gitignore")),
    exclude: gitStat?.isDirectory() === true ? await loadMatcher(path.join(gitPath, "info", "exclude")) : undefined,
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

const loadMatcher = async (file: string | undefined): Promise<GlobMatcher | undefined> => {
  if (file === undefined) return undefined
  try {
    const text = await fs.promises.readFile(file, "utf8")
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
