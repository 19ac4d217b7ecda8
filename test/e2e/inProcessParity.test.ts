/**
 * Many tests run toolgate's commands in the test process (runCliInProcess) because starting the
 * CLI costs ten times the CPU. That is only sound while both ways give the same answer: the same
 * stdout, stderr and exit code, reading the same stdin and environment, in the same folder.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cleanEnv, copyExample, runCli, runCliInProcess, type RunOptions } from "../services/Agent/cliSupport.js"

const { project } = copyExample()
const brokenProject = copyExample().project
fs.mkdirSync(path.join(brokenProject, ".claude"), { recursive: true })
fs.writeFileSync(path.join(brokenProject, ".claude", "settings.json"), "{ \"permissions\": { \"deny\": \"Bash\" } }")

const read = (file: string) =>
  JSON.stringify({
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: file } }]
  })

const CASES: ReadonlyArray<readonly [string, ReadonlyArray<string>, RunOptions]> = [
  ["tools --json", ["tools", "--json"], { cwd: project }],
  ["a usage error (exit 2)", ["run", "--no-such-flag"], { cwd: project }],
  ["--help", ["call", "--help"], { cwd: project }],
  ["exec of a message on stdin", ["exec", "-", "--json"], {
    cwd: project,
    input: read(path.join(project, "README.md"))
  }],
  ["call with its input on stdin", ["call", "Read"], {
    cwd: project,
    input: JSON.stringify({ file_path: path.join(project, "README.md") })
  }],
  ["bad JSON on stdin (exit 1)", ["exec", "-"], { cwd: project, input: "{nope" }],
  ["a permission check (exit by decision)", [
    "permissions",
    "check",
    "Bash",
    JSON.stringify({ command: "rm -rf build" })
  ], { cwd: project }],
  ["broken settings (exit 78)", ["call", "Read", JSON.stringify({ file_path: "README.md" })], { cwd: brokenProject }],
  ["a Bash call that sees the environment and folder", [
    "call",
    "Bash",
    JSON.stringify({ command: "pwd; printenv PARITY" }),
    "--allowed-tools",
    "Bash"
  ], { cwd: project }]
]

describe("a command run in this process answers as the built CLI does", () => {
  it.each(CASES)("%s", async (_name, args, options) => {
    const env = cleanEnv({ PARITY: "from the environment" })
    const common = { ...options, env: { ...env, ...options.env }, timeoutMs: 60_000 }
    const [built, here] = [await runCli(args, common), await runCliInProcess(args, common)]
    // timings and generated ids differ from run to run
    const normalise = (text: string) => text.replace(/toolu_[A-Za-z0-9]+|\d+(\.\d+)? ?ms|"\w+_ms": \d+|· \d+–/g, "…")
    expect({ code: here.code, stdout: normalise(here.stdout), stderr: normalise(here.stderr) }).toEqual({
      code: built.code,
      stdout: normalise(built.stdout),
      stderr: normalise(built.stderr)
    })
    expect(built.stdout + built.stderr).not.toBe("")
  })

  it("a command run in this process sees its own folder and environment, and leaves the test's", async () => {
    const before = { cwd: process.cwd(), env: { ...process.env } }
    const ran = await runCliInProcess([
      "call",
      "Bash",
      JSON.stringify({ command: "pwd; printenv PARITY" }),
      "--allowed-tools",
      "Bash"
    ], {
      cwd: project,
      env: cleanEnv({ PARITY: "from the environment" })
    })
    expect(ran.stdout).toContain(project)
    expect(ran.stdout).toContain("from the environment")
    expect({ cwd: process.cwd(), env: process.env }).toEqual(before)
  })
})
