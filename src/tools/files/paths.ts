/**
 * Path handling for the file tools. Every path goes through the one shared `expandPath`; these
 * helpers add what the tools need around it: a non-throwing form for hooks and permission
 * subjects, real paths for footprints, and Claude Code's "file does not exist" text.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expandPath } from "../../internal/expandPath.js"

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

/**
 * The real path of `file` with symlinks resolved; for a path that does not exist yet, the real
 * path of its deepest existing ancestor joined with the rest. Synchronous: one system call, where
 * the asynchronous form costs a trip through libuv's thread pool (most of a served file call's
 * path checks); the tools open their files synchronously after it anyway.
 */
export const realPathOrAncestor = (file: string): string => {
  const rest: Array<string> = []
  let current = file
  for (;;) {
    try {
      const real = fs.realpathSync.native(current)
      return rest.length === 0 ? real : path.join(real, ...rest.reverse())
    } catch {
      const parent = path.dirname(current)
      if (parent === current) return file
      rest.push(path.basename(current))
      current = parent
    }
  }
}

/** How Glob and Grep show a path: relative to the working directory, absolute when it is outside. */
export const displayPath = (file: string, cwd: string): string => {
  const relative = path.relative(cwd, file)
  return relative.startsWith("..") ? file : relative
}

const NORMAL_EXTENSION = /^(\.[\p{L}\p{N}_+~#-]{1,32})?$/u

/** The name of an entry beside `file` with the same stem and another extension (`foo.js` for a missing `foo.ts`). */
export const similarFile = async (file: string): Promise<string | undefined> => {
  const dir = path.dirname(file)
  const stem = path.basename(file, path.extname(file))
  try {
    const names = await fs.promises.readdir(dir)
    return names
      .filter((name) => {
        const extension = path.extname(name)
        return NORMAL_EXTENSION.test(extension.normalize("NFC")) && path.basename(name, extension) === stem &&
          path.join(dir, name) !== file
      })
      .sort()[0]
  } catch {
    return undefined
  }
}

/**
 * For a path under the working directory's parent but not under the working directory (a path
 * missing the project folder), the same relative path inside the working directory, if it exists.
 */
export const pathUnderCwd = async (file: string, cwd: string): Promise<string | undefined> => {
  let resolved = file
  try {
    resolved = path.join(await fs.promises.realpath(path.dirname(file)), path.basename(file))
  } catch {
    // the parent does not exist either
  }
  const parent = path.dirname(cwd)
  const parentPrefix = parent === path.sep ? path.sep : parent + path.sep
  if (!resolved.startsWith(parentPrefix) || resolved.startsWith(cwd + path.sep) || resolved === cwd) return undefined
  const candidate = path.join(cwd, path.relative(parent, resolved))
  try {
    await fs.promises.access(candidate)
    return candidate
  } catch {
    return undefined
  }
}

const didYouMean = (
  suggestion: string | undefined
): string => (suggestion === undefined ? "" : ` Did you mean ${suggestion}?`)

/** `File does not exist. Note: your current working directory is <cwd>.` (+ ` Did you mean <x>?`). */
export const fileNotFoundMessage = async (file: string, cwd: string): Promise<string> => {
  const suggestion = (await pathUnderCwd(file, cwd)) ?? (await similarFile(file))
  return `File does not exist. ${CWD_NOTE} ${cwd}.${didYouMean(suggestion)}`
}

/** Glob's and Grep's text for a search path that does not exist; `given` is the path as the model wrote it. */
export const missingSearchPathMessage = async (
  what: "Directory" | "Path",
  given: string,
  resolved: string,
  cwd: string
): Promise<string> =>
  `${what} does not exist: ${given}. ${CWD_NOTE} ${cwd}.${didYouMean(await pathUnderCwd(resolved, cwd))}`

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

/** A file of a running process (`/proc/self/environ`, `/proc/1/status`): its contents are that process's. */
const PROCESS_FILE = /^\/proc\/(?:self|thread-self|\d+)(?:\/|$)/

/** Device and process files the file tools never read (they block, never end, or expose a process). */
export const isBlockedDevice = (file: string): boolean => BLOCKED_DEVICES.has(file) || PROCESS_FILE.test(file)

export const blockedDeviceText = (given: string): string =>
  `Cannot read '${given}': this path names a device or process file that this tool does not read.`

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
