/**
 * Path handling for the file tools. Every path goes through the one shared `expandPath`; these
 * helpers add what the tools need around it: a non-throwing form for hooks and permission
 * subjects, real paths for footprints, and Claude Code's "file does not exist" text.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expandPath } from "../../services/Permissions/expandPath.js"

export const CWD_NOTE = "Note: your current working directory is"

/** Directories of version-control systems that searches never enter. */
export const VCS_DIRECTORIES: ReadonlyArray<string> = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"]

/** Expands like `expandPath`, but returns the input unchanged when it cannot be expanded (NUL byte). */
export const expandLenient = (input: string, cwd: string): string => {
  try {
    return expandPath(input, cwd)
  } catch {
    return input
  }
}

/** Why a path cannot be used at all, or undefined. */
export const pathProblem = (input: string): string | undefined =>
  input.includes("\0") ? `Invalid path ${JSON.stringify(input)}: it contains a NUL byte.` : undefined

/** Absolute as the model must give it for Write and Edit; `~` and `~/…` count as absolute. */
export const isAbsoluteInput = (input: string): boolean => {
  const trimmed = input.trim()
  return path.isAbsolute(trimmed) || trimmed === "~" || trimmed.startsWith("~/")
}

export const relativePathMessage = (input: string, cwd: string): string =>
  `The file_path must be an absolute path, not a relative one: ${input}. ${CWD_NOTE} ${cwd}.`

/** The real path of `file` with symlinks resolved; for a path that does not exist yet, the real path of its deepest existing ancestor joined with the rest. */
export const realPathOrAncestor = async (file: string): Promise<string> => {
  const rest: Array<string> = []
  let current = file
  for (;;) {
    try {
      const real = await fs.promises.realpath(current)
      return rest.length === 0 ? real : path.join(real, ...rest.reverse())
    } catch {
      const parent = path.dirname(current)
      if (parent === current) return file
      rest.push(path.basename(current))
      current = parent
    }
  }
}

/** A sibling with the same name but another extension (`foo.js` for a missing `foo.ts`). */
export const similarFile = async (file: string): Promise<string | undefined> => {
  const dir = path.dirname(file)
  const name = path.basename(file)
  const stem = stemOf(name)
  try {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true })
    const match = entries
      .filter((e) => e.isFile() && e.name !== name && stemOf(e.name) === stem)
      .map((e) => e.name)
      .sort()[0]
    return match === undefined ? undefined : path.join(dir, match)
  } catch {
    return undefined
  }
}

const stemOf = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? name : name.slice(0, dot)
}

/** `File does not exist. Note: your current working directory is <cwd>.` (+ ` Did you mean <x>?`). */
export const fileNotFoundMessage = async (file: string, cwd: string): Promise<string> => {
  const suggestion = await similarFile(file)
  const base = `File does not exist. ${CWD_NOTE} ${cwd}.`
  return suggestion === undefined ? base : `${base} Did you mean ${suggestion}?`
}

/** Device files that would block or never end. */
const BLOCKED_DEVICES = new Set([
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/full",
  "/dev/stdin",
  "/dev/tty",
  "/dev/console",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/fd/0",
  "/dev/fd/1",
  "/dev/fd/2",
  "/proc/self/fd/0",
  "/proc/self/fd/1",
  "/proc/self/fd/2"
])

export const isBlockedDevice = (file: string): boolean => BLOCKED_DEVICES.has(file)

/** Stats a path, or undefined when it does not exist. Other errors are thrown. */
export const statOrUndefined = async (file: string): Promise<fs.Stats | undefined> => {
  try {
    return await fs.promises.stat(file)
  } catch (error) {
    if (isNotFound(error)) return undefined
    throw error
  }
}

export const isNotFound = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))
