/**
 * The scratch tree a command runs in: a small project (a git repository with settings files,
 * scripts that look like programs, symlinks, awkward file names), a home with dot files and
 * `.ssh/`, an outside directory with a repository whose configuration runs a program, and a
 * TMPDIR. A template is built once; each sandbox slot gets a copy, restored whenever a command
 * changed it. Snapshots record every entry's type, mode, size, inode, change time and symlink
 * target, so any write, creation, removal or chmod shows.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { PROJECT_SCRIPT_STUB } from "./harness.js"

export interface ScratchLayout {
  readonly root: string
  readonly proj: string
  readonly home: string
  readonly outside: string
  readonly tmp: string
}

export const layoutOf = (root: string): ScratchLayout => ({
  root,
  proj: path.join(root, "proj"),
  home: path.join(root, "home"),
  outside: path.join(root, "outside"),
  tmp: path.join(root, "tmp")
})

/** A script in the project that is run by the stub of that name: running it shows as a run of the script's own path. */
const PROJECT_SCRIPT = `#!/usr/bin/${PROJECT_SCRIPT_STUB}\n`

type Entry = string | { readonly content: string; readonly mode: number } | { readonly symlink: string } | null

/** Paths relative to the scratch root; null is a directory. */
const TREE: Readonly<Record<string, Entry>> = {
  "proj/README.md": "# demo\nhello world\nsecond line\n",
  "proj/notes.txt": "alpha\nbeta\ngamma\nalpha\n",
  "proj/data.json": "{\"name\":\"demo\",\"items\":[1,2,3],\"nested\":{\"k\":\"v\"}}\n",
  "proj/package.json": "{\"name\":\"demo\",\"scripts\":{\"test\":\"echo ok\",\"lint\":\"echo lint\"}}\n",
  "proj/Makefile": "test:\n\techo ok\n",
  "proj/.env": "SECRET=1\n",
  "proj/.gitignore": "build/\n",
  "proj/file with space.txt": "spaced\n",
  "proj/--from-file=x": "looks like an option\n",
  "proj/-n": "dash n\n",
  "proj/a*b.txt": "literal star\n",
  "proj/ünï.txt": "non-ascii name\n",
  "proj/src/a.ts": "export const a = 1\n",
  "proj/src/b.ts": "export const b = 2 // TODO\n",
  "proj/src/lib/c.ts": "export const c = 3\n",
  "proj/docs/guide.md": "guide\n",
  "proj/build": null,
  "proj/empty": null,
  "proj/.claude/settings.json": "{\"permissions\":{\"allow\":[]}}\n",
  "proj/.vscode/settings.json": "{}\n",
  "proj/ls": { content: PROJECT_SCRIPT, mode: 0o755 },
  "proj/bin/git": { content: PROJECT_SCRIPT, mode: 0o755 },
  "proj/bin/cat": { content: PROJECT_SCRIPT, mode: 0o755 },
  "proj/scripts/test.sh": { content: PROJECT_SCRIPT, mode: 0o755 },
  // shell code, for BASH_ENV and `source`
  "proj/scripts/env.sh": "touch SOURCED_RAN\n",
  // a magic source file for `file -C -m`
  "proj/magic.txt": "0 string hello hello-file\n",
  "proj/link-out": { symlink: "../outside" },
  "proj/link-home": { symlink: "../home" },
  "proj/src-link": { symlink: "src" },
  "proj/dangling": { symlink: "../outside/not-yet.txt" },
  "home/.bashrc": "# rc\n",
  "home/.profile": "# profile\n",
  "home/.gitconfig": "[user]\n\tname = Oracle\n\temail = oracle@example.invalid\n",
  "home/.ssh/id_rsa": { content: "PRIVATE KEY\n", mode: 0o600 },
  "home/.ssh/config": "Host *\n",
  "home/.claude/settings.json": "{}\n",
  "home/notes.txt": "home notes\n",
  "outside/secret.txt": "outside secret\n",
  "outside/repo/file.txt": "in the outside repository\n",
  tmp: null
}

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", [...args], {
    cwd,
    stdio: "ignore",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "o",
      GIT_AUTHOR_EMAIL: "o@x",
      GIT_COMMITTER_NAME: "o",
      GIT_COMMITTER_EMAIL: "o@x",
      GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z"
    }
  })

/**
 * Git refreshes its index (a write) when files look changed since they were added; copies of
 * the tree keep their modification times, and only those (and sizes) are compared.
 */
const STABLE_INDEX: ReadonlyArray<[string, string]> = [
  ["core.checkStat", "minimal"],
  ["core.trustctime", "false"]
]

const OLD = new Date("2026-01-01T00:00:00Z")

/** Old times on everything under `dir` (symlinks themselves too: a copy makes them anew). */
const age = (dir: string, symlinksOnly = false) => {
  if (!fs.lstatSync(dir).isDirectory()) return
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isSymbolicLink()) fs.lutimesSync(full, OLD, OLD)
    else {
      if (entry.isDirectory()) age(full, symlinksOnly)
      if (!symlinksOnly) fs.utimesSync(full, OLD, OLD)
    }
  }
}

const initRepository = (dir: string, config: ReadonlyArray<[string, string]>) => {
  git(dir, "init", "-q", "-b", "main")
  fs.rmSync(path.join(dir, ".git", "hooks"), { recursive: true, force: true })
  for (const [key, value] of [...STABLE_INDEX, ...config]) git(dir, "config", key, value)
  age(dir)
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "initial")
}

