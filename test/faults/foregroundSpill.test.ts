/**
 * A foreground command's spilled output is bounded on disk: past `TOOLGATE_BASH_OUTPUT_MAX_BYTES`
 * (default 5 GB, the limit Claude Code puts on a command's output) the command is stopped, its file
 * cut at the limit with a notice at its end, and the result says so.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bash, project, startCli } from "./support.js"

describe("a foreground command writing without end", () => {
  it("is stopped at the spill limit; its file is cut there with a notice; the result says so", async () => {
    const p = project({ TOOLGATE_BASH_OUTPUT_MAX_BYTES: String(1024 * 1024) })
    const sessionDir = path.join(p.dir, ".session")
    const run = startCli(p, [
      "exec",
      "-",
      "--json",
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      sessionDir
    ], JSON.stringify([bash("toolu_yes", "yes toolgate", { timeout: 60_000 })]))
    expect(await run.exited).toBe(1)
    const result = JSON.parse(run.out.stdout).message.content[0]
    expect(result.is_error).toBe(true)
    expect(result.content).toContain("Command killed: output file exceeded 1MB")
    expect(result.content).not.toContain("timed out")
    const dir = path.join(sessionDir, "bash-output")
    const [file] = fs.readdirSync(dir)
    const text = fs.readFileSync(path.join(dir, file!), "utf8")
    expect(text.endsWith("\nCommand killed: output file exceeded 1MB\n")).toBe(true)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024 + 64)
  }, 120_000)
})
