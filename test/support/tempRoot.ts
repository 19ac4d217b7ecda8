/**
 * Vitest global setup: the whole run gets one temporary folder (TMPDIR, inherited by the test
 * workers and every process they start), removed when the run ends. Tests make their folders
 * with os.tmpdir() and need not clean up after themselves for the machine to stay clean.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export default function setup(): () => void {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tests-")))
  process.env.TMPDIR = root
  return () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 })
}
