/**
 * The CLI as a user runs it, on real folders: the commands run in the test process
 * (runCliInProcess); the bundled `dist/toolgate.cjs` (npm test builds it first) runs the
 * example exec and the Ctrl-C test, which needs a process to interrupt.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli, runCliInProcess } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"
import { readPidRecords, recordGone, recordedInBackground, waitForRecords } from "../support/pidRecords.js"

const root = path.resolve(__dirname, "../..")
/** Commands run from an empty folder unless a test says otherwise (the repo's .mcp.json starts a server). */
const neutral = tempDir("toolgate-e2e-cwd-")
const bin = path.join(root, "dist", "toolgate.cjs")
const hooks = path.join(root, "test", "fixtures", "hooks")

interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

type Options = { input?: string; cwd?: string; env?: Record<string, string> }
const runWith = (run: typeof runCli) => async (args: ReadonlyArray<string>, options: Options = {}): Promise<Ran> => {
  const ran = await run(args, {
    input: options.input ?? "",
    cwd: options.cwd ?? neutral,
    env: cleanEnv(options.env),
    timeoutMs: 60_000
  })
  return { status: ran.code, stdout: ran.stdout, stderr: ran.stderr }
}
const toolgate = runWith(runCliInProcess)
const builtToolgate = runWith(runCli)

const json = (ran: Ran): any => {
  try {
    return JSON.parse(ran.stdout)
  } catch {
    throw new Error(`not JSON (exit ${ran.status}): ${ran.stdout}\n${ran.stderr}`)
  }
}

const makeProject = (): string => {
  const dir = tempDir("toolgate-e2e-")
  fs.cpSync(path.join(root, "examples", "project"), dir, { recursive: true })
  return fs.realpathSync(dir)
}

const message = (project: string): string =>
  fs.readFileSync(path.join(root, "test", "fixtures", "messages", "project-message.json"), "utf8").replaceAll(
    "{{PROJECT}}",
    project
  )

const exampleFlags = (project: string) => [
  "--cwd",
  project,
  "--permission-mode",
  "acceptEdits",
  "--allowed-tools",
  "Bash(node test/run.js)",
  "--session-dir",
  path.join(project, ".session")
]

beforeAll(() => {
  if (!fs.existsSync(bin)) throw new Error("dist/toolgate.cjs is missing: run `npm run build` (npm test does)")
})

describe("toolgate tools", () => {
  it("lists the pool with flags as JSON", async () => {
    const ran = await toolgate(["tools", "--json"])
    expect(ran.status).toBe(0)
    const names = json(ran).tools.map((t: { name: string }) => t.name)
    expect(names).toEqual(expect.arrayContaining(["Bash", "Edit", "Glob", "Grep", "Read", "Write"]))
    const read = json(ran).tools.find((t: { name: string }) => t.name === "Read")
    expect(read).toMatchObject({ readOnly: true, concurrencySafe: true, source: "built-in" })
  })

  it("`tools schema` prints what the model sees: built-ins sorted by name, then the session's own tools sorted", async () => {
    const ran = await toolgate(["tools", "schema"])
    expect(ran.status).toBe(0)
    const schemas = json(ran) as Array<
      { name: string; input_schema: { type: string; required?: ReadonlyArray<string> } }
    >
    const names = schemas.map((s) => s.name)
    const sessionTools = ["Agent", "WebSearch"]
    const builtins = names.filter((n) => !sessionTools.includes(n))
    expect(names).toEqual([...[...builtins].sort(), ...sessionTools])
    expect(schemas.find((s) => s.name === "Read")!.input_schema).toMatchObject({
      type: "object",
      required: ["file_path"]
    })
  })

  it("lists what `run` offers a model on Claude: the Agent tool and WebSearch too; `tools schema` the same names", async () => {
    const listed = json(await toolgate(["tools", "--json"])).tools
    expect(listed.find((t: { name: string }) => t.name === "Agent")).toMatchObject({
      source: "built-in",
      concurrencySafe: true
    })
    expect(listed.find((t: { name: string }) => t.name === "WebSearch")).toMatchObject({
      source: "built-in",
      readOnly: true,
      destructive: false
    })
    const schemas = json(await toolgate(["tools", "schema"])).map((s: { name: string }) => s.name)
    expect(schemas).toEqual(expect.arrayContaining(["Agent", "WebSearch"]))
    expect([...schemas].sort()).toEqual([...listed.map((t: { name: string }) => t.name)].sort())
  })

  it("a custom tool from .toolgate/tools is listed as custom, and a read-only one is not destructive", async () => {
    const project = fs.realpathSync(tempDir("toolgate-custom-tools-"))
    fs.mkdirSync(path.join(project, ".toolgate", "tools"), { recursive: true })
    const module = path.join(project, ".toolgate", "tools", "greet.mjs")
    fs.writeFileSync(
      module,
      `export default ({ buildTool, Effect, Schema }) => buildTool({ name: "Greet", description: "Greets", inputSchema: Schema.Struct({ name: Schema.String }), isReadOnly: () => true, call: (input) => Effect.succeed({ data: "hi " + input.name }) })\n`
    )
    const ran = await toolgate(["tools", "--json", "--trust-project"], { cwd: project })
    expect(json(ran).tools.find((t: { name: string }) => t.name === "Greet")).toMatchObject({
      source: "custom",
      origin: module,
      readOnly: true,
      destructive: false
    })
    const text = await toolgate(["tools", "--trust-project"], { cwd: project })
    const line = text.stdout.split("\n").find((l) => l.includes("Greet"))
    expect(line).toMatch(/custom/)
    expect(line).not.toMatch(/destructive/)
  })

  it("a bare deny rule removes a tool", async () => {
    const ran = await toolgate(["tools", "--json", "--disallowed-tools", "Bash"])
    expect(json(ran).tools.map((t: { name: string }) => t.name)).not.toContain("Bash")
    expect(json(ran).removed).toContainEqual({ name: "Bash", reason: "denied by rule 'Bash' from cliArg" })
  })
})

