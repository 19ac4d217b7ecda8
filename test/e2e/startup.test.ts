/**
 * Start-up of the built CLI (`dist/toolgate.cjs`): what a command loads before it answers.
 * Never timed (bench/startup.ts measures); these tests check which code a process reads.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { VERSION } from "../../src/version.js"
import { tempDir } from "../support/runtime.js"

const root = path.resolve(__dirname, "../..")
const bin = path.join(root, "dist", "toolgate.cjs")

/** Preloaded into the CLI process: names every file of dist/ the process reads, on stderr. */
const TRACER = `"use strict"
const fs = require("node:fs")
const read = fs.readFileSync
fs.readFileSync = function (file, ...rest) {
  if (typeof file === "string" && file.includes(${
  JSON.stringify(path.join(root, "dist"))
})) process.stderr.write("READ " + file + "\\n")
  return read.call(this, file, ...rest)
}
`

const run = (args: ReadonlyArray<string>) => {
  const cwd = tempDir("toolgate-e2e-startup-")
  const tracer = path.join(cwd, "tracer.cjs")
  fs.writeFileSync(tracer, TRACER)
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: "1",
    CLAUDE_CONFIG_DIR: path.join(cwd, ".no-user-config")
  }
  delete env.NODE_OPTIONS
  const result = spawnSync(process.execPath, ["--require", tracer, bin, ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 60_000
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("start-up of the built CLI", () => {
  it("--version answers from the launcher: the command code (toolgate-main.cjs) is never read", () => {
    const ran = run(["--version"])
    expect(ran.status).toBe(0)
    // byte for byte what the front end prints (Claude Code's form: "2.1.332 (Claude Code)")
    expect(ran.stdout).toBe(`${VERSION} (toolgate)\n`)
    expect(ran.stderr).not.toContain("toolgate-main.cjs")
  })

  it("anything else still runs the command tree (the version option among other arguments too)", () => {
    const help = run(["--help"])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("toolgate")
    expect(help.stderr).toContain("READ " + path.join(root, "dist", "toolgate-main.cjs"))
    const tools = run(["tools", "--version"])
    expect(tools.stdout).toBe(`${VERSION} (toolgate)\n`)
    expect(tools.stderr).toContain("toolgate-main.cjs")
  })
})
