/**
 * Appending to a line-per-record file (transcripts) on a full disk: the file-size limit
 * (RLIMIT_FSIZE) stands in for the disk, so the write that crosses it is cut short and the next
 * fails with EFBIG. Whole lines or nothing: a reader never meets a torn last line.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"

const dir = tempDir("toolgate-append-")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const MODULE = path.resolve(__dirname, "..", "..", "src", "internal", "appendWhole.ts")
const LINE = `${JSON.stringify({ type: "record", text: "x".repeat(280) })}\n`

/** Appends LINE 20 times under a 1 KB file-size limit with `how`; the file and what was reported. */
const appendUnderLimit = (how: "appendLineWhole" | "appendFileSync") => {
  const file = path.join(dir, `${how}.jsonl`)
  const script = `
    import * as fs from "node:fs"
    import { appendLineWhole } from ${JSON.stringify(MODULE)}
    const line = ${JSON.stringify(LINE)}
    const errors = []
    for (let i = 0; i < 20; i++) {
      try {
        ${
    how === "appendLineWhole" ? "appendLineWhole(process.argv[1], line)" : "fs.appendFileSync(process.argv[1], line)"
  }
      } catch (e) {
        errors.push(e.code ?? e.message)
      }
    }
    process.stdout.write(JSON.stringify(errors))
  `
  const ran = spawnSync("bash", [
    "-c",
    `ulimit -f 1 && exec "$0" --import tsx --input-type=module -e "$1" "$2"`,
    process.execPath,
    script,
    file
  ], {
    cwd: path.resolve(__dirname, "..", ".."),
    encoding: "utf8"
  })
  expect(ran.status, ran.stderr).toBe(0)
  return { text: fs.readFileSync(file, "utf8"), errors: JSON.parse(ran.stdout) as Array<string> }
}

describe("appendLineWhole on a full disk", () => {
  it("keeps whole lines only and reports every line it could not write", () => {
    const { text, errors } = appendUnderLimit("appendLineWhole")
    expect(text.length % LINE.length).toBe(0)
    expect(text.length).toBeGreaterThan(0)
    expect(text.length / LINE.length + errors.length).toBe(20)
    for (const line of text.split("\n").filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow()
  })

  it("where a plain append leaves a torn last line", () => {
    const { text } = appendUnderLimit("appendFileSync")
    expect(text.length % LINE.length).not.toBe(0)
  })
})
