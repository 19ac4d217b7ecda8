/**
 * File access held to a set of directories without a gap between check and use. A path is
 * checked and then opened by name, so a symlink swapped in between (by a process of the session
 * racing the tool) would lead the open anywhere. Under a guard, a file is opened first and the
 * file the descriptor really refers to (`/proc/self/fd/N`, resolved by the kernel) is checked;
 * the bytes are then read through that descriptor. A write opens the target's folder, checks it,
 * and writes by name inside that open folder, where a symlink in the last part is replaced, never
 * followed. Without a guard (the CLI), files are opened by name as before.
 */
import { Context } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

export interface FileGuardService {
  /** Why `realPath` (symlinks resolved by the kernel) may not be accessed so, or undefined when it may. */
  readonly refuses: (realPath: string, access: "read" | "write") => string | undefined
}

/** The guard of the running tool call; undefined: no guard. */
export class FileGuard extends Context.Reference<FileGuard>()("toolgate/FileGuard", {
  defaultValue: (): FileGuardService | undefined => undefined
}) {}

export class FileGuardRefusal extends Error {
  readonly code = "EACCES"
}

const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_DIRECTORY, O_NOFOLLOW } = fs.constants

const descriptorPath = (fd: number) => `/proc/self/fd/${fd}`

/** The real path of what `fd` refers to (" (deleted)" kept: a deleted file stays where it was). */
const realPathOf = (fd: number) => fs.readlinkSync(descriptorPath(fd))

/** A file opened under the guard: `via` names the opened file itself (no lookup by name again). */
export interface GuardedFile {
  readonly fd: number
  readonly realPath: string
  readonly via: string
  readonly close: () => void
}

const closer = (fd: number) => {
  let closed = false
  return () => {
    if (closed) return
    closed = true
    fs.closeSync(fd)
  }
}

/**
 * Opens `file` (or a folder) for reading and checks what was opened. It does not block on a FIFO
 * or a device (the caller checks the descriptor's `fstat` before reading). Throws the open's own
 * error (ENOENT...) or a `FileGuardRefusal`.
 */
export const openForRead = (guard: FileGuardService, file: string): GuardedFile => {
  const fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | O_NOCTTY)
  const close = closer(fd)
  try {
    const realPath = realPathOf(fd)
    const reason = guard.refuses(realPath, "read")
    if (reason !== undefined) throw new FileGuardRefusal(reason)
    return { fd, realPath, via: descriptorPath(fd), close }
  } catch (error) {
    close()
    throw error
  }
}

/**
 * Opens the folder `file` is to be written in and checks `<folder>/<name>`: `via` then names the
 * file inside that open folder. A rename to `via` replaces whatever the name holds (a symlink
 * included) in that folder; an exclusive create there cannot follow a symlink either.
 */
export const openParentForWrite = (guard: FileGuardService, file: string): GuardedFile => {
  const fd = fs.openSync(path.dirname(file), O_RDONLY | O_DIRECTORY)
  const close = closer(fd)
  try {
    const realPath = path.join(realPathOf(fd), path.basename(file))
    const reason = guard.refuses(realPath, "write")
    if (reason !== undefined) throw new FileGuardRefusal(reason)
    return { fd, realPath, via: `${descriptorPath(fd)}/${path.basename(file)}`, close }
  } catch (error) {
    close()
    throw error
  }
}

/**
 * `mkdir -p` held to the guard: each missing folder is made inside its checked parent, and
 * entered without following a symlink; a symlink anywhere after the first existing folder stops it.
 */
export const makeDirectories = (guard: FileGuardService, dir: string): void => {
  const missing: Array<string> = []
  let existing = path.resolve(dir)
  while (!fs.existsSync(existing)) {
    const parent = path.dirname(existing)
    if (parent === existing) break
    missing.unshift(path.basename(existing))
    existing = parent
  }
  let fd = fs.openSync(existing, O_RDONLY | O_DIRECTORY)
  try {
    const reason = guard.refuses(realPathOf(fd), "write")
    if (reason !== undefined) throw new FileGuardRefusal(reason)
    for (const name of missing) {
      const inside = `${descriptorPath(fd)}/${name}`
      try {
        fs.mkdirSync(inside)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const next = fs.openSync(inside, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
      fs.closeSync(fd)
      fd = next
    }
  } finally {
    fs.closeSync(fd)
  }
}
