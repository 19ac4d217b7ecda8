/**
 * `toolgate run -p` prints what `claude -p` prints, for scripts written for Claude Code: the same
 * message types in the same order, with the same keys and JSON types, as Claude Code 2.1.332's
 * recorded output for the same scripted session (test/fixtures/claude-code/, recorded by
 * scripts/record-claude-output.ts). Keys that describe Claude Code's own machinery are listed
 * here and in conformance/DIFFERENCES.md. toolgate's own records appear only with
 * --toolgate-events; text output is the final answer alone, the run itself with --verbose.
 * The sessions run in this process (runCliInProcess); the json one through the built CLI.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeAnthropic, sse, type FakeAnthropic } from "../support/fakeAnthropic.js"
import {
  CLAUDE_FIXTURES,
  kindOf,
  loadSession,
  shapeDifferences,
  shapeOf,
  sseEventsOf,
  sseFramesOf,
  type ShapeRules
} from "../support/claudeSession.js"
import { cleanEnv, runCli, runCliInProcess } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

const session = loadSession()

/** What toolgate does not send: Claude Code's request ids and its auto-memory folder. */
const CLAUDE_ONLY = ["assistant.request_id", "system/init.memory_paths.auto"]

const rules: ShapeRules = {
  claudeOnly: new Set(CLAUDE_ONLY),
  // toolgate has no messaging socket: null where Claude Code names one
  anyType: new Set(["system/init.messaging_socket_path"]),
  toolgateOnly: new Set(["system/init.toolgate_version"]),
  maps: new Set(["result/success.modelUsage", "result/success.model_usage_since_last_result"])
}

const claudeLines = (): Array<Record<string, unknown>> =>
  fs
    .readFileSync(path.join(CLAUDE_FIXTURES, "stream-json.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))

const toolUseIdOf = (line: Record<string, unknown>): string | undefined => {
  const content = (line.message as { content?: unknown } | undefined)?.content
  return Array.isArray(content) && typeof content[0]?.tool_use_id === "string" ? content[0].tool_use_id : undefined
}

/** Pairs the lines of both outputs: user lines by the tool_use they answer, the others by position within their kind. */
const pairs = (claude: ReadonlyArray<Record<string, unknown>>, toolgate: ReadonlyArray<Record<string, unknown>>) => {
  const keyOf = (lines: ReadonlyArray<Record<string, unknown>>) => {
    const seen = new Map<string, number>()
    return lines.map((line) => {
      const kind = kindOf(line)
      const id = kind === "user" || kind === "system/permission_denied"
        ? (toolUseIdOf(line) ?? String(line.tool_use_id))
        : undefined
      if (id !== undefined) return `${kind}:${id}`
      const n = seen.get(kind) ?? 0
      seen.set(kind, n + 1)
      return `${kind}#${n}`
    })
  }
  const ours = new Map(keyOf(toolgate).map((k, i) => [k, toolgate[i]!] as const))
  return keyOf(claude).map((key, i) => ({ key, claude: claude[i]!, toolgate: ours.get(key) }))
}

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-shape" })
})
afterAll(async () => {
  await fake.close()
})

const runSession = async (args: ReadonlyArray<string>, run = runCliInProcess) => {
  const project = fs.realpathSync(tempDir("toolgate-print-"))
  for (const [name, text] of Object.entries(session.files)) fs.writeFileSync(path.join(project, name), text)
  session.turns.forEach((turn, i) =>
    fake.enqueue(sse(sseFramesOf(sseEventsOf(turn, session.model, `msg_${i}`, project))))
  )
  const ran = await run([
    "run",
    "-p",
    session.prompt,
    "--model",
    session.model,
    "--session-dir",
    path.join(project, ".session"),
    ...args
  ], {
    cwd: project,
    env: cleanEnv({ ANTHROPIC_API_KEY: "sk-shape", ANTHROPIC_BASE_URL: fake.url })
  })
  return { ...ran, project }
}

