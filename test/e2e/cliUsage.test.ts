/**
 * The command line as Claude Code users type it: usage errors that name the offending token
 * (exit 2; `run` 1, as `claude -p`), the help (plain text, full command names, each option once), Claude Code's flags
 * (-c/-r, --input-format stream-json, --dangerously-skip-permissions, --debug, variadic and
 * camelCase rule lists, -v), exit codes by outcome, and the small things: stdin for `call`, a
 * byte order mark, malformed deny rules, `npm start`, the example message.
 *
 * Commands run in the test process (runCliInProcess); the built CLI runs what only a process
 * shows (a terminal, Ctrl-C, the launcher's `--version`, `npm start`) and one usage error and the
 * README's example, so the bundle answers too.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixture, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import {
  BIN,
  cleanEnv,
  copyExample,
  ROOT,
  runCli,
  runCliInProcess,
  runProgram,
  type RunOptions
} from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"
import { testServerScript } from "../support/mcpTestServer.js"

const neutral = fs.realpathSync(tempDir("toolgate-usage-"))
type Run = typeof runCli
const withDefaults =
  (run: Run) =>
  (args: ReadonlyArray<string>, options: { input?: string; cwd?: string; env?: Record<string, string> } = {}) =>
    run(
      args,
      {
        cwd: options.cwd ?? neutral,
        env: options.env ?? cleanEnv(),
        timeoutMs: 90_000,
        ...(options.input === undefined ? {} : { input: options.input })
      } satisfies RunOptions
    )
const cli = withDefaults(runCliInProcess)
const builtCli = withDefaults(runCli)

const usageError = async (args: ReadonlyArray<string>, pattern: RegExp, run = cli) => {
  const ran = await run(args)
  // `run` exits 1 on a usage error, as `claude -p` does; the other commands 2
  expect(ran.code, ran.stderr).toBe(args[0] === "run" ? 1 : 2)
  expect(ran.stdout).toBe("")
  expect(ran.stderr.trim().split("\n")).toHaveLength(1)
  expect(ran.stderr.trim()).toMatch(pattern)
}

describe("usage errors name the offending flag or token, start with toolgate:, exit 2 (1 for run, as claude -p)", () => {
  it(
    "an unknown option (built CLI)",
    async () =>
      usageError(
        ["call", "Read", "{}", "--bogus"],
        /^toolgate: unknown option '--bogus' for 'toolgate call'/,
        builtCli
      ),
    60_000
  )

  it.each([
    [
      ["tools", "--permission-mode", "yolo"],
      /^toolgate: invalid value 'yolo' for --permission-mode: choose default, acceptEdits, plan, dontAsk or bypassPermissions$/
    ],
    [["tools", "--cwd"], /^toolgate: option '--cwd <dir>' needs a value$/],
    [["run", "-p", "--max-turns", "many"], /^toolgate: invalid value 'many' for --max-turns: expected a whole number$/],
    [["exec", "--print", "x.json"], /^toolgate: option '--print' does not apply to 'toolgate exec'/],
    [
      ["call", "Read", "{}", "extra"],
      /^toolgate: unexpected argument 'extra' for 'toolgate call' \(it takes <tool> \[input\]\)$/
    ],
    [["call"], /^toolgate: missing argument <tool> for 'toolgate call'/],
    [["tool"], /^toolgate: unknown command 'tool' \(did you mean 'tools'\?\)/],
    [["mcp", "lst"], /^toolgate: unknown command 'lst' for 'toolgate mcp' \(did you mean 'list'\?\)/],
    [["tools", "--strict-mcp-config=yes"], /^toolgate: option '--strict-mcp-config' takes no value/],
    [
      ["tools", "--disallowed-tools", "Bash(rm"],
      /^toolgate: --disallowed-tools: the deny rule 'Bash\(rm' cannot be parsed/
    ],
    [
      ["run", "-p", "hi", "-c", "-r", "abc", "--replay", "x.jsonl"],
      /^toolgate: --continue and --resume cannot be used together$/
    ]
  ])("%j", async (args, pattern) => usageError(args, pattern), 60_000)

  it("an unknown tool: the closest name", async () => {
    const ran = await cli(["call", "read", "{}"])
    expect(ran.code).toBe(2)
    expect(ran.stderr.trim()).toBe("toolgate: no tool named 'read' (did you mean Read?); toolgate tools lists them")
  }, 60_000)

  it("a Write(path) deny flag, which Claude Code never consults, denies as Edit(path) does", async () => {
    const { project } = copyExample()
    const call = (file: string) =>
      cli([
        "call",
        "Write",
        JSON.stringify({ file_path: path.join(project, file), content: "A=1\n" }),
        "--permission-mode",
        "acceptEdits",
        "--disallowed-tools",
        "Write(*.env)"
      ], { cwd: project })
    const denied = await call("prod.env")
    expect(denied.stdout).toContain("denied by your permission settings")
    expect(fs.existsSync(path.join(project, "prod.env"))).toBe(false)
    expect(denied.stderr.match(/toolgate applies it as Edit\(\*\.env\)/g)).toHaveLength(1)
    const other = await call("notes.txt")
    expect(other.code, other.stderr).toBe(0)
    expect(fs.readFileSync(path.join(project, "notes.txt"), "utf8")).toBe("A=1\n")
  }, 60_000)

  it("`run --verbose -p <prompt>` is fine (no blame on -p)", async () => {
    const { work, project } = copyExample()
    const file = path.join(work, "s.jsonl")
    fs.writeFileSync(file, JSON.stringify({ type: "turn", content: [{ type: "text", text: "Hello." }] }))
    const ran = await cli(["run", "--verbose", "-p", "hi", "--replay", file, "--replay-speed", "0"], { cwd: project })
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toContain("Hello.")
  }, 60_000)
})

describe("--help", () => {
  it("plain text when piped, the root page lists each command once and the common options once", async () => {
    const ran = await cli(["--help"])
    expect(ran.code).toBe(0)
    expect(ran.stdout).not.toContain("\x1b")
    expect(ran.stdout).toContain("toolgate tools schema ")
    expect(ran.stdout).toContain("toolgate permissions check <tool> [input]")
    expect(ran.stdout.match(/--cwd/g)).toHaveLength(1)
    expect(ran.stdout).toContain("--permission-mode <default|acceptEdits|plan|dontAsk|bypassPermissions>")
    expect(ran.stdout).not.toMatch(/\bmanual\b|\|auto\b/)
    expect(ran.stdout).toMatch(/Exit codes: 0 success; 1 [\s\S]*; 2 a usage\s+error;\s+130\s+interrupted/)
  }, 60_000)

  it("a command's page: its full name in the usage line, its own options first", async () => {
    const ran = await cli(["tools", "schema", "--help"])
    expect(ran.stdout.split("\n")[0]).toBe("Usage: toolgate tools schema [options]")
    const run = await cli(["run", "--help"])
    expect(run.stdout.split("\n")[0]).toBe("Usage: toolgate run [prompt] [options]")
    expect(run.stdout.indexOf("-p, --print")).toBeLessThan(run.stdout.indexOf("--cwd <dir>"))
    expect(run.stdout).toContain("-r, --resume [session]")
    expect(run.stdout).toContain("--input-format <text|stream-json>")
  }, 60_000)

  it("no escape sequences at a terminal with NO_COLOR either", async () => {
    const term = await spawnCliPty(["--help"], { cwd: neutral, env: cleanEnv({ NO_COLOR: "1" }) })
    expect(await term.exited).toBe(0)
    expect(term.raw()).toContain("Usage:")
    expect(term.raw()).not.toContain("\x1b[")
  }, 60_000)

  it("-v and --version print the version (--version alone on the built CLI: its launcher answers it)", async () => {
    for (
      const [flag, run] of [
        ["-v", cli],
        ["--version", builtCli]
      ] as const
    ) {
      const ran = await run([flag])
      expect(ran.code).toBe(0)
      expect(ran.stdout).toMatch(/^\d+\.\d+\.\d+ \(toolgate\)\n$/)
    }
  }, 60_000)
})

describe("rule lists as Claude Code takes them", () => {
  it("variadic --disallowedTools Read Bash, comma lists, and the camelCase and kebab-case spellings", async () => {
    for (
      const args of [
        ["--disallowedTools", "Read", "Bash"],
        ["--disallowedTools", "Read,Bash"],
        ["--disallowed-tools", "Read", "--disallowed-tools", "Bash"],
        ["--disallowedTools=Read,Bash"]
      ]
    ) {
      const ran = await cli(["tools", "--json", ...args])
      expect(ran.code, `${args.join(" ")}: ${ran.stderr}`).toBe(0)
      const removed = JSON.parse(ran.stdout).removed.map((r: { name: string }) => r.name)
      expect(removed).toEqual(expect.arrayContaining(["Bash", "Read"]))
    }
  }, 120_000)

  it("a variadic list stops at the prompt", async () => {
    const { work, project } = copyExample()
    const file = path.join(work, "s.jsonl")
    fs.writeFileSync(file, JSON.stringify({ type: "turn", content: [{ type: "text", text: "ok" }] }))
    const ran = await cli([
      "run",
      "-p",
      "--allowedTools",
      "Read",
      "Bash(git log:*)",
      "summarise the repo",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--output-format",
      "json"
    ], {
      cwd: project
    })
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout).result).toBe("ok")
  }, 60_000)
})

describe("Claude Code's run flags", () => {
  let fake: FakeAnthropic
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: "sk-flags" })
  })
  afterAll(async () => {
    await fake.close()
  })

  it("-c continues the folder's latest session, -r <id> a given one; both keep its id and conversation", async () => {
    const { project } = copyExample()
    const env = cleanEnv({ ANTHROPIC_API_KEY: "sk-flags", ANTHROPIC_BASE_URL: fake.url })
    fake.enqueue(sse(fixture("text-only")))
    const first = await cli(["run", "-p", "first prompt", "--output-format", "json"], { cwd: project, env })
    expect(first.code, first.stderr).toBe(0)
    const sessionId = JSON.parse(first.stdout).session_id as string
    const before = fake.requests.length
    fake.enqueue(sse(fixture("text-only")))
    const again = await cli(["run", "-p", "second prompt", "-c", "--output-format", "json"], { cwd: project, env })
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).session_id).toBe(sessionId)
    const texts = JSON.stringify(fake.requests[before]!.body.messages)
    expect(texts).toContain("first prompt")
    expect(texts).toContain("second prompt")
    expect(fake.requests[before]!.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user"
    ])
    fake.enqueue(sse(fixture("text-only")))
    const resumed = await cli(["run", "-p", "third prompt", "-r", sessionId, "--output-format", "json"], {
      cwd: project,
      env
    })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout).session_id).toBe(sessionId)
    expect(fake.requests.at(-1)!.body.messages).toHaveLength(5)
    const missing = await cli(["run", "-p", "x", "-r", "no-such-session"], { cwd: project, env })
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim()).toMatch(/^toolgate: --resume no-such-session: no such session/)
  }, 180_000)

  it("--input-format stream-json: each stdin line is a prompt with its own result; a bad line is named", async () => {
    const { project } = copyExample()
    const env = cleanEnv({ ANTHROPIC_API_KEY: "sk-flags", ANTHROPIC_BASE_URL: fake.url })
    fake.enqueue(sse(fixture("text-only")), sse(fixture("text-only")))
    const input = [
      { type: "user", message: { role: "user", content: "one" } },
      { type: "user", message: { role: "user", content: [{ type: "text", text: "two" }] } }
    ]
      .map((l) => JSON.stringify(l))
      .join("\n")
    const ran = await cli(
      ["run", "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
      { cwd: project, env, input }
    )
    expect(ran.code, ran.stderr).toBe(0)
    const results = ran.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.type === "result")
    expect(results.map((r) => r.result_index)).toEqual([0, 1])
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("two")
    const bad = await cli(["run", "-p", "--input-format", "stream-json", "--output-format", "stream-json"], {
      cwd: project,
      env,
      input: "{\"type\":\"user\",\"message\":{\"role\":\"assistant\",\"content\":\"x\"}}\n"
    })
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toMatch(/^toolgate: stdin line 1: at message\.role: Expected "user", actual "assistant"$/)
    await usageError(
      ["run", "-p", "--input-format", "stream-json"],
      /^toolgate: --input-format stream-json needs --output-format stream-json$/
    )
  }, 180_000)

  it("--dangerously-skip-permissions runs what would ask; --debug logs to stderr only", async () => {
    const { work, project } = copyExample()
    const file = path.join(work, "s.jsonl")
    fs.writeFileSync(
      file,
      [
        {
          type: "turn",
          content: [{ type: "tool_use", id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } }]
        },
        { type: "turn", content: [{ type: "text", text: "Made it." }] }
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")
    )
    const ran = await cli([
      "run",
      "-p",
      "make it",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--dangerously-skip-permissions",
      "--debug"
    ], { cwd: project })
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toBe("Made it.\n")
    expect(fs.existsSync(path.join(project, "made.txt"))).toBe(true)
    expect(ran.stderr).toContain("[DEBUG] permission mode bypassPermissions")
    expect(ran.stderr).toMatch(/\[DEBUG\] call toolu_touch Bash: permission allow \(mode bypassPermissions/)
    expect(ran.stderr).toContain("[DEBUG] turn 2: stop_reason end_turn")
    await usageError(
      ["run", "-p", "x", "--dangerously-skip-permissions", "--permission-mode", "plan"],
      /conflicts with --permission-mode plan/
    )
  }, 120_000)
})

describe("exit codes", () => {
  it("permissions check exits by decision: 0 allow, 3 ask, 4 deny", async () => {
    const file = path.join(neutral, "a.txt")
    fs.writeFileSync(file, "x")
    const allow = await cli(["permissions", "check", "Read", JSON.stringify({ file_path: file })])
    expect(allow.code).toBe(0)
    const ask = await cli(["permissions", "check", "Bash", JSON.stringify({ command: "touch b.txt" })])
    expect(ask.code).toBe(3)
    const deny = await cli([
      "permissions",
      "check",
      "Bash",
      JSON.stringify({ command: "touch b.txt" }),
      "--disallowed-tools",
      "Bash(touch:*)"
    ])
    expect(deny.code).toBe(4)
    const unknown = await cli(["permissions", "check", "Reed", "{}"])
    expect(unknown.code).toBe(4)
    expect(unknown.stdout).toContain("no such tool: Reed (did you mean Read?)")
  }, 120_000)

  it("mcp list: 1 when every configured server failed, 0 with none configured", async () => {
    const failing = JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/server" } } })
    const ran = await cli(["mcp", "list", "--mcp-config", failing, "--strict-mcp-config"])
    expect(ran.code).toBe(1)
    expect(ran.stdout).toContain("broken")
    const none = await cli(["mcp", "list", "--strict-mcp-config"])
    expect(none.code).toBe(0)
  }, 60_000)

  it("after Ctrl-C: run -p exits 0 as claude -p does (its output says so), call 130", async () => {
    const { work, project } = copyExample()
    const file = path.join(work, "s.jsonl")
    fs.writeFileSync(
      file,
      [
        {
          type: "turn",
          content: [{ type: "tool_use", id: "toolu_sleep", name: "Sleep", input: { duration_ms: 60000 } }]
        },
        { type: "turn", content: [{ type: "text", text: "never" }] }
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")
    )
    for (
      const [args, exitCode] of [
        [["run", "-p", "wait", "--replay", file, "--replay-speed", "0", "--debug"], 0],
        [["call", "Sleep", JSON.stringify({ duration_ms: 60000 }), "--debug"], 130]
      ] as const
    ) {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: project,
        env: cleanEnv({ TOOLGATE_ENABLE_SLEEP: "1" })
      })
      let stderr = ""
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
      // Ctrl-C once the Sleep call runs (--debug says when a call starts)
      for (let waited = 0; !/\[DEBUG\] call \S+: started in batch 1/.test(stderr); waited += 25) {
        if (waited > 60_000) throw new Error(`${args[0]}: the call never started\n${stderr}`)
        await new Promise((r) => setTimeout(r, 25))
      }
      child.kill("SIGINT")
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
      expect(code, `${args[0]}: ${stderr}`).toBe(exitCode)
    }
  }, 120_000)
})

describe("small things", () => {
  it("call reads its input from stdin when none is given and stdin is not a terminal", async () => {
    const file = path.join(neutral, "stdin.txt")
    fs.writeFileSync(file, "from stdin\n")
    const ran = await cli(["call", "Read"], { input: JSON.stringify({ file_path: file }) })
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toContain("1\tfrom stdin")
  }, 60_000)

  it("a UTF-8 byte order mark in front of input JSON is accepted; a bad block is named by its path", async () => {
    const file = path.join(neutral, "a.txt")
    fs.writeFileSync(file, "bom\n")
    const message = path.join(neutral, "bom.json")
    fs.writeFileSync(
      message,
      `\ufeff${JSON.stringify([{ type: "tool_use", id: "t1", name: "Read", input: { file_path: file } }])}`
    )
    const ran = await cli(["exec", message, "--json"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout).message.content[0].content).toContain("1\tbom")
    const bad = await cli(["exec", "-"], {
      input: JSON.stringify({
        role: "assistant",
        content: [{ type: "text", text: "x" }, { type: "tool_use", name: "Read" }]
      })
    })
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe("toolgate: the message: at content[1].id: is missing")
  }, 60_000)

  it("tools: columns as wide as the longest name; MCP problems only with --debug (mcp list shows them)", async () => {
    const server = testServerScript()
    const config = JSON.stringify({
      mcpServers: {
        "a-rather-long-server-name": { command: process.execPath, args: [server] },
        broken: { command: "/nonexistent/server" }
      }
    })
    const ran = await cli(["tools", "--mcp-config", config, "--strict-mcp-config"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toBe("")
    const rows = ran.stdout.trim().split("\n").filter((l) => !l.includes("removed:"))
    const sourceColumn = new Set(rows.map((l) => l.search(/ (built-in|mcp:)/)))
    expect(sourceColumn.size).toBe(1)
    expect(rows.some((l) => l.startsWith("mcp__a-rather-long-server-name__"))).toBe(true)
    const debug = await cli(["tools", "--mcp-config", config, "--strict-mcp-config", "--debug"])
    expect(debug.stderr).toContain("MCP server \"broken\" failed")
  }, 120_000)

  it("npm start runs the quick start", async () => {
    const ran = await runProgram("npm", ["start", "--silent", "--", "--replay-speed", "0"], {
      cwd: ROOT,
      env: cleanEnv(),
      timeoutMs: 120_000
    })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toContain("all tests passed")
  }, 120_000)

  it(
    "examples/message.json runs as the README writes it (twice: it writes its own files; the first on the built CLI)",
    async () => {
      for (const run of [runCli, runCliInProcess]) {
        const ran = await run(
          [
            "exec",
            "examples/message.json",
            "--cwd",
            "/tmp",
            "--permission-mode",
            "acceptEdits",
            "--allowed-tools",
            "Bash(node /tmp/toolgate-example/test/run.js)",
            "--json"
          ],
          { cwd: ROOT, env: cleanEnv(), timeoutMs: 90_000 }
        )
        expect(ran.code, ran.stderr).toBe(0)
        const results = JSON.parse(ran.stdout).message.content
        expect(results.every((r: { is_error?: boolean }) => r.is_error !== true)).toBe(true)
        expect(results.at(-1).content).toBe("all tests passed")
      }
    },
    180_000
  )
})
