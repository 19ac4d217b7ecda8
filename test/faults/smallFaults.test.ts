/**
 * Smaller faults: a concurrency cap that cannot be read is not ignored in silence, and an MCP
 * server that answers `initialize` with something that is not JSON-RPC is failed at once, naming
 * the line (a server that only printed a banner is still waited for, and the line is named when
 * it times out).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bash, project, startCli, type Project } from "./support.js"

const execTouch = async (p: Project, extraArgs: ReadonlyArray<string> = []) => {
  const run = startCli(p, [
    "exec",
    "-",
    "--json",
    "--permission-mode",
    "bypassPermissions",
    "--session-dir",
    path.join(p.dir, ".s"),
    ...extraArgs
  ], JSON.stringify([bash("toolu_1", "touch ran")]))
  const code = await run.exited
  return { code, stdout: run.out.stdout, stderr: run.out.stderr, ran: fs.existsSync(path.join(p.dir, "ran")) }
}

describe("the concurrency cap from the environment", () => {
  it("TOOLGATE_MAX_TOOL_USE_CONCURRENCY=abc stops toolgate with a usage error naming it; nothing runs", async () => {
    const p = project({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "abc" })
    const ran = await execTouch(p)
    expect(ran.code).toBe(2)
    expect(ran.ran).toBe(false)
    expect(ran.stdout).toBe("")
    expect(ran.stderr.trim().split("\n")).toHaveLength(1)
    expect(ran.stderr).toContain("TOOLGATE_MAX_TOOL_USE_CONCURRENCY")
    expect(ran.stderr).toContain("abc")
  }, 60_000)

  it("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=abc (Claude Code's variable) warns and keeps the default", async () => {
    const p = project({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: "abc" })
    const ran = await execTouch(p)
    expect(ran.code).toBe(0)
    expect(ran.ran).toBe(true)
    expect(ran.stderr).toMatch(/warning: CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY.*abc.*10/)
  }, 60_000)
})

const serverPrinting = (p: Project, lines: ReadonlyArray<string>): string => {
  const file = path.join(p.dir, "bad-server.mjs")
  fs.writeFileSync(
    file,
    `${lines.map((l) => `process.stdout.write(${JSON.stringify(`${l}\n`)})`).join("\n")}\nprocess.stdin.resume()\n`
  )
  return JSON.stringify({ mcpServers: { bad: { command: process.execPath, args: [file] } } })
}

describe("an MCP server that does not speak JSON-RPC", () => {
  it("answering initialize with JSON that is not JSON-RPC: failed at once, the line named", async () => {
    const p = project({ MCP_TIMEOUT: "120000" })
    const ran = await execTouch(p, ["--mcp-config", serverPrinting(p, ["{\"hello\":\"I am not JSON-RPC\"}"])])
    expect(ran.ran).toBe(true)
    expect(ran.stderr).toContain("{\"hello\":\"I am not JSON-RPC\"}")
    expect(ran.stderr).not.toContain("MCP_TIMEOUT")
  }, 45_000)

  it("a banner and then nothing: the timeout names the line", async () => {
    const p = project({ MCP_TIMEOUT: "1500" })
    const ran = await execTouch(p, ["--mcp-config", serverPrinting(p, ["Server running on stdio"])])
    expect(ran.ran).toBe(true)
    expect(ran.stderr).toMatch(/MCP_TIMEOUT[\s\S]*Server running on stdio/)
  }, 45_000)
})
