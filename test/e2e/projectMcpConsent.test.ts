/**
 * Project MCP servers need consent: a `.mcp.json` whose server is `sh -c "touch <marker>"` runs
 * nothing until the server is approved — not for commands that only list or explain, not for a
 * non-interactive run. Approvals count from the user's own settings, `--settings`, local settings
 * (not when committed to git), `~/.claude.json` and `--trust-project`; never from the project's
 * shared settings. `--mcp-config` servers start as they always did. On a terminal toolgate asks,
 * and saves the answer to `.claude/settings.local.json`.
 * Commands run in the test process, which starts servers as the CLI does; the terminal tests and
 * `builtCli` start `dist/toolgate.cjs`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli, runCliInProcess, stripAnsi, type Ran } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"
import { testServerScript } from "../support/mcpTestServer.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

interface Folder {
  readonly dir: string
  readonly env: Record<string, string>
  readonly started: () => boolean
}

/** A git project whose `.mcp.json` has one server, "evil", that leaves a marker when started. */
const folder = (): Folder => {
  const dir = fs.realpathSync(tempDir("toolgate-consent-"))
  const env = cleanEnv()
  dirs.push(dir, env.HOME!)
  spawnSync("git", ["init", "-q", dir])
  const marker = path.join(dir, "started")
  fs.writeFileSync(
    path.join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { evil: { command: "sh", args: ["-c", `touch ${marker}`] } } })
  )
  fs.writeFileSync(path.join(dir, "a.txt"), "alpha\n")
  return { dir, env, started: () => fs.existsSync(marker) }
}

const write = (file: string, json: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(json))
}

/** Runs the tasks a few at a time (the machine is small). */
const pooled = async <A>(tasks: ReadonlyArray<() => Promise<A>>, width = 4): Promise<Array<A>> => {
  const out: Array<A> = new Array(tasks.length)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++
        out[i] = await tasks[i]!()
      }
    })
  )
  return out
}

const cli = (f: Folder, args: ReadonlyArray<string>, input = ""): Promise<Ran> =>
  runCliInProcess([...args, "--cwd", f.dir], { cwd: f.dir, env: f.env, input, timeoutMs: 120_000 })

/** The same through the bundle, so its path to the consent check stays exercised. */
const builtCli = (f: Folder, args: ReadonlyArray<string>, input = ""): Promise<Ran> =>
  runCli([...args, "--cwd", f.dir], { cwd: f.dir, env: f.env, input, timeoutMs: 120_000 })