describe("toolgate exec", () => {
  it("runs five Reads, an Edit and a Bash call on a real folder and prints the results in order (built CLI)", async () => {
    const project = makeProject()
    const ran = await builtToolgate(["exec", "-", ...exampleFlags(project), "--json"], { input: message(project) })
    expect(ran.status).toBe(0)
    const report = json(ran)
    const results = report.message.content.filter((b: { type: string }) => b.type === "tool_result")
    expect(results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual([
      "toolu_01_readme",
      "toolu_02_math",
      "toolu_03_index",
      "toolu_04_format",
      "toolu_05_tests",
      "toolu_06_fix",
      "toolu_07_test"
    ])
    expect(results.every((r: { is_error?: boolean }) => r.is_error === undefined)).toBe(true)
    expect(results[1].content).toContain("2\tfunction add(a, b) {")
    expect(results[6].content).toBe("all tests passed")
    expect(fs.readFileSync(path.join(project, "src/math.js"), "utf8")).toContain("return a * b")
    expect(report.calls.map((c: { batch: number }) => c.batch)).toEqual([1, 1, 1, 1, 1, 2, 3])
    for (const call of report.calls) expect(call.ended_ms).toBeGreaterThanOrEqual(call.started_ms)
  })

  it("reads the message from a file and renders it for people, with a timeline", async () => {
    const project = makeProject()
    const file = path.join(project, "message.json")
    fs.writeFileSync(file, message(project))
    const ran = await toolgate(["exec", file, ...exampleFlags(project), "--timeline"])
    expect(ran.status).toBe(0)
    expect(ran.stdout).toContain("● Read(")
    expect(ran.stdout).toContain("all tests passed")
    expect(ran.stdout).toMatch(/timeline: \d+ ms, 3 batch\(es\)/)
  })

  it("without permission to edit or run, each call gets its own denial and the file is untouched", async () => {
    const project = makeProject()
    const before = fs.readFileSync(path.join(project, "src/math.js"), "utf8")
    const ran = await toolgate(["exec", "-", "--cwd", project, "--json"], { input: message(project) })
    // a call that failed (here: denied) makes the exit code 1
    expect(ran.status).toBe(1)
    const results = json(ran).message.content
    expect(results[5]).toMatchObject({ tool_use_id: "toolu_06_fix", is_error: true })
    expect(results[5].content).toMatch(/^Claude requested permissions to (write to|edit|use Edit)/)
    expect(results[6]).toMatchObject({ tool_use_id: "toolu_07_test", is_error: true })
    expect(fs.readFileSync(path.join(project, "src/math.js"), "utf8")).toBe(before)
  })

  it("inside a message, a bad call gets an error result and the others run", async () => {
    const project = makeProject()
    const blocks = [
      { type: "tool_use", id: "a", name: "Read", input: { file_path: path.join(project, "README.md") } },
      { type: "tool_use", id: "b", name: "NoSuchTool", input: {} },
      { type: "tool_use", id: "c", name: "Read", input: { file_path: 42 } },
      { type: "tool_use", id: "a", name: "Read", input: { file_path: path.join(project, "NOTES.md") } },
      { type: "tool_use", id: "d", name: "Read", input: { file_path: path.join(project, "missing.txt") } }
    ]
    const ran = await toolgate(["exec", "-", "--cwd", project, "--json"], { input: JSON.stringify(blocks) })
    expect(ran.status).toBe(1)
    const results = json(ran).message.content
    expect(results.map((r: { is_error?: boolean }) => r.is_error === true)).toEqual([false, true, true, true, true])
    expect(results[1].content).toBe("<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>")
    expect(results[2].content).toContain(
      "The parameter `file_path` type is expected as `string` but provided as `number`"
    )
    expect(results[3].content).toContain("duplicate tool_use id a")
    expect(results[4].content).toContain("File does not exist.")
  })

  it.each([
    ["not JSON", ["exec", "-"], "{nope", /^toolgate: stdin is not valid JSON/],
    [
      "no tool_use",
      ["exec", "-"],
      JSON.stringify({ role: "assistant", content: [{ type: "text", text: "hi" }] }),
      /^toolgate: the message has no tool_use blocks$/
    ],
    ["not a message", ["exec", "-"], "42", /^toolgate: expected a Messages API response/],
    [
      "a missing file",
      ["exec", "/nonexistent/message.json"],
      "",
      /^toolgate: cannot read \/nonexistent\/message.json: no such file/
    ],
    [
      "a missing --cwd",
      ["exec", "-", "--cwd", "/nonexistent/dir"],
      "[]",
      /^toolgate: --cwd: not a directory: \/nonexistent\/dir/
    ],
    [
      "an unreadable --settings file",
      ["tools", "--settings", "/nonexistent/settings.json"],
      "",
      /^toolgate: --settings: file not found/
    ],
    [
      "malformed --settings JSON",
      ["tools", "--settings", "{bad"],
      "",
      /^toolgate: settings file --settings is broken: invalid JSON/
    ]
  ])("bad input (%s): a one-line error and a non-zero exit", async (_name, args, input, pattern) => {
    const ran = await toolgate(args, { input })
    expect(ran.status).not.toBe(0)
    expect(ran.stderr.trim().split("\n")).toHaveLength(1)
    expect(ran.stderr.trim()).toMatch(pattern)
  })
})

describe("toolgate call", () => {
  it("runs one call through the whole pipeline", async () => {
    const project = makeProject()
    const ran = await toolgate([
      "call",
      "Read",
      JSON.stringify({ file_path: path.join(project, "NOTES.md") }),
      "--cwd",
      project,
      "--json"
    ])
    expect(ran.status).toBe(0)
    expect(json(ran).result.content).toContain("1\t# Notes")
  })

  it("reads the input from stdin, and exits non-zero for an error result", async () => {
    const project = makeProject()
    const ran = await toolgate(["call", "Grep", "-", "--cwd", project], { input: JSON.stringify({ pattern: "TODO" }) })
    expect(ran.status).toBe(0)
    expect(ran.stdout).toContain("src/math.js")
    const failed = await toolgate(["call", "Read", JSON.stringify({ file_path: "/nonexistent/x" }), "--cwd", project])
    expect(failed.status).toBe(1)
  })

  it.each([
    ["not JSON", ["call", "Read", "{x"], /^toolgate: the input is not valid JSON/],
    ["not an object", ["call", "Read", "[1,2]"], /^toolgate: the input must be a JSON object$/]
  ])("bad input (%s): a one-line error and a non-zero exit", async (_name, args, pattern) => {
    const ran = await toolgate(args)
    expect(ran.status).toBe(1)
    expect(ran.stderr.trim()).toMatch(pattern)
  })
})

describe("Claude Code configuration, unchanged", () => {
  let project: string
  beforeAll(() => {
    project = makeProject()
    fs.mkdirSync(path.join(project, ".claude"))
    fs.writeFileSync(
      path.join(project, ".claude", "settings.json"),
      JSON.stringify({
        permissions: { deny: ["Read(./secrets/**)", "Bash(rm -rf /tmp/nothing-here)"] },
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: `${hooks}/block-rm.sh` }] },
            { matcher: "Read", hooks: [{ type: "command", command: `${hooks}/allow.sh` }] }
          ]
        }
      })
    )
    fs.mkdirSync(path.join(project, "secrets"))
    fs.writeFileSync(path.join(project, "secrets", "key.txt"), "s3cret")
  })
  afterAll(() => fs.rmSync(project, { recursive: true, force: true }))

  it("a project's hook blocks `rm -rf`, and a hook's allow does not beat a deny rule", async () => {
    const blocks = [
      { type: "tool_use", id: "rm", name: "Bash", input: { command: "rm -rf build" } },
      { type: "tool_use", id: "secret", name: "Read", input: { file_path: path.join(project, "secrets", "key.txt") } },
      { type: "tool_use", id: "readme", name: "Read", input: { file_path: path.join(project, "README.md") } }
    ]
    const ran = await toolgate(["exec", "-", "--cwd", project, "--json", "--permission-mode", "bypassPermissions"], {
      input: JSON.stringify(blocks)
    })
    expect(ran.status).toBe(1)
    const [rm, secret, readme] = json(ran).message.content
    expect(rm.content).toBe("PreToolUse:Bash hook error: Destructive command blocked by hook: rm -rf build")
    expect(secret).toMatchObject({
      is_error: true,
      content: "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"
    })
    expect(readme.is_error).toBeUndefined()
  })

  it("`permissions check` explains a decision with its rule and source, running nothing", async () => {
    const ran = await toolgate([
      "permissions",
      "check",
      "Read",
      JSON.stringify({ file_path: path.join(project, "secrets", "key.txt") }),
      "--cwd",
      project,
      "--json"
    ])
    // the exit code says the decision (deny: 4)
    expect(ran.status).toBe(4)
    expect(json(ran)).toMatchObject({
      decision: "deny",
      rule: { rule: "Read(./secrets/**)", source: "projectSettings" }
    })
    const bash = await toolgate([
      "permissions",
      "check",
      "Bash",
      JSON.stringify({ command: "ls && rm -rf /tmp/nothing-here" }),
      "--cwd",
      project,
      "--json"
    ])
    expect(json(bash).decision).toBe("deny")
    expect(json(bash).subcommands.map((s: { command: string }) => s.command)).toEqual([
      "ls",
      "rm -rf /tmp/nothing-here"
    ])
  })
})

