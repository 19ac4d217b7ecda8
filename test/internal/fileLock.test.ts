/**
 * The lock of a shared file: a lock left by a process that is gone is broken; a live one is
 * waited for and then taken; the update sees the latest content.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { lockPathFor, updateFileLocked, withFileLock } from "../../src/internal/fileLock.js"
import { tempDir } from "../support/runtime.js"

const dir = tempDir("toolgate-lock-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("file lock", () => {
  it("breaks the lock of a process that is gone", async () => {
    const file = path.join(dir, "a.json")
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!
    fs.writeFileSync(lockPathFor(file), String(dead))
    await updateFileLocked(file, () => "1\n")
    expect(fs.readFileSync(file, "utf8")).toBe("1\n")
    expect(fs.existsSync(lockPathFor(file))).toBe(false)
  })

  it("waits for a live holder, then updates what the holder wrote", async () => {
    const file = path.join(dir, "b.json")
    let release: (() => void) | undefined
    const held = withFileLock(file, async () => {
      await new Promise<void>((resolve) => (release = resolve))
      fs.writeFileSync(file, "from the holder\n")
    })
    // the holder has the lock once its callback runs (a loaded machine may take a while)
    while (release === undefined) await new Promise((r) => setTimeout(r, 5))
    const waiting = updateFileLocked(file, (current) => `${current ?? ""}and the waiter\n`)
    release()
    await Promise.all([held, waiting])
    expect(fs.readFileSync(file, "utf8")).toBe("from the holder\nand the waiter\n")
  })

  it("gives up on a live lock after its timeout, naming the lock file", async () => {
    const file = path.join(dir, "c.json")
    fs.writeFileSync(lockPathFor(file), String(process.pid))
    await expect(updateFileLocked(file, () => "x", { timeoutMs: 50 })).rejects.toThrow(/is locked by another process/)
    fs.rmSync(lockPathFor(file))
  })
})
