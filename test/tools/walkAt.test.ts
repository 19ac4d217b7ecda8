/**
 * The JS walk from an opened root (served sessions without a sandbox): a folder swapped for a
 * symlink after its parent was listed and before it is entered is skipped, where a walk by name
 * follows it out of the root. The swap happens between two steps of the walk, so the race is
 * won every time.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { walkFiles, walkFilesAt } from "../../src/tools/files/walk.js"
import { tempDir } from "../support/runtime.js"

const root = fs.realpathSync(tempDir("toolgate-walk-at-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A workspace with `a.txt` (listed first) and `sub/mine.txt`, and a folder outside it. */
const tree = (name: string) => {
  const ws = path.join(root, name, "ws")
  const outside = path.join(root, name, "outside")
  fs.mkdirSync(path.join(ws, "sub"), { recursive: true })
  fs.mkdirSync(outside, { recursive: true })
  fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
  fs.writeFileSync(path.join(ws, "sub", "mine.txt"), "mine\n")
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n")
  /** `sub` becomes a symlink leading outside. */
  const swap = () => {
    fs.renameSync(path.join(ws, "sub"), path.join(ws, ".sub.moved"))
    fs.symlinkSync(outside, path.join(ws, "sub"))
  }
  return { ws, swap }
}

/** Walks, swapping `sub` once the first file (listed before it) has come out. */
const walkSwapping = async (files: AsyncIterable<string>, swap: () => void) => {
  const seen: Array<string> = []
  for await (const file of files) {
    if (seen.length === 0) swap()
    seen.push(file)
  }
  return seen
}

describe("walkFilesAt", () => {
  it("a walk by name follows a folder swapped for a symlink out of the root (the reason walkFilesAt exists)", async () => {
    const { swap, ws } = tree("by-name")
    const seen = await walkSwapping(walkFiles({ root: ws, respectIgnoreFiles: false }), swap)
    expect(seen).toContain(path.join(ws, "sub", "secret.txt"))
  })

  it("skips the swapped folder: nothing outside the opened root is listed", async () => {
    const { swap, ws } = tree("opened")
    const fd = fs.openSync(ws, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
    try {
      const walked = async function*() {
        for await (const file of walkFilesAt({ root: ws, respectIgnoreFiles: false, at: `/proc/self/fd/${fd}` })) {
          yield file.path
        }
      }
      expect(await walkSwapping(walked(), swap)).toEqual([path.join(ws, "a.txt")])
    } finally {
      fs.closeSync(fd)
    }
  })

  it("lists the same files as a walk by name when nothing moves, each openable through its folder", async () => {
    const { ws } = tree("still")
    const fd = fs.openSync(ws, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
    try {
      const byName: Array<string> = []
      for await (const file of walkFiles({ root: ws, respectIgnoreFiles: false })) byName.push(file)
      const opened: Array<string> = []
      for await (const file of walkFilesAt({ root: ws, respectIgnoreFiles: false, at: `/proc/self/fd/${fd}` })) {
        opened.push(file.path)
        expect(fs.readFileSync(file.open, "utf8")).toBe(fs.readFileSync(file.path, "utf8"))
      }
      expect(opened).toEqual(byName)
    } finally {
      fs.closeSync(fd)
    }
  })

  it("honours the ignore files inside the opened root as a walk by name does", async () => {
    const { ws } = tree("ignores")
    fs.mkdirSync(path.join(ws, ".git", "info"), { recursive: true })
    fs.writeFileSync(path.join(ws, ".gitignore"), "*.log\n")
    fs.writeFileSync(path.join(ws, "sub", ".ignore"), "skip.txt\n")
    fs.writeFileSync(path.join(ws, "sub", "skip.txt"), "skip\n")
    fs.writeFileSync(path.join(ws, "sub", "x.log"), "log\n")
    const fd = fs.openSync(ws, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
    try {
      const byName: Array<string> = []
      for await (const file of walkFiles({ root: ws, respectIgnoreFiles: true })) byName.push(file)
      const opened: Array<string> = []
      for await (const file of walkFilesAt({ root: ws, respectIgnoreFiles: true, at: `/proc/self/fd/${fd}` })) {
        opened.push(file.path)
      }
      expect(opened).toEqual(byName)
      expect(opened.map((f) => path.basename(f))).not.toContain("x.log")
      expect(opened.map((f) => path.basename(f))).not.toContain("skip.txt")
    } finally {
      fs.closeSync(fd)
    }
  })

  it("skips a folder whose real path the guard refuses", async () => {
    const { ws } = tree("refused")
    const fd = fs.openSync(ws, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
    try {
      const opened: Array<string> = []
      const allowed = (real: string) => !real.startsWith(path.join(ws, "sub"))
      for await (
        const file of walkFilesAt({ root: ws, respectIgnoreFiles: false, at: `/proc/self/fd/${fd}`, allowed })
      ) opened.push(file.path)
      expect(opened).toEqual([path.join(ws, "a.txt")])
    } finally {
      fs.closeSync(fd)
    }
  })
})
