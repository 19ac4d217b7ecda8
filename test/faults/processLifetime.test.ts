/**
 * No process outlives the toolgate that started it, whatever kills toolgate (SIGKILL included) and
 * even when the process called `setsid` (a new session and process group, out of reach of group
 * signals): foreground and background Bash commands, hooks, MCP servers, under `run -p`, `exec`
 * and `call`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { testServerScript } from "../support/mcpTestServer.js"
import {
  bash,
  killAll,
  newMarker,
  processesWith,
  project,
  startCli,
  survivors,
  waitFor,
  writeScript
} from "./support.js"

const markers: Array<string> = []
afterEach(() => {
  for (const marker of markers.splice(0)) killAll(marker)
})

const marked = () => {
  const marker = newMarker()
  markers.push(marker)
  return marker
}

/** A command leaving three processes: one in a new session, one ignoring SIGTERM, one plain. */
const escapingCommand = (marker: string) =>
  `setsid sleep ${marker} & (trap '' TERM INT; exec sleep ${marker}) & sleep ${marker}; wait`

describe("no process outlives a killed toolgate", () => {
  it("run -p: foreground and background Bash commands that call setsid are gone after SIGKILL", async () => {
    const p = project()
    const [fg, bg] = [marked(), marked()]
    const script = writeScript(p, [[
      bash("toolu_bg", escapingCommand(bg), { run_in_background: true }),
      bash("toolu_fg", escapingCommand(fg))
    ]])
    const run = startCli(p, [
      "run",
      "-p",
      "go",
      "--replay",
      script,
      "--replay-speed",
      "0",
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      path.join(p.dir, ".s")
    ])
    await waitFor(() => processesWith(fg).length >= 3 && processesWith(bg).length >= 3, run, "the commands to start")
    run.child.kill("SIGKILL")
    await run.exited
    expect({ fg: await survivors(fg), bg: await survivors(bg) }).toEqual({ fg: [], bg: [] })
  }, 120_000)

  it("exec: a hook's and an MCP server's setsid children are gone after SIGKILL", async () => {
    const p = project()
    const [hook, mcp] = [marked(), marked()]
    const claude = path.join(p.env.HOME!, ".claude")
    fs.mkdirSync(claude, { recursive: true })
    fs.writeFileSync(
      path.join(claude, "settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: escapingCommand(hook), timeout: 600 }] }]
        }
      })
    )
    const server = {
      command: "/bin/bash",
      args: ["-c", `setsid sleep ${mcp} & exec "${process.execPath}" "${testServerScript()}"`]
    }
    const run = startCli(
      p,
      [
        "exec",
        "-",
        "--json",
        "--permission-mode",
        "bypassPermissions",
        "--mcp-config",
        JSON.stringify({ mcpServers: { srv: server } }),
        "--session-dir",
        path.join(p.dir, ".s")
      ],
      JSON.stringify([bash("toolu_1", "echo hi")])
    )
    await waitFor(
      () => processesWith(hook).length >= 3 && processesWith(mcp).length >= 1,
      run,
      "the hook and the MCP server to start"
    )
    run.child.kill("SIGKILL")
    await run.exited
    expect({ hook: await survivors(hook), mcp: await survivors(mcp) }).toEqual({ hook: [], mcp: [] })
  }, 120_000)

  it("call: a Bash command that calls setsid is gone after SIGKILL", async () => {
    const p = project()
    const marker = marked()
    const run = startCli(p, [
      "call",
      "Bash",
      JSON.stringify({ command: escapingCommand(marker) }),
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      path.join(p.dir, ".s")
    ])
    await waitFor(() => processesWith(marker).length >= 3, run, "the command to start")
    run.child.kill("SIGKILL")
    await run.exited
    expect(await survivors(marker)).toEqual([])
  }, 120_000)

  it("SIGTERM: a command that calls setsid is gone too, and the call is answered", async () => {
    const p = project()
    const marker = marked()
    const run = startCli(p, [
      "call",
      "Bash",
      JSON.stringify({ command: escapingCommand(marker) }),
      "--json",
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      path.join(p.dir, ".s")
    ])
    await waitFor(() => processesWith(marker).length >= 3, run, "the command to start")
    run.child.kill("SIGTERM")
    expect(await run.exited).toBe(143)
    expect(await survivors(marker)).toEqual([])
    expect(JSON.parse(run.out.stdout).result.tool_use_id).toMatch(/^toolu_call_/)
  }, 120_000)
})
