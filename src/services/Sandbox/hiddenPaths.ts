/**
 * The paths Read deny rules cover, as the read-only profile hides them. A rule naming a path
 * (`Read(./.env)`, `Read(~/.ssh/**)`, `Read(//etc/shadow)`) hides that path when it exists; a
 * pattern (`Read(**\/*.pem)`, `Read(.env)`, which gitignore matches at any depth) is looked up
 * with ripgrep under the directory it is anchored at, and what the session's own path check
 * confirms as denied is hidden, each match as high up as its denied ancestors go. Only what exists
 * when the command starts can be hidden; the command cannot create anything either.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { PermissionRule } from "../../Permission.js"
import { SandboxError } from "./errors.js"
import type { HiddenPaths } from "./readOnly.js"

export interface HiddenPathsRequest {
  /** Read deny rules with a path specifier. */
  readonly rules: ReadonlyArray<PermissionRule>
  readonly home: string
  /** Where relative patterns are anchored (the launch directory, the project, the cwd). */
  readonly cwds: ReadonlyArray<string>
  /** The session's own answer to "is reading this path denied?" (absent: every match counts). */
  readonly isDenied?: (absolutePath: string) => boolean
  readonly ripgrep: string | undefined
}

/** More than this many paths to hide is refused: the sandbox would take too long to set up. */
export const MAX_HIDDEN = 2_000
const SEARCH_TIMEOUT_MS = 10_000

const GLOB = /[*?[]/

interface Anchored {
  readonly bases: ReadonlyArray<string>
  /** gitignore pattern relative to each base; `""` is the base itself. */
  readonly pattern: string
  /** gitignore matches a pattern without an inner slash at any depth below the base. */
  readonly floating: boolean
}

/** The directories a rule's specifier is anchored at and its pattern there. */
const anchor = (rule: PermissionRule, home: string, cwds: ReadonlyArray<string>): Anchored | undefined => {
  const spec = rule.content
  if (spec === undefined || spec === "") return undefined
  if (spec.startsWith("//")) return { bases: ["/"], pattern: spec.slice(2), floating: false }
  if (spec === "~") return { bases: [home], pattern: "", floating: false }
  if (spec.startsWith("~/")) return { bases: [home], pattern: spec.slice(2), floating: false }
  if (spec.startsWith("/")) return { bases: [rule.root], pattern: spec.slice(1), floating: false }
  const relative = spec.startsWith("./") ? spec.slice(2) : spec
  const inner = relative.replace(/\/+$/, "")
  return { bases: cwds, pattern: relative, floating: !inner.includes("/") || inner.startsWith("**/") }
}

/** `dir/**`, `dir/` → `dir`: the directory itself. */
const stripDirectorySuffix = (pattern: string): string => pattern.replace(/(?:\/\*\*)+$/, "").replace(/\/+$/, "")

interface Found {
  readonly directories: Set<string>
  readonly files: Set<string>
}

const addExisting = (found: Found, candidate: string): void => {
  let real: string
  let directory: boolean
  try {
    fs.lstatSync(candidate)
    real = fs.realpathSync(candidate)
    directory = fs.statSync(real).isDirectory()
  } catch {
    return
  }
  // /dev and /proc are mounted afresh inside the sandbox
  if (real === "/" || real.startsWith("/dev/") || real.startsWith("/proc/")) return
  ;(directory ? found.directories : found.files).add(real)
}

const ripgrepFiles = (
  ripgrep: string,
  base: string,
  pattern: string
): Effect.Effect<ReadonlyArray<string>, SandboxError> =>
  Effect.async<ReadonlyArray<string>, SandboxError>((resume) => {
    const args = [
      "--files",
      "--hidden",
      "--no-ignore",
      "--no-messages",
      "--null",
      "--glob-case-insensitive",
      "-g",
      pattern,
      "-g",
      `${pattern.replace(/\/+$/, "")}/**`,
      base
    ]
    const child = execFile(
      ripgrep,
      args,
      { timeout: SEARCH_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, cwd: base },
      (error, stdout) => {
        // exit 1: nothing matched
        if (error !== null && error.code !== 1) {
          resume(
            Effect.fail(
              new SandboxError({
                stage: "hidden paths",
                reason: `looking for files Read deny rules cover under ${base} failed: ${error.message}`
              })
            )
          )
          return
        }
        resume(Effect.succeed(String(stdout).split("\0").filter((p) => p !== "")))
      }
    )
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

/** The highest directory above `file` (below `base`) that is still denied, or the file itself. */
const highestDenied = (file: string, base: string, isDenied: (p: string) => boolean): string => {
  let top = file
  for (
    let dir = path.dirname(file);
    dir !== base && dir.startsWith(base) && dir !== path.dirname(dir);
    dir = path.dirname(dir)
  ) {
    if (isDenied(dir)) top = dir
  }
  return top
}

/** Drops entries inside a hidden directory (hiding the directory hides them). */
const outermost = (found: Found): HiddenPaths => {
  const directories = [...found.directories].sort()
  const within = (p: string) => directories.some((d) => p !== d && (p.startsWith(`${d}/`) || d === "/"))
  return {
    directories: directories.filter((d) => !within(d)),
    files: [...found.files].filter((f) => !within(f)).sort()
  }
}

export const hiddenPaths = (request: HiddenPathsRequest): Effect.Effect<HiddenPaths, SandboxError> =>
  Effect.gen(function*() {
    const found: Found = { directories: new Set(), files: new Set() }
    for (const rule of request.rules) {
      const anchored = anchor(rule, request.home, request.cwds)
      if (anchored === undefined) continue
      const core = stripDirectorySuffix(anchored.pattern)
      const bases = [...new Set(anchored.bases)]
      if (!GLOB.test(core) && !anchored.floating) {
        for (const base of bases) addExisting(found, core === "" ? base : path.join(base, core))
        continue
      }
      if (request.ripgrep === undefined) {
        return yield* new SandboxError({
          stage: "hidden paths",
          reason: `ripgrep (rg) is needed to find the files the rule ${rule.raw} covers`
        })
      }
      for (const base of bases) {
        if (!fs.existsSync(base)) continue
        const files = yield* ripgrepFiles(request.ripgrep, base, anchored.pattern)
        for (const relative of files) {
          const file = path.resolve(base, relative)
          if (request.isDenied !== undefined && !request.isDenied(file)) continue
          addExisting(found, request.isDenied === undefined ? file : highestDenied(file, base, request.isDenied))
        }
        if (found.files.size + found.directories.size > MAX_HIDDEN) break
      }
    }
    const hidden = outermost(found)
    if (hidden.directories.length + hidden.files.length > MAX_HIDDEN) {
      return yield* new SandboxError({
        stage: "hidden paths",
        reason: `Read deny rules cover more than ${MAX_HIDDEN} separate paths; deny whole directories instead`
      })
    }
    return hidden
  })