describe("print mode, beside Claude Code's recorded output", () => {
  it(
    "--output-format stream-json: the same message types in the same order, with Claude Code's keys and types",
    async () => {
      const ran = await runSession(["--output-format", "stream-json", "--verbose"])
      expect(ran.code, ran.stderr).toBe(0)
      const ours = ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      const theirs = claudeLines()
      expect(ours.map(kindOf)).toEqual(theirs.map(kindOf))
      const differences = pairs(theirs, ours).flatMap(({ key, claude, toolgate }) =>
        toolgate === undefined
          ? [`${key}: no such line from toolgate`]
          : shapeDifferences(shapeOf(claude), shapeOf(toolgate), kindOf(claude), rules)
      )
      expect(differences).toEqual([])
      // the values scripts read
      const result = ours.at(-1)!
      expect(result).toMatchObject({
        type: "result",
        subtype: "success",
        is_error: false,
        num_turns: 4,
        result: session.turns[1]!.blocks[0]!.text
      })
      expect(result.permission_denials).toEqual([{
        tool_name: "Bash",
        tool_use_id: "toolu_03_touch",
        tool_input: { command: "touch made.txt" }
      }])
      const sessionIds = new Set(ours.map((l) => l.session_id))
      expect(sessionIds.size).toBe(1)
      expect(
        ours.filter((l) => l.type === "assistant" || l.type === "user").every((l) => l.parent_tool_use_id === null)
      ).toBe(true)
      expect(ours.some((l) => l.type === "tool_call")).toBe(false)
      // every key a script could read, with toolgate's own values
      expect(ours[0]).toMatchObject({
        claude_code_version: "2.1.332",
        served_by_anthropic: false,
        sandbox_enabled: false,
        capabilities: [],
        fast_mode_state: "off"
      })
      expect(result.subagent_stats).toMatchObject({ spawned: 0, completed: 0, by_type: {} })
      for (const key of ["ttft_ms", "ttft_stream_ms", "time_to_request_ms", "first_content_frame_ms"]) {
        expect(
          result[key]
        ).toBeGreaterThanOrEqual(0)
      }
      expect(result.time_to_request_ms as number).toBeLessThanOrEqual(result.ttft_stream_ms as number)
      expect(result.model_usage_since_last_result).toEqual(result.modelUsage)
      // a successful call's structured output, as Claude Code gives it; a failed one's text
      const resultFor = (lines: ReadonlyArray<Record<string, unknown>>, id: string) =>
        lines.find((l) => l.type === "user" && toolUseIdOf(l) === id)?.tool_use_result
      // why a call did not run, and who decided
      const metaFor = (lines: ReadonlyArray<Record<string, unknown>>, id: string) =>
        lines.find((l) => l.type === "user" && toolUseIdOf(l) === id)?.tool_result_meta
      expect(metaFor(ours, "toolu_03_touch")).toEqual(metaFor(theirs, "toolu_03_touch"))
      for (const id of ["toolu_01_read", "toolu_02_missing"]) {
        expect(JSON.parse(JSON.stringify(resultFor(ours, id)).split(ran.project).join("{{cwd}}"))).toEqual(
          resultFor(theirs, id)
        )
      }
    },
    60_000
  )

  it("--output-format json: one result object with Claude Code's keys and types (built CLI)", async () => {
    const ran = await runSession(["--output-format", "json"], runCli)
    expect(ran.code, ran.stderr).toBe(0)
    const ours = JSON.parse(ran.stdout) as Record<string, unknown>
    const theirs = JSON.parse(fs.readFileSync(path.join(CLAUDE_FIXTURES, "json.json"), "utf8")) as Record<
      string,
      unknown
    >
    expect(ran.stdout.trim().split("\n")).toHaveLength(1)
    expect(shapeDifferences(shapeOf(theirs), shapeOf(ours), kindOf(theirs), rules)).toEqual([])
    expect(ours).not.toHaveProperty("toolgate")
  }, 60_000)

  it("--toolgate-events adds toolgate's call records, and only then", async () => {
    const ran = await runSession(["--output-format", "stream-json", "--toolgate-events"])
    expect(ran.code, ran.stderr).toBe(0)
    const ours = ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    const calls = ours.filter((l) => l.type === "tool_call")
    for (const id of ["toolu_01_read", "toolu_02_missing", "toolu_03_touch"]) {
      expect(calls.filter((c) => c.tool_use_id === id).map((c) => c.event)).toEqual(
        expect.arrayContaining(["started", "finished"])
      )
    }
    const result = ours.at(-1)! as {
      toolgate: { tool_calls: Array<{ tool_use_id: string; batch: number }>; transcript: string }
    }
    expect(result.toolgate.tool_calls.map((c) => [c.tool_use_id, c.batch])).toEqual([
      ["toolu_01_read", 1],
      ["toolu_02_missing", 1],
      ["toolu_03_touch", 2]
    ])
    expect(fs.existsSync(result.toolgate.transcript)).toBe(true)
  }, 60_000)

  it("text: the final answer only; --verbose shows the run", async () => {
    const plain = await runSession([])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toBe(`${session.turns[1]!.blocks[0]!.text}\n`)
    expect(plain.stderr).not.toContain("transcript")
    const verbose = await runSession(["--verbose"])
    expect(verbose.code, verbose.stderr).toBe(0)
    expect(verbose.stdout).toContain("Read(")
    expect(verbose.stdout).toContain("2 calls ran in parallel")
    expect(verbose.stdout).toContain(session.turns[1]!.blocks[0]!.text)
    expect(verbose.stderr).toMatch(/transcript: .*transcript\.jsonl/)
  }, 60_000)
})
