/**
 * Read-modify-write of a shared file by several processes at once (two toolgate sessions saving
 * "always allow" rules to the same `.claude/settings.local.json`): a lock file beside the target
 * (exclusive create, holding the owner's pid), the file re-read under the lock, then replaced
 * atomically. A lock whose owner is gone is broken; a live one is waited for, up to a bound.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { writeFileAtomic } from "./atomicWrite.js"

export const lockPathFor = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.lock`)

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A lock left by a process that is gone (or unreadable and old): safe to break. */
const isStale = (lock: string, unreadableAfterMs: number): boolean => {
  let text: string
  let mtimeMs: number
  try {
    text = fs.readFileSync(lock, "utf8")
    mtimeMs = fs.statSync(lock).mtimeMs
  } catch {
    return false // gone already: the next attempt takes it
  }
  const pid = Number(text.trim())
  if (Number.isInteger(pid) && pid > 0) return !isAlive(pid)
  // written by a process that died between creating and filling it, or not ours at all
  return Date.now() - mtimeMs > unreadableAfterMs
}

export interface LockOptions {
  /** How long to wait for a live lock before giving up (default 10 s). */
  readonly timeoutMs?: number
}

/** Runs `body` while holding the lock of `file`. */
export const withFileLock = async <A>(file: string, body: () => Promise<A>, options: LockOptions = {}): Promise<A> => {
  const lock = lockPathFor(file)
  const deadline = Date.now() + (options.timeoutMs ?? 10_000)
  let delay = 5
  for (;;) {
    try {
      const handle = await fs.promises.open(lock, "wx", 0o600)
      try {
        await handle.writeFile(String(process.pid))
      } finally {
        await handle.close()
      }
      break
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
    }
    if (isStale(lock, 5_000)) {
      await fs.promises.rm(lock, { force: true })
      continue
    }
    if (Date.now() > deadline) {
      throw new Error(`${file} is locked by another process (${lock}); remove the lock file if no toolgate is running`)
    }
    // jittered backoff, so waiting processes do not retry in step
    await sleep(delay + Math.floor(Math.random() * delay))
    delay = Math.min(delay * 2, 100)
  }
  try {
    return await body()
  } finally {
    await fs.promises.rm(lock, { force: true })
  }
}

/**
 * Replaces `file` with `update(current text)` under its lock, re-reading it there so no other
 * process's change is lost. `update` returning undefined leaves the file as it is.
 */
export const updateFileLocked = async (
  file: string,
  update: (current: string | undefined) => string | undefined,
  options: LockOptions & { readonly mode?: number } = {}
): Promise<void> => {
  await fs.promises.mkdir(path.dirname(file), { recursive: true })
  await withFileLock(
    file,
    async () => {
      let current: string | undefined
      try {
        current = await fs.promises.readFile(file, "utf8")
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== "ENOENT") throw cause
      }
      const next = update(current)
      if (next === undefined || next === current) return
      await writeFileAtomic(file, next, options.mode === undefined ? {} : { mode: options.mode })
    },
    options
  )
}
