/**
 * Signals run every finaliser: SIGTERM and SIGHUP act like the first Ctrl-C (calls cancel or
 * finish, every tool_use is answered, the transcript ends properly) and then end the command
 * with 143 / 129; no process group toolgate started survives — foreground and background shells
 * that ignore SIGTERM, an MCP server and its child, a hook, ripgrep. A third Ctrl-C stops
 * everything without skipping the finalisers either.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"
import { testServerScript } from "../support/mcpTestServer.js"
import { isRecordAlive, killRecord, parsePidRecord, recordSelf, type PidRecord } from "../support/pidRecords.js"
import { pidRecordsOf } from "../services/McpClients/support.js"

const dirs: Array<string> = []
const leftovers: Array<PidRecord> = []
afterAll(() => {
  for (const record of leftovers) killRecord(record)
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** Alive and not a zombie. */
const alive = isRecordAlive

const project = () => {
  const dir = fs.realpathSync(tempDir("toolgate-signals-"))
  const env = cleanEnv()
  dirs.push(dir, env.HOME!)
  return { dir, env }
}

const start = (dir: string, env: Record<string, string>, args: ReadonlyArray<string>, input = "") => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] })
  const out = { stdout: "", stderr: "" }
  child.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()))
  child.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()))
  child.stdin.end(input)
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  return { child, out, exited }
}

