/**
 * The recorder needs Claude Code; without it (nothing on PATH, no install, no
 * CONFORMANCE_CLAUDE_BIN) it says so, records nothing and exits cleanly, so the suite itself
 * never depends on Claude Code.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(__dirname, "..", "..")
const GOLDENS = path.join(ROOT, "conformance", "goldens")

const listing = () =>
  fs
    .readdirSync(GOLDENS)
    .sort()
    .map((f) => `${f}:${fs.statSync(path.join(GOLDENS, f)).mtimeMs}`)

describe("npm run conformance:record", () => {
  it("without Claude Code: a clear message, nothing recorded, exit 0", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-norecord-"))
    const before = listing()
    const ran = spawnSync(process.execPath, [
      "--import",
      "tsx",
      path.join(ROOT, "conformance", "record.ts"),
      "--only",
      "baseline-read"
    ], {
      cwd: ROOT,
      encoding: "utf8",
      env: { PATH: path.dirname(process.execPath), HOME: home },
      // a generous bound: tsx compiles the recorder on a start that a loaded machine makes slow
      timeout: 240_000
    })
    expect(ran.status).toBe(0)
    expect(ran.stderr).toContain("conformance:record: skipped. Claude Code 2.1.332 was not found")
    expect(ran.stderr).toContain("npm install --prefix ~/.cache/claude-code @anthropic-ai/claude-code@2.1.332")
    expect(listing()).toEqual(before)
    fs.rmSync(home, { recursive: true, force: true })
  }, 300_000)
})
