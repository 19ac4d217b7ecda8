/**
 * Every exit path answers every call: a third Ctrl-C (with shells that ignore SIGTERM), Ctrl-C
 * while MCP servers start, SIGTERM while they start. The results are printed, each tool_use has
 * its tool_result, nothing that was not started runs, and no process is left.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { recordGone } from "../support/pidRecords.js"
import {
  bash,
  killAll,
  newMarker,
  processesWith,
  project,
  sleep,
  startCli,
  survivors,
  transcriptLines,
  waitFor,
  writeScript,
  type Project
} from "./support.js"

const SILENT_SERVER = path.resolve(import.meta.dirname, "../fixtures/mcp/silentServer.mjs")

const markers: Array<string> = []
afterEach(() => {
  for (const marker of markers.splice(0)) killAll(marker)
})

const marked = () => {
  const marker = newMarker()
  markers.push(marker)
  return marker
}

/** A shell that ignores SIGTERM and SIGINT, and its child that does too. */
const stubborn = (marker: string) =>
  `trap '' TERM INT; (trap '' TERM INT; exec sleep ${marker}) & sleep ${marker}; echo never`

type Block = { readonly type: string; readonly tool_use_id?: string; readonly is_error?: boolean }

const answeredIds = (stdout: string): ReadonlyArray<string | undefined> => {
  const report = JSON.parse(stdout) as { message: { content: ReadonlyArray<Block> } }
  return report.message.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
}

const threePresses = async (child: { kill: (s: NodeJS.Signals) => boolean }) => {
  for (let i = 0; i < 3; i++) {
    child.kill("SIGINT")
    await sleep(150)
  }
}

describe("a third Ctrl-C", () => {
  it("exec: every call is answered on stdout, the queued one does not run, no process is left", async () => {
    const p = project()
    const marker = marked()
    const calls = [bash("toolu_fg", stubborn(marker)), bash("toolu_next", "touch next-ran")]
    const run = startCli(p, [
      "exec",
      "-",
      "--json",
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      path.join(p.dir, ".s")
    ], JSON.stringify(calls))
    await waitFor(() => processesWith(marker).length >= 2, run, "the shell to start")
    await threePresses(run.child)
    expect(await run.exited).toBe(130)
    expect(await survivors(marker)).toEqual([])
    expect(answeredIds(run.out.stdout)).toEqual(["toolu_fg", "toolu_next"])
    expect(fs.existsSync(path.join(p.dir, "next-ran"))).toBe(false)
  }, 120_000)

  it("run -p: the transcript answers every call and the JSON result is printed", async () => {
    const p = project()
    const marker = marked()
    const sessionDir = path.join(p.dir, ".session")
    const script = writeScript(p, [[bash("toolu_fg", stubborn(marker))]])
    const run = startCli(p, [
      "run",
      "-p",
      "go",
      "--replay",
      script,
      "--replay-speed",
      "0",
      "--output-format",
      "json",
      "--permission-mode",
      "bypassPermissions",
      "--session-dir",
      sessionDir
    ])
    await waitFor(() => processesWith(marker).length >= 2, run, "the shell to start")
    await threePresses(run.child)
    // as claude -p: exit 0, the result says the run was stopped
    expect(await run.exited).toBe(0)
    expect(await survivors(marker)).toEqual([])
    const answered = transcriptLines(sessionDir)
      .filter((l) => l.type === "tool_results")
      .flatMap((l) =>
        ((l.message as { content: ReadonlyArray<Block> }).content ?? []).filter((b) => b.type === "tool_result").map((
          b
        ) => b.tool_use_id)
      )
    expect(answered).toEqual(["toolu_fg"])
    expect(JSON.parse(run.out.stdout)).toMatchObject({ type: "result", session_id: expect.any(String) })
  }, 120_000)
})

/** exec with an MCP server that never answers `initialize` (so start-up waits for MCP_TIMEOUT). */
const execWhileMcpStarts = (p: Project, pidFile: string) => {
  const server = { command: process.execPath, args: [SILENT_SERVER, pidFile] }
  const calls = [bash("toolu_1", "touch one-ran"), {
    type: "tool_use",
    id: "toolu_2",
    name: "mcp__srv__echo",
    input: { text: "x" }
  }]
  return startCli(
    { ...p, env: { ...p.env, MCP_TIMEOUT: "120000" } },
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
    JSON.stringify(calls)
  )
}

describe("a signal while MCP servers start", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`${signal}: every call is answered on stdout, none runs, the server is gone (exit ${code})`, async () => {
      const p = project()
      const pidFile = path.join(p.dir, "mcp.pid")
      const run = execWhileMcpStarts(p, pidFile)
      await waitFor(
        () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8") !== "",
        run,
        "the MCP server to start"
      )
      const { pid, grandchild } = JSON.parse(fs.readFileSync(pidFile, "utf8")) as { pid: number; grandchild: number }
      await sleep(200)
      run.child.kill(signal)
      expect(await run.exited).toBe(code)
      expect(answeredIds(run.out.stdout)).toEqual(["toolu_1", "toolu_2"])
      expect(fs.existsSync(path.join(p.dir, "one-ran"))).toBe(false)
      expect([await recordGone({ pid }), await recordGone({ pid: grandchild })]).toEqual([true, true])
    }, 120_000)
  }
})