describe("project MCP servers need approval", () => {
  it("commands that list or explain, and non-interactive runs, never start an unapproved server", async () => {
    const f = folder()
    const script = path.join(f.dir, "script.jsonl")
    fs.writeFileSync(
      script,
      [
        { type: "user", text: "read" },
        {
          type: "turn",
          content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
          stop_reason: "tool_use"
        },
        { type: "turn", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" }
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")
    )
    const message = JSON.stringify([{
      type: "tool_use",
      id: "toolu_e",
      name: "Read",
      input: { file_path: path.join(f.dir, "a.txt") }
    }])
    const session = ["--session-dir", path.join(f.dir, ".s")]
    const ran = await pooled([
      () => builtCli(f, ["tools"]),
      () => cli(f, ["tools", "schema"]),
      () => cli(f, ["permissions", "check", "Bash", "{\"command\":\"ls\"}"]),
      () => cli(f, ["call", "Read", JSON.stringify({ file_path: path.join(f.dir, "a.txt") }), ...session]),
      () => cli(f, ["mcp", "list"]),
      () => cli(f, ["mcp", "list", "--json"]),
      () => cli(f, ["exec", "-", "--json", ...session], message),
      () =>
        cli(f, ["run", "-p", "go", "--replay", script, "--replay-speed", "0", "--output-format", "json", ...session]),
      () => cli(f, ["call", "mcp__evil__anything", "{}", ...session])
    ])
    expect(f.started()).toBe(false)
    expect(ran.slice(0, 8).map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0, 0, 0])
    expect(stripAnsi(ran[4]!.stdout)).toMatch(/evil\s+project\s+stdio\s+needs approval\s+-/)
    const listed = JSON.parse(ran[5]!.stdout).servers[0]
    expect(listed).toMatchObject({ name: "evil", scope: "project", state: "needs-approval" })
    expect(listed.reason).toContain("enabledMcpjsonServers")
    // the person is told why, on stderr; stdout stays parseable
    // (`tools` keeps MCP notices for --debug; a command that runs calls says it)
    expect(ran[3]!.stderr).toContain("MCP server \"evil\" needs approval")
    expect(JSON.parse(ran[7]!.stdout).tools ?? []).not.toContain("mcp__evil__anything")
    // calling its tool is an error result, not a start
    expect(ran[8]!.code).toBe(1)
    expect(ran[8]!.stdout).toMatch(/No such tool available: mcp__evil__anything/)
  }, 300_000)

  it("approvals from the user's own files start it; the project cannot approve itself", async () => {
    type Case = readonly [string, (f: Folder) => ReadonlyArray<string>, boolean]
    const local = (f: Folder) => path.join(f.dir, ".claude", "settings.local.json")
    const cases: ReadonlyArray<Case> = [
      ["local settings list it", (f) => (write(local(f), { enabledMcpjsonServers: ["evil"] }), []), true],
      ["local settings approve all", (f) => (write(local(f), { enableAllProjectMcpServers: true }), []), true],
      [
        "user settings approve all",
        (f) => (write(path.join(f.env.CLAUDE_CONFIG_DIR!, "settings.json"), { enableAllProjectMcpServers: true }), []),
        true
      ],
      ["--settings lists it", () => ["--settings", "{\"enabledMcpjsonServers\":[\"evil\"]}"], true],
      [
        "~/.claude.json lists it for the project",
        (
          f
        ) => (write(path.join(f.env.HOME!, ".claude.json"), {
          projects: { [f.dir]: { enabledMcpjsonServers: ["evil"] } }
        }),
          []),
        true
      ],
      ["--trust-project", () => ["--trust-project"], true],
      [
        "the project's shared settings list it",
        (
          f
        ) => (write(path.join(f.dir, ".claude", "settings.json"), {
          enableAllProjectMcpServers: true,
          enabledMcpjsonServers: ["evil"]
        }),
          []),
        false
      ],
      [
        "local settings committed to git list it",
        (f) => {
          write(local(f), { enabledMcpjsonServers: ["evil"] })
          spawnSync("git", ["-C", f.dir, "add", "-f", ".claude/settings.local.json"])
          return []
        },
        false
      ],
      [
        "rejected, even with --trust-project",
        (f) => (write(local(f), { disabledMcpjsonServers: ["evil"] }), ["--trust-project"]),
        false
      ]
    ]
    const folders = cases.map(() => folder())
    const flags = cases.map(([, setup], i) => setup(folders[i]!))
    const ran = await pooled(cases.map((_, i) => () => cli(folders[i]!, ["tools", "--json", ...flags[i]!])))
    expect(cases.map(([name], i) => [name, ran[i]!.code, folders[i]!.started()])).toEqual(
      cases.map(([name, , started]) => [name, 0, started])
    )
  }, 300_000)

  it("--mcp-config servers are the user's own and start as before", async () => {
    const f = folder()
    const marker = path.join(f.dir, "flag-started")
    const ran = await cli(f, [
      "tools",
      "--json",
      "--mcp-config",
      JSON.stringify({ mcpServers: { mine: { command: "sh", args: ["-c", `touch ${marker}`] } } })
    ])
    expect(ran.code).toBe(0)
    expect(fs.existsSync(marker)).toBe(true)
    expect(f.started()).toBe(false)
  }, 120_000)

  it("on a terminal toolgate asks, and saves the answer to .claude/settings.local.json", async () => {
    const ask = async (f: Folder, answer: string) => {
      const cli = await spawnCliPty(
        [
          "call",
          "mcp__good__echo",
          "{\"message\":\"hi there\"}",
          "--allowed-tools",
          "mcp__good__echo",
          "--cwd",
          f.dir,
          "--session-dir",
          path.join(f.dir, ".s")
        ],
        { cwd: f.dir, cols: 200, rows: 50, env: f.env }
      )
      try {
        await cli.waitFor(/Choose \[1\/2\/3\]: *$/, 0, 60_000)
        cli.type(`${answer}\r`)
        return { code: await cli.exited, screen: cli.screen() }
      } finally {
        cli.close()
      }
    }
    const server = { command: process.execPath, args: [testServerScript()] }
    const [yes, no] = [folder(), folder()]
    for (const f of [yes, no]) {
      fs.writeFileSync(path.join(f.dir, ".mcp.json"), JSON.stringify({ mcpServers: { good: server, other: server } }))
    }

    const approved = await ask(yes, "1")
    expect(approved.screen).toContain("New MCP server in this project: good")
    expect(approved.screen).toContain(`runs: ${process.execPath}`)
    // only the server of the called tool is asked about
    expect(approved.screen).not.toContain("in this project: other")
    expect(approved.code).toBe(0)
    expect(approved.screen).toContain("hi there")
    expect(JSON.parse(fs.readFileSync(path.join(yes.dir, ".claude", "settings.local.json"), "utf8"))).toEqual({
      enabledMcpjsonServers: ["good"]
    })
    // saved: the next run, without a terminal, starts it without asking
    const again = await cli(yes, [
      "call",
      "mcp__good__echo",
      "{\"message\":\"again\"}",
      "--allowed-tools",
      "mcp__good__echo",
      "--json",
      "--session-dir",
      path.join(yes.dir, ".s2")
    ])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("again")

    const rejected = await ask(no, "3")
    expect(rejected.code).toBe(1)
    expect(rejected.screen).toContain("No such tool available: mcp__good__echo")
    expect(JSON.parse(fs.readFileSync(path.join(no.dir, ".claude", "settings.local.json"), "utf8"))).toEqual({
      disabledMcpjsonServers: ["good"]
    })
  }, 300_000)
})
