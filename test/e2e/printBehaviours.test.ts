/**
 * `toolgate run` beside `claude -p` on the cases of test/fixtures/claude-code/print-behaviours.json:
 * the same fake Messages API answers, and toolgate must exit with Claude Code's code and print
 * what it printed on stdout (-c with no session to continue, the max-turns and API-error lines,
 * usage errors, what is left after Ctrl-C or SIGTERM), and in JSON the result's values a script reads. Claude Code's side was recorded
 * by scripts/record-claude-print.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonError, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { CLAUDE_FIXTURES, sseEventsOf, sseFramesOf, type SessionTurn } from "../support/claudeSession.js"
import { spawn } from "node:child_process"
import { BIN, cleanEnv, runCliInProcess, type Ran } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly files?: Readonly<Record<string, string>>
  readonly turns: ReadonlyArray<SessionTurn>
  readonly apiError?: { readonly status: number; readonly type: string; readonly message: string }
  readonly interruptWhen?: string
  readonly interruptSignal?: NodeJS.Signals
  readonly interruptCount?: number
  readonly claude: { readonly code: number; readonly stdout: string; readonly stderr: boolean }
}

const fixture = JSON.parse(fs.readFileSync(path.join(CLAUDE_FIXTURES, "print-behaviours.json"), "utf8")) as {
  model: string
  cases: ReadonlyArray<Case>
}

/**
 * Where toolgate prints more on purpose: after SIGTERM, `--output-format json` still gets its result
 * (every call answered, `error_during_execution`); Claude Code prints nothing.
 */
const PRINTS_RESULT_WHERE_CLAUDE_IS_SILENT = new Set(["sigterm-during-tools-json"])

/** The built CLI, with Ctrl-C (or the case's signal) once the case's command has created its marker file. */
const runInterrupted = (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string>,
  marker: string,
  signal: NodeJS.Signals,
  count: number
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const poll = setInterval(() => {
      if (!fs.existsSync(marker)) return
      clearInterval(poll)
      for (let i = 0; i < count; i++) setTimeout(() => child.kill(signal), 500 + 150 * i)
    }, 50)
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearInterval(poll)
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** The result's values a script reads (ids, timings and costs differ between any two runs). */
const READ_BY_SCRIPTS = [
  "type",
  "subtype",
  "is_error",
  "num_turns",
  "result",
  "errors",
  "terminal_reason",
  "api_error_status",
  "api_error_type",
  "permission_denials"
]

/** A fake API of its own per case: a turn toolgate does not ask for (after --max-turns) stays with its case. */
const runCase = async (c: Case) => {
  const fake = await startFakeAnthropic({ apiKey: "sk-print" })
  try {
    return await runCaseOn(fake, c)
  } finally {
    await fake.close()
  }
}

const runCaseOn = async (fake: FakeAnthropic, c: Case) => {
  const project = fs.realpathSync(tempDir("toolgate-print-case-"))
  for (const [name, text] of Object.entries(c.files ?? {})) fs.writeFileSync(path.join(project, name), text)
  if (c.apiError !== undefined) fake.enqueue(jsonError(c.apiError.status, c.apiError.type, c.apiError.message))
  c.turns.forEach((turn, i) =>
    fake.enqueue(sse(sseFramesOf(sseEventsOf(turn, fixture.model, `msg_${c.name}_${i}`, project))))
  )
  const args = ["run", ...c.args.map((a) => a.split("{{PROMPT}}").join("hi")), "--model", fixture.model]
  const env = cleanEnv({ ANTHROPIC_API_KEY: "sk-print", ANTHROPIC_BASE_URL: fake.url })
  const ran = c.interruptWhen === undefined
    ? await runCliInProcess(args, { cwd: project, env })
    : await runInterrupted(
      args,
      project,
      env,
      path.join(project, c.interruptWhen),
      c.interruptSignal ?? "SIGINT",
      c.interruptCount ?? 1
    )
  return { ...ran, stdout: ran.stdout.split(project).join("{{cwd}}") }
}

describe("toolgate run beside claude -p (recorded from Claude Code)", () => {
  it.each(fixture.cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const ran = await runCase(c)
    expect(ran.code, ran.stderr).toBe(c.claude.code)
    const format = c.args[c.args.indexOf("--output-format") + 1]
    if (PRINTS_RESULT_WHERE_CLAUDE_IS_SILENT.has(c.name)) {
      expect(c.claude.stdout).toBe("")
      expect(JSON.parse(ran.stdout)).toMatchObject({
        type: "result",
        subtype: "error_during_execution",
        is_error: true,
        terminal_reason: "aborted_tools"
      })
    } else if ((format === "json" || format === "stream-json") && c.claude.stdout !== "") {
      // stream-json: the result message, its last line
      const lastLine = (out: string) => out.trim().split("\n").at(-1)!
      const ours = JSON.parse(lastLine(ran.stdout)) as Record<string, unknown>
      const theirs = JSON.parse(lastLine(c.claude.stdout)) as Record<string, unknown>
      const pick = (r: Record<string, unknown>) =>
        Object.fromEntries(READ_BY_SCRIPTS.filter((k) => k in r).map((k) => [k, r[k]]))
      expect(pick(ours)).toEqual(pick(theirs))
      expect(Object.keys(theirs).filter((key) => !(key in ours))).toEqual([])
      // the API's time leaves out the time the calls ran (at least the half second before Ctrl-C)
      if (c.interruptWhen !== undefined) {
        expect(ours.duration_api_ms as number).toBeLessThan((ours.duration_ms as number) - 400)
      }
    } else {
      expect(ran.stdout).toBe(c.claude.stdout)
    }
    // usage errors say why on stderr, as Claude Code does
    if (c.claude.stderr) expect(ran.stderr.trim()).not.toBe("")
  }, 60_000)
})

