/** A small file system to fill up: a tmpfs mount (needs root) and a file that takes its last byte. */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"

/** Mounts a tmpfs of `size` (`4m`) on `dir`; false when it cannot (not root). */
export const mountTmpfs = (dir: string, size: string): boolean => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** Fills the file system of `file` with it, up to its last byte. */
export const fill = (file: string): void => {
  const fd = fs.openSync(file, "w")
  const block = Buffer.alloc(64 * 1024)
  try {
    for (;;) fs.writeSync(fd, block)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  } finally {
    fs.closeSync(fd)
  }
}
