/**
 * An MCP result over the message limit (65 MB against 64 MB) is refused as it arrives: the call
 * gets an error result naming the limit, and the server stays connected for the next call.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"
import { testServerScript } from "../support/mcpTestServer.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

describe("a huge MCP result", () => {
  it("is refused at the limit, and the server keeps answering", async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-mcp-huge-"))
    dirs.push(cwd)
    const env = cleanEnv()
    dirs.push(env.HOME!)
    const config = JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [testServerScript()] } } })
    const message = [
      { type: "tool_use", id: "toolu_huge", name: "mcp__big__huge", input: { chars: 65 * 1024 * 1024 } },
      { type: "tool_use", id: "toolu_echo", name: "mcp__big__echo", input: { message: "still here" } }
    ]
    const ran = await runCli(
      [
        "exec",
        "-",
        "--json",
        "--cwd",
        cwd,
        "--strict-mcp-config",
        "--mcp-config",
        config,
        "--allowed-tools",
        "mcp__big__huge mcp__big__echo",
        "--session-dir",
        path.join(cwd, ".s")
      ],
      { cwd, env, input: JSON.stringify(message), timeoutMs: 120_000 }
    )
    // exit 1: one call failed (the refused one)
    expect(ran.code, ran.stderr).toBe(1)
    const results = JSON.parse(ran.stdout).message.content
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_huge", is_error: true })
    expect(JSON.stringify(results[0].content)).toMatch(/over the 64 MB limit of one MCP message/)
    expect(results[1].is_error ?? false).toBe(false)
    expect(JSON.stringify(results[1].content)).toContain("still here")
  }, 180_000)
})