describe("--tools, as Claude Code's (its answers, recorded with 2.1.332: the init message's tools)", () => {
  const CLAUDE_CODE: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["Read,Bash", ["Bash", "Read"]],
    ["Read Grep", ["Grep", "Read"]],
    ["", []],
    ["Nope", []]
  ]
  it.each(CLAUDE_CODE)("--tools %j offers %j, and the model is told of those alone", async (tools, offered) => {
    const fake = await startFakeAnthropic({ apiKey: "sk-print" })
    try {
      const project = fs.realpathSync(tempDir("toolgate-print-tools-"))
      fake.enqueue(
        sse(
          sseFramesOf(
            sseEventsOf(
              { blocks: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
              fixture.model,
              "msg_tools",
              project
            )
          )
        )
      )
      const ran = await runCliInProcess([
        "run",
        "-p",
        "hi",
        "--tools",
        tools,
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        fixture.model
      ], {
        cwd: project,
        env: cleanEnv({ ANTHROPIC_API_KEY: "sk-print", ANTHROPIC_BASE_URL: fake.url })
      })
      expect(ran.code, ran.stderr).toBe(0)
      const init = JSON.parse(ran.stdout.split("\n")[0]!) as { tools: ReadonlyArray<string> }
      expect([...init.tools].sort()).toEqual(offered)
      expect(((fake.requests[0]!.body.tools ?? []) as ReadonlyArray<{ name: string }>).map((t) => t.name).sort())
        .toEqual(offered)
    } finally {
      await fake.close()
    }
  }, 60_000)

  it("\"default\" offers every tool", async () => {
    const fake = await startFakeAnthropic({ apiKey: "sk-print" })
    try {
      const project = fs.realpathSync(tempDir("toolgate-print-tools-"))
      fake.enqueue(
        sse(
          sseFramesOf(
            sseEventsOf(
              { blocks: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
              fixture.model,
              "msg_tools",
              project
            )
          )
        )
      )
      const ran = await runCliInProcess([
        "run",
        "-p",
        "hi",
        "--tools",
        "default",
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        fixture.model
      ], {
        cwd: project,
        env: cleanEnv({ ANTHROPIC_API_KEY: "sk-print", ANTHROPIC_BASE_URL: fake.url })
      })
      expect(ran.code, ran.stderr).toBe(0)
      expect(JSON.parse(ran.stdout.split("\n")[0]!).tools).toEqual(
        expect.arrayContaining(["Agent", "Bash", "Edit", "Glob", "Grep", "Read", "WebFetch", "WebSearch", "Write"])
      )
    } finally {
      await fake.close()
    }
  }, 60_000)
})

describe("tool_result_meta says why a call did not run, as Claude Code 2.1.332 does", () => {
  it("a deny rule: permission-rule; an ask nobody can answer: user-rejected", async () => {
    const fake = await startFakeAnthropic({ apiKey: "sk-print" })
    try {
      const project = fs.realpathSync(tempDir("toolgate-print-meta-"))
      fs.writeFileSync(path.join(project, "a.txt"), "x\n")
      const turn = {
        blocks: [
          { type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "rm a.txt" } },
          { type: "tool_use", id: "toolu_02", name: "Bash", input: { command: "touch b.txt" } }
        ],
        stop_reason: "tool_use"
      }
      fake.enqueue(
        sse(sseFramesOf(sseEventsOf(turn, fixture.model, "msg_meta_0", project))),
        sse(
          sseFramesOf(
            sseEventsOf(
              { blocks: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
              fixture.model,
              "msg_meta_1",
              project
            )
          )
        )
      )
      const ran = await runCliInProcess(
        [
          "run",
          "-p",
          "hi",
          "--disallowed-tools",
          "Bash(rm:*)",
          "--output-format",
          "stream-json",
          "--verbose",
          "--model",
          fixture.model
        ],
        { cwd: project, env: cleanEnv({ ANTHROPIC_API_KEY: "sk-print", ANTHROPIC_BASE_URL: fake.url }) }
      )
      expect(ran.code, ran.stderr).toBe(0)
      const metas = ran.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; tool_result_meta?: ReadonlyArray<{ id: string }> })
        .flatMap((l) => (l.type === "user" ? (l.tool_result_meta ?? []) : []))
      // Claude Code also names its reason (reason_type "subcommandResults" for the rule); toolgate's reasons have other names
      expect(metas.find((m) => m.id === "toolu_01")).toMatchObject({
        non_execution_kind: "permission-rule",
        permission_decision: { decision: "reject", source: "config" }
      })
      expect(metas.find((m) => m.id === "toolu_02")).toEqual({
        id: "toolu_02",
        non_execution_kind: "user-rejected",
        permission_decision: { decision: "reject", source: "config" }
      })
    } finally {
      await fake.close()
    }
  }, 60_000)
})