const waitForFiles = async (files: ReadonlyArray<string>, child: ChildProcess, out: { stderr: string }) => {
  const t0 = Date.now()
  while (!files.every((f) => fs.existsSync(f) && fs.readFileSync(f, "utf8").trim() !== "")) {
    if (child.exitCode !== null || Date.now() - t0 > 90_000) {
      throw new Error(`never started: ${files.filter((f) => !fs.existsSync(f)).join(", ")}\n${out.stderr}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  const pids = files.flatMap((f): ReadonlyArray<PidRecord> => {
    const text = fs.readFileSync(f, "utf8").trim()
    if (!text.startsWith("{")) return [parsePidRecord(text)]
    const { pid, grandchild } = pidRecordsOf(text)
    return [pid, grandchild]
  })
  leftovers.push(...pids)
  return pids
}

/** A shell that ignores SIGTERM (so does its child): only SIGKILL ends it. */
const stubborn = (pidFile: string) => `trap '' TERM INT; ${recordSelf(pidFile)}; sleep 300; echo never`

describe("signals", () => {
  it(
    "SIGTERM during `run -p`: shells, a background shell and an MCP server with its child are gone; every call answered; exit 143",
    async () => {
      const { dir, env } = project()
      const [bg, fg, mcp] = ["bg.pid", "fg.pid", "mcp.json"].map((f) => path.join(dir, f))
      const script = [
        { type: "user", text: "go" },
        {
          type: "turn",
          content: [
            {
              type: "tool_use",
              id: "toolu_bg",
              name: "Bash",
              input: { command: stubborn(bg!), run_in_background: true }
            },
            { type: "tool_use", id: "toolu_mcp", name: "mcp__srv__pids", input: {} }
          ],
          stop_reason: "tool_use"
        },
        {
          type: "turn",
          content: [{ type: "tool_use", id: "toolu_fg", name: "Bash", input: { command: stubborn(fg!) } }],
          stop_reason: "tool_use"
        },
        { type: "turn", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" }
      ]
      fs.writeFileSync(path.join(dir, "script.jsonl"), script.map((l) => JSON.stringify(l)).join("\n"))
      const server = { command: process.execPath, args: [testServerScript(), "--grandchild", `--pidfile=${mcp}`] }
      const sessionDir = path.join(dir, ".session")
      const run = start(dir, env, [
        "run",
        "-p",
        "go",
        "--replay",
        "script.jsonl",
        "--replay-speed",
        "0",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        "--mcp-config",
        JSON.stringify({ mcpServers: { srv: server } }),
        "--session-dir",
        sessionDir
      ])
      const pids = await waitForFiles([bg!, mcp!, fg!], run.child, run.out)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(143)
      expect(pids.filter(alive)).toEqual([])
      // every tool_use of the transcript has its tool_result, and the session ended
      const lines = fs.readFileSync(path.join(sessionDir, "transcript.jsonl"), "utf8").trim().split("\n").map((l) =>
        JSON.parse(l)
      )
      const answered = lines
        .filter((l) => l.type === "tool_results")
        .flatMap((l) =>
          l.message.content.filter((b: { type: string }) => b.type === "tool_result").map((
            b: { tool_use_id: string }
          ) => b.tool_use_id)
        )
      expect(answered.sort()).toEqual(["toolu_bg", "toolu_fg", "toolu_mcp"])
      expect(lines.at(-1).type).toBe("session_end")
      expect(lines.find((l) => l.type === "prompt_end").stop).toBe("interrupted")
      expect(JSON.parse(run.out.stdout).session_id).toBeDefined()
    },
    240_000
  )

  it(
    "SIGHUP during a hook, and during ripgrep: their process groups are gone; every call answered; exit 129",
    async () => {
      const { dir, env } = project()
      const hookPid = path.join(dir, "hook.pid")
      const rgPid = path.join(dir, "rg.pid")
      // a stand-in for ripgrep first on PATH: it ignores SIGTERM and starts a child of its own
      const bin = path.join(dir, "bin")
      fs.mkdirSync(bin)
      fs.writeFileSync(path.join(bin, "rg"), `#!/bin/sh\n${stubborn(rgPid)}\n`, { mode: 0o755 })
      fs.mkdirSync(path.join(dir, ".claude"))
      fs.writeFileSync(
        path.join(dir, ".claude", "settings.json"),
        JSON.stringify({
          hooks: {
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: stubborn(hookPid), timeout: 600 }] }]
          }
        })
      )
      const hooked = start(
        dir,
        env,
        [
          "exec",
          "-",
          "--json",
          "--trust-project",
          "--permission-mode",
          "bypassPermissions",
          "--session-dir",
          path.join(dir, ".s1")
        ],
        JSON.stringify([
          { type: "tool_use", id: "toolu_h", name: "Bash", input: { command: "echo hi" } }
        ])
      )
      const grep = start(
        dir,
        { ...env, PATH: `${bin}:${env.PATH}` },
        ["exec", "-", "--json", "--session-dir", path.join(dir, ".s2")],
        JSON.stringify([
          { type: "tool_use", id: "toolu_g", name: "Grep", input: { pattern: "x", path: dir } }
        ])
      )
      const pids = [
        ...(await waitForFiles([hookPid], hooked.child, hooked.out)),
        ...(await waitForFiles([rgPid], grep.child, grep.out))
      ]
      hooked.child.kill("SIGHUP")
      grep.child.kill("SIGHUP")
      expect([await hooked.exited, await grep.exited]).toEqual([129, 129])
      expect(pids.filter(alive)).toEqual([])
      for (const [ran, id] of [[hooked, "toolu_h"], [grep, "toolu_g"]] as const) {
        const results = JSON.parse(ran.out.stdout).message.content
        expect(results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual([id])
        expect(results[0].is_error).toBe(true)
      }
    },
    240_000
  )

  it("a third Ctrl-C stops everything, and a shell that ignores SIGTERM still goes", async () => {
    const { dir, env } = project()
    const pidFile = path.join(dir, "fg.pid")
    const ran = start(
      dir,
      env,
      ["exec", "-", "--json", "--permission-mode", "bypassPermissions", "--session-dir", path.join(dir, ".s")],
      JSON.stringify([
        { type: "tool_use", id: "toolu_fg", name: "Bash", input: { command: stubborn(pidFile) } }
      ])
    )
    const pids = await waitForFiles([pidFile], ran.child, ran.out)
    // three presses inside the shell's grace period (1 s), apart enough to arrive as three signals
    for (let i = 0; i < 3; i++) {
      ran.child.kill("SIGINT")
      await new Promise((r) => setTimeout(r, 150))
    }
    expect(await ran.exited).toBe(130)
    expect(pids.filter(alive)).toEqual([])
  }, 240_000)
})
