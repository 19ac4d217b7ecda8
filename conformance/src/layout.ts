/**
 * The folders one program run uses: a fresh root holding `proj` (the project and working
 * directory), `home` ($HOME) and `outside` (a folder outside the working directories), filled
 * from the scenario, and removed when the run's scope closes. Afterwards the project is
 * snapshotted (what the program left behind).
 */
import { Effect, Schema, type Scope } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { FileSpec, Scenario } from "./Scenario.js"

export const FIXTURES_DIR = path.resolve(import.meta.dirname, "..", "fixtures")

export interface Layout {
  readonly root: string
  readonly proj: string
  readonly home: string
  readonly outside: string
}

export class LayoutError extends Schema.TaggedError<LayoutError>()("LayoutError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * Where layouts go: /tmp, as when the goldens were recorded, whatever TMPDIR says (the test run
 * sets one of its own). Some results depend on the length of the paths in them (output cut at a
 * size, then normalised), and the finish order of parallel calls on their timing: a replay must
 * run at the recorded path length to compare with the golden.
 */
const layoutBase = (): string => {
  try {
    fs.accessSync("/tmp", fs.constants.W_OK)
    return "/tmp"
  } catch {
    return os.tmpdir()
  }
}

/** A fresh layout, removed (even read-only parts of it) when the scope closes. */
export const makeLayout: Effect.Effect<Layout, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(layoutBase(), "tg-conformance-")))
    const layout = {
      root,
      proj: path.join(root, "proj"),
      home: path.join(root, "home"),
      outside: path.join(root, "outside")
    }
    for (const dir of [layout.proj, layout.home, layout.outside]) fs.mkdirSync(dir)
    return layout
  }),
  (layout) => Effect.sync(() => removeTree(layout.root))
)

const removeTree = (dir: string) => {
  const unlock = (p: string) => {
    try {
      const stat = fs.lstatSync(p)
      if (!stat.isDirectory()) return
      fs.chmodSync(p, 0o755)
      for (const entry of fs.readdirSync(p)) unlock(path.join(p, entry))
    } catch {
      // gone already
    }
  }
  unlock(dir)
  fs.rmSync(dir, { recursive: true, force: true })
}

/** Replaces the placeholders in every string of a JSON value. */
export const substitute = <A>(value: A, layout: Layout): A => {
  const vars: Record<string, string> = {
    PROJ: layout.proj,
    HOME: layout.home,
    ROOT: layout.root,
    OUTSIDE: layout.outside,
    FIXTURES: FIXTURES_DIR,
    NODE: process.execPath
  }
  return JSON.parse(
    JSON.stringify(value).replace(
      /\{\{([A-Z]+)\}\}/g,
      (whole, name: string) => (vars[name] === undefined ? whole : JSON.stringify(vars[name]).slice(1, -1))
    )
  ) as A
}

const resolveIn = (layout: Layout, file: string): string => {
  if (file.startsWith("~/")) return path.join(layout.home, file.slice(2))
  if (path.isAbsolute(file)) {
    if (!file.startsWith(`${layout.root}/`)) {
      throw new LayoutError({ path: file, message: `a scenario file must stay inside ${layout.root}` })
    }
    return file
  }
  return path.join(layout.proj, file)
}

const bytesOf = (spec: Exclude<FileSpec, null>): Buffer => {
  if (typeof spec === "string") return Buffer.from(spec)
  if (spec.base64 !== undefined) return Buffer.from(spec.base64, "base64")
  if (spec.hex !== undefined) return Buffer.from(spec.hex, "hex")
  if (spec.repeat !== undefined) {
    return Buffer.from(`${spec.prefix ?? ""}${spec.repeat.repeat(spec.times ?? 1)}${spec.suffix ?? ""}`)
  }
  if (spec.lines !== undefined) {
    const format = spec.format ?? "line {i}"
    let text = ""
    for (let i = 1; i <= spec.lines; i++) text += `${format.replaceAll("{i}", String(i))}\n`
    return Buffer.from(text)
  }
  return Buffer.from(spec.content ?? "")
}