/** Builds the template tree under `root` (which must not exist). */
export const buildTemplate = (root: string): ScratchLayout => {
  for (const [rel, entry] of Object.entries(TREE)) {
    const full = path.join(root, rel)
    if (entry === null) {
      fs.mkdirSync(full, { recursive: true })
      continue
    }
    fs.mkdirSync(path.dirname(full), { recursive: true })
    if (typeof entry === "string") fs.writeFileSync(full, entry)
    else if ("symlink" in entry) fs.symlinkSync(entry.symlink, full)
    else fs.writeFileSync(full, entry.content, { mode: entry.mode })
  }
  const layout = layoutOf(root)
  initRepository(layout.proj, [])
  fs.writeFileSync(path.join(layout.proj, "src", "b.ts"), "export const b = 2 // changed\n")
  fs.utimesSync(path.join(layout.proj, "src", "b.ts"), OLD, OLD)
  // A repository outside the project whose configuration runs a program on `git status`.
  initRepository(path.join(layout.outside, "repo"), [["core.fsmonitor", "touch FSMONITOR_RAN"], [
    "core.pager",
    "touch PAGER_RAN"
  ]])
  return layout
}

/** Replaces everything under `root` with a copy of the template (the root directory itself stays: it is a mount point). */
export const restore = (template: string, root: string): void => {
  fs.mkdirSync(root, { recursive: true })
  for (const name of fs.readdirSync(root)) {
    const full = path.join(root, name)
    makeRemovable(full)
    fs.rmSync(full, { recursive: true, force: true })
  }
  for (const name of fs.readdirSync(template)) {
    fs.cpSync(path.join(template, name), path.join(root, name), {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true
    })
  }
  age(root, true)
}

/**
 * Puts back what a command changed (the changes between two snapshots of `root`, paths under
 * `root`), from the template: cheaper than a full restore. Falls back to one when anything fails.
 */
export const undo = (template: string, root: string, changes: ReadonlyArray<Change>): void => {
  try {
    const byDepth = [...changes].sort((a, b) => a.path.length - b.path.length)
    const redone: Array<string> = []
    for (const change of byDepth) {
      if (redone.some((d) => change.path.startsWith(d + path.sep))) continue
      const source = path.join(template, path.relative(root, change.path))
      makeRemovable(change.path)
      fs.rmSync(change.path, { recursive: true, force: true })
      if (change.kind === "created") continue
      fs.cpSync(source, change.path, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true })
      if (fs.lstatSync(change.path).isSymbolicLink()) fs.lutimesSync(change.path, OLD, OLD)
      else age(change.path, true)
      redone.push(change.path)
    }
  } catch {
    restore(template, root)
  }
}

/** A command may have taken away write or search permission; removal needs them back. */
const makeRemovable = (p: string) => {
  let st: fs.Stats
  try {
    st = fs.lstatSync(p)
  } catch {
    return
  }
  if (!st.isDirectory()) return
  fs.chmodSync(p, 0o700)
  for (const name of fs.readdirSync(p)) makeRemovable(path.join(p, name))
}

export interface EntryState {
  readonly type: "file" | "dir" | "symlink" | "other"
  readonly mode: number
  readonly size: number
  readonly ino: bigint
  readonly ctimeNs: bigint
  readonly target?: string
}

/** Absolute path → state, for every entry under the root (symlinks are not followed). */
export type Snapshot = ReadonlyMap<string, EntryState>

export const snapshot = (root: string): Snapshot => {
  const out = new Map<string, EntryState>()
  const walk = (dir: string) => {
    let names: Array<string>
    try {
      names = fs.readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      const full = path.join(dir, name)
      let st: fs.BigIntStats
      try {
        st = fs.lstatSync(full, { bigint: true })
      } catch {
        continue
      }
      const type = st.isFile() ? "file" : st.isDirectory() ? "dir" : st.isSymbolicLink() ? "symlink" : "other"
      const state: EntryState = {
        type,
        mode: Number(st.mode & 0o7777n),
        size: type === "dir" ? 0 : Number(st.size),
        ino: type === "dir" ? 0n : st.ino,
        // a directory's own times change with any entry added and removed again (here-document temp files)
        ctimeNs: type === "dir" ? 0n : st.ctimeNs,
        ...(type === "symlink" ? { target: fs.readlinkSync(full) } : {})
      }
      out.set(full, state)
      if (type === "dir") walk(full)
    }
  }
  walk(root)
  return out
}

export interface Change {
  readonly path: string
  readonly kind: "created" | "removed" | "modified"
  readonly detail: string
}

const describe = (s: EntryState) =>
  `${s.type} ${s.mode.toString(8)}${s.type === "file" ? ` ${s.size} bytes` : ""}${
    s.target !== undefined ? ` -> ${s.target}` : ""
  }`

export const diff = (before: Snapshot, after: Snapshot): Array<Change> => {
  const changes: Array<Change> = []
  for (const [p, a] of after) {
    const b = before.get(p)
    if (b === undefined) changes.push({ path: p, kind: "created", detail: describe(a) })
    else if (
      b.type !== a.type || b.mode !== a.mode || b.size !== a.size || b.ino !== a.ino || b.ctimeNs !== a.ctimeNs ||
      b.target !== a.target
    ) {
      changes.push({ path: p, kind: "modified", detail: `${describe(b)} => ${describe(a)}` })
    }
  }
  for (const [p, b] of before) if (!after.has(p)) changes.push({ path: p, kind: "removed", detail: describe(b) })
  return changes.sort((x, y) => x.path.localeCompare(y.path))
}