describe("interrupts", () => {
  it("Ctrl-C during exec cancels the running Bash call (its process is gone) and still prints every result", async () => {
    const project = makeProject()
    const pidFile = path.join(project, "sleep.pid")
    const blocks = [
      {
        type: "tool_use",
        id: "long",
        name: "Bash",
        input: { command: `${recordedInBackground("sleep 30", pidFile)} ${waitForRecords(pidFile)} wait` }
      },
      { type: "tool_use", id: "later", name: "Read", input: { file_path: path.join(project, "README.md") } }
    ]
    const child = spawn(process.execPath, [
      bin,
      "exec",
      "-",
      "--cwd",
      project,
      "--json",
      "--permission-mode",
      "bypassPermissions"
    ], {
      env: { ...process.env, NO_COLOR: "1", CLAUDE_CONFIG_DIR: path.join(project, ".no-user-config") }
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stdin.end(JSON.stringify(blocks))
    for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50))
    for (let i = 0; i < 200 && readPidRecords(pidFile).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    const [sleeper] = readPidRecords(pidFile)
    child.kill("SIGINT")
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    expect(code).toBe(130)
    const report = JSON.parse(stdout)
    expect(report.interrupted).toBe(true)
    expect(report.calls.map((c: { outcome: string }) => c.outcome)).toEqual(["interrupted", "interrupted"])
    expect(report.message.content[0].content).toMatch(/^The user doesn't want to proceed with this tool use/)
    expect(await recordGone(sleeper!)).toBe(true)
  })
})