const writeFile = (layout: Layout, file: string, spec: FileSpec) => {
  const full = resolveIn(layout, file)
  if (file.endsWith("/") || spec === null) {
    fs.mkdirSync(full, { recursive: true })
    return
  }
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, bytesOf(spec))
  if (typeof spec === "object") {
    if (spec.mode !== undefined) fs.chmodSync(full, Number.parseInt(spec.mode, 8))
    if (spec.mtime_offset !== undefined) {
      const stat = fs.statSync(full)
      fs.utimesSync(full, stat.atimeMs / 1000 + spec.mtime_offset, stat.mtimeMs / 1000 + spec.mtime_offset)
    }
  }
}

const runSetupCommand = (command: string, cwd: string) =>
  Effect.async<void, LayoutError>((resume) => {
    const child = spawn("bash", ["-c", command], { cwd, stdio: "ignore", detached: true })
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // exited meanwhile
      }
    }, 30_000)
    child.on("error", (e) =>
      resume(Effect.fail(new LayoutError({ path: cwd, message: `setup command ${command}: ${e.message}` }))))
    child.on("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
  })

/** Writes the scenario's files, settings and MCP configuration, then runs its setup commands. */
export const populate = (layout: Layout, scenario: Scenario): Effect.Effect<void, LayoutError> =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => {
        for (const [file, spec] of Object.entries(scenario.files ?? {})) writeFile(layout, file, spec)
        const json = (value: unknown) => JSON.stringify(value, null, 2)
        if (scenario.settings !== undefined) writeFile(layout, ".claude/settings.json", json(scenario.settings))
        if (scenario.local_settings !== undefined) {
          writeFile(layout, ".claude/settings.local.json", json(scenario.local_settings))
        }
        if (scenario.home_settings !== undefined) {
          writeFile(layout, "~/.claude/settings.json", json(scenario.home_settings))
        }
        if (scenario.mcp !== undefined) writeFile(layout, ".mcp.json", json(scenario.mcp))
      },
      catch: (
        e
      ) => (e instanceof LayoutError ? e : new LayoutError({ path: layout.root, message: (e as Error).message }))
    })
    for (const command of scenario.setup_commands ?? []) yield* runSetupCommand(command, layout.proj)
  })

/** One entry of a snapshot: a folder, a link, a small text file's text, or a file's digest. */
export const FileEntry = Schema.Union(
  Schema.Literal("dir", "link"),
  Schema.Struct({ text: Schema.String }),
  Schema.Struct({ sha1: Schema.String }),
  Schema.Struct({ unreadable: Schema.String })
)
export type FileEntry = typeof FileEntry.Type

const TEXT_LIMIT = 2000

const entryOf = (file: string, normalise: (text: string) => string): FileEntry => {
  try {
    const bytes = fs.readFileSync(file)
    const text = bytes.toString("utf8")
    if (bytes.length <= TEXT_LIMIT && !text.includes("\u0000") && Buffer.from(text).equals(bytes)) {
      return { text: normalise(text) }
    }
    return { sha1: createHash("sha1").update(bytes).digest("hex").slice(0, 12) }
  } catch (e) {
    return { unreadable: (e as NodeJS.ErrnoException).code ?? "error" }
  }
}

/** Every folder, link and file under the project, by relative path ("a/", "a/b.txt"); texts normalised. */
export const snapshot = (dir: string, normalise: (text: string) => string): Record<string, FileEntry> => {
  const out: Record<string, FileEntry> = {}
  const walk = (rel: string) => {
    const here = path.join(dir, rel)
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(here, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`
      if (entry.isSymbolicLink()) out[relPath] = "link"
      else if (entry.isDirectory()) {
        out[`${relPath}/`] = "dir"
        walk(relPath)
      } else out[relPath] = entryOf(path.join(dir, relPath), normalise)
    }
  }
  walk("")
  return out
}
