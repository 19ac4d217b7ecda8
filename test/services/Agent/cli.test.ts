/**
 * `toolgate run` and `toolgate replay` end to end: against the fake Anthropic server
 * (`-p --output-format json|stream-json`), without a key, with a wrong key, with an unreachable
 * API, and the scripted quick start with its replay. The commands run in this process
 * (runCliInProcess); what only a process shows (which modules start-up loads, the quick start
 * script) and one replay run through the built CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as net from "node:net"
import * as path from "node:path"
import { fixture, sse, startFakeAnthropic, type FakeAnthropic } from "../../support/fakeAnthropic.js"
import { cleanEnv, copyExample, ROOT, runCli, runCliInProcess, runProgram } from "./cliSupport.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-e2e" })
})
afterAll(async () => {
  await fake.close()
})

const withFiles = () => {
  const { work, project } = copyExample()
  fs.writeFileSync(path.join(project, "a.txt"), "hello from a\n")
  fs.writeFileSync(path.join(project, "b.txt"), "hello from b\n")
  return { work, project }
}

const apiEnv = (key = "sk-e2e", url = fake.url) => cleanEnv({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: url })

describe("toolgate run -p against the fake Anthropic server", () => {
  it("--output-format json: a two-turn session with parallel reads", async () => {
    const { work, project } = withFiles()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("two-turn-reads-1", { cwd: project })), sse(fixture("two-turn-reads-2", { cwd: project })))
    const ran = await runCliInProcess([
      "run",
      "-p",
      "Read a.txt and b.txt",
      "--output-format",
      "json",
      "--toolgate-events",
      "--cwd",
      project,
      "--session-dir",
      path.join(work, "s")
    ], {
      env: apiEnv()
    })
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const result = JSON.parse(ran.stdout)
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Both files say hello.",
      num_turns: 3,
      stop_reason: "end_turn"
    })
    expect(result.toolgate).toMatchObject({ stop: "end_turn", model_turns: 2 })
    expect(result.toolgate.tool_calls.map((c: any) => [c.tool_use_id, c.name, c.outcome])).toEqual([
      ["toolu_read_a", "Read", "ok"],
      ["toolu_read_b", "Read", "ok"]
    ])
    // Calls start while the model streams: on a busy machine the first read may be done before
    // the second arrives, which then starts a batch of its own.
    expect(result.toolgate.tool_calls[0].batch).toBe(1)
    expect([1, 2]).toContain(result.toolgate.tool_calls[1].batch)
    expect(result.usage.input_tokens).toBe(420)
    expect(fake.requests.slice(first).map((r) => r.body.model)).toEqual(["claude-sonnet-5-5", "claude-sonnet-5-5"])
    // the transcript was written
    const lines = fs.readFileSync(result.toolgate.transcript, "utf8").trim().split("\n").map((l) => JSON.parse(l))
    // each call is recorded when it starts and when it ends (their order depends on timing), then the turn
    const isCallRecord = (l: { type: string }) => l.type === "call_started" || l.type === "call_finished"
    expect(lines.filter((l) => !isCallRecord(l)).map((l) => l.type)).toEqual([
      "session_start",
      "user",
      "model_turn",
      "assistant",
      "tool_call",
      "tool_call",
      "tool_results",
      "model_turn",
      "assistant",
      "prompt_end",
      "session_end"
    ])
    expect(lines.filter(isCallRecord).map((l) => l.type).sort()).toEqual([
      "call_finished",
      "call_finished",
      "call_started",
      "call_started"
    ])
  })

  it("--model and --output-format stream-json: one JSON object per line, the result last", async () => {
    const { work, project } = withFiles()
    const first = fake.requests.length
    fake.enqueue(sse(fixture("two-turn-reads-1", { cwd: project })), sse(fixture("two-turn-reads-2", { cwd: project })))
    const ran = await runCliInProcess(
      [
        "run",
        "-p",
        "--output-format",
        "stream-json",
        "--toolgate-events",
        "--model",
        "claude-opus-4-1",
        "--cwd",
        project,
        "--session-dir",
        path.join(work, "s")
      ],
      { env: apiEnv(), input: "Read a.txt and b.txt" }
    )
    expect(ran.code).toBe(0)
    const events = ran.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(events[0]).toMatchObject({ type: "system", subtype: "init", model: "claude-opus-4-1" })
    const kinds = events.map((e) => (e.type === "tool_call" ? `${e.event}:${e.tool_use_id}` : e.type))
    expect(kinds.filter((k) => !k.includes(":"))).toEqual([
      "system",
      "assistant",
      "assistant",
      "assistant",
      "user",
      "user",
      "assistant",
      "result"
    ])
    for (const id of ["toolu_read_a", "toolu_read_b"]) {
      expect(kinds.indexOf(`started:${id}`)).toBeGreaterThan(0)
      expect(kinds.indexOf(`finished:${id}`)).toBeGreaterThan(kinds.indexOf(`started:${id}`))
      expect(kinds.indexOf(`finished:${id}`)).toBeLessThan(kinds.lastIndexOf("user"))
    }
    expect(events.at(-1)).toMatchObject({ type: "result", is_error: false, num_turns: 3 })
    expect(fake.requests[first]!.body.messages[0].content).toEqual([{ type: "text", text: "Read a.txt and b.txt" }])
    expect(fake.requests[first]!.body.model).toBe("claude-opus-4-1")
  })

  it("no API key and no scripted model: a message naming both ways to run", async () => {
    const ran = await runCliInProcess(["run", "-p", "hi"], { env: cleanEnv() })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("ANTHROPIC_API_KEY")
    expect(ran.stderr).toContain("--replay FILE")
  })

  it("an invalid key: the API's 401 shown plainly", async () => {
    const { work, project } = withFiles()
    const ran = await runCliInProcess(["run", "-p", "hi", "--cwd", project, "--session-dir", path.join(work, "s")], {
      env: apiEnv("sk-wrong")
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("toolgate: the Anthropic API answered 401 authentication_error: invalid x-api-key")
  })

  it("an unreachable base URL: retries, then a clear error", async () => {
    const { work, project } = withFiles()
    const probe = net.createServer()
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
    const port = (probe.address() as net.AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const env = {
      ...apiEnv("sk-e2e", `http://127.0.0.1:${port}`),
      TOOLGATE_MODEL_MAX_RETRIES: "2",
      TOOLGATE_MODEL_RETRY_BASE_MS: "10"
    }
    const ran = await runCliInProcess(["run", "-p", "hi", "--cwd", project, "--session-dir", path.join(work, "s")], {
      env
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr.match(/retrying in/g)).toHaveLength(2)
    expect(ran.stderr).toMatch(
      new RegExp(
        `toolgate: cannot reach the Anthropic API at http://127\\.0\\.0\\.1:${port} \\(tried 3 times\\): fetch failed: .*ECONNREFUSED`
      )
    )
  })
})

describe("start-up", () => {
  it("the Anthropic SDK is loaded only when a command needs it", async () => {
    // Both ways a module can be loaded are watched: CommonJS require, and import() through a resolve hook.
    // The SDK is bundled; its initialisation loads its one external dependency, @opentelemetry/api.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-hook-"))
    const resolveHook = path.join(dir, "resolve.mjs")
    fs.writeFileSync(
      resolveHook,
      "export async function resolve(s, c, next) { if (/^@anthropic-ai\\/sdk|^@opentelemetry\\/api/.test(s)) process.stderr.write(\"SDK LOADED\\n\"); return next(s, c) }\n"
    )
    const hook = path.join(dir, "hook.mjs")
    fs.writeFileSync(
      hook,
      [
        "import { register, createRequire } from \"node:module\"",
        `register(${JSON.stringify(new URL(`file://${resolveHook}`).href)})`,
        "const M = createRequire(import.meta.url)(\"module\")",
        "const load = M._load",
        "M._load = function (r, ...a) { if (/^@anthropic-ai\\/sdk|^@opentelemetry\\/api/.test(String(r))) process.stderr.write(\"SDK LOADED\\n\"); return load.call(this, r, ...a) }"
      ].join("\n")
    )
    const env = { ...apiEnv(), NODE_OPTIONS: `--import ${hook}` }
    const version = await runCli(["--version"], { env })
    expect(version.code).toBe(0)
    expect(version.stderr).not.toContain("SDK LOADED")
    const { work, project } = withFiles()
    fake.enqueue(sse(fixture("text-only")))
    const ran = await runCli(["run", "-p", "hi", "--cwd", project, "--session-dir", path.join(work, "s")], { env })
    expect(ran.code).toBe(0)
    expect(ran.stderr).toContain("SDK LOADED")
  })
})

describe("the scripted quick start, and replay", () => {
  it("npm run quickstart's script runs the bundled session: parallel reads, grep, edit, a command", async () => {
    const ran = await runProgram(process.execPath, [
      path.join(ROOT, "scripts", "quickstart.mjs"),
      "--replay-speed",
      "0"
    ], {
      cwd: ROOT,
      env: {
        ...cleanEnv(),
        ...(process.env.TOOLGATE_TEST_BIN === undefined
          ? {}
          : { TOOLGATE_BIN: path.resolve(ROOT, process.env.TOOLGATE_TEST_BIN) })
      },
      timeoutMs: 60_000
    })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toContain("4 calls ran in parallel")
    expect(ran.stdout).toContain("Grep(")
    expect(ran.stdout).toContain("has been updated successfully")
    expect(ran.stdout).toContain("all tests passed")
    expect(ran.stdout).toMatch(/done · 4 turns/)
  }, 60_000)

  it(
    "a recorded session replays over a fresh copy to the same tool results (the replay through the built CLI)",
    async () => {
      const first = copyExample()
      const recorded = await runCliInProcess(
        [
          "run",
          "-p",
          "--replay",
          "examples/sessions/quickstart.jsonl",
          "--replay-speed",
          "0",
          "--cwd",
          first.project,
          "--permission-mode",
          "acceptEdits",
          "--allowed-tools",
          "Bash(node test/run.js)",
          "--session-dir",
          path.join(first.work, "s"),
          "--output-format",
          "json",
          "--toolgate-events"
        ],
        { env: cleanEnv() }
      )
      expect(recorded.code).toBe(0)
      const transcript = JSON.parse(recorded.stdout).toolgate.transcript as string
      const second = copyExample()
      const replayed = await runCli([
        "replay",
        transcript,
        "--cwd",
        second.project,
        "--replay-speed",
        "0",
        "--session-dir",
        path.join(second.work, "s"),
        "--output-format",
        "json"
      ], { env: cleanEnv() })
      expect(replayed.code).toBe(0)
      const result = JSON.parse(replayed.stdout)
      expect(result.replay).toMatchObject({ calls: 6, identical: 6, differences: [] })
      expect(fs.readFileSync(path.join(second.project, "src", "math.js"), "utf8")).toContain("return a * b")
      // replaying over the already-edited folder differs, and says where
      const again = await runCliInProcess([
        "replay",
        transcript,
        "--cwd",
        second.project,
        "--replay-speed",
        "0",
        "--session-dir",
        path.join(second.work, "s2")
      ], { env: cleanEnv() })
      expect(again.code).toBe(1)
      expect(again.stdout).toMatch(/replay: 6 tool call\(s\), \d identical, \d different/)
      expect(again.stdout).toMatch(/Edit toolu_qs_05 \(transcript line \d+\)/)
    },
    90_000
  )

  it(
    "the quick start's own transcript, replayed as the README says (at recorded speed), is identical: batches formed by timing are not differences",
    async () => {
      const first = copyExample()
      const recorded = await runCliInProcess(
        [
          "run",
          "-p",
          "--replay",
          "examples/sessions/quickstart.jsonl",
          "--cwd",
          first.project,
          "--permission-mode",
          "acceptEdits",
          "--allowed-tools",
          "Bash(node test/run.js)",
          "--session-dir",
          path.join(first.work, "s"),
          "--output-format",
          "json",
          "--toolgate-events"
        ],
        { env: cleanEnv(), timeoutMs: 60_000 }
      )
      expect(recorded.code, recorded.stderr).toBe(0)
      const transcript = JSON.parse(recorded.stdout).toolgate.transcript as string
      const second = copyExample()
      const replayed = await runCliInProcess([
        "replay",
        transcript,
        "--cwd",
        second.project,
        "--session-dir",
        path.join(second.work, "s")
      ], { env: cleanEnv(), timeoutMs: 60_000 })
      expect(replayed.code, replayed.stdout).toBe(0)
      expect(replayed.stdout).toContain("replay: 6 tool call(s), all results identical to the recording")
    },
    90_000
  )

  it("a corrupt transcript: the line number and what is wrong", async () => {
    const { work } = copyExample()
    const file = path.join(work, "broken.jsonl")
    fs.writeFileSync(
      file,
      [
        "{\"type\":\"session_start\",\"version\":1,\"cwd\":\"/tmp\"}",
        "{\"type\":\"user\",\"text\":\"x\"}",
        "{\"type\":\"model_turn\",\"events\":[{\"at_ms\":1,"
      ].join("\n")
    )
    const ran = await runCliInProcess(["replay", file], { env: cleanEnv() })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain(`toolgate: ${file}:3: not valid JSON`)
  })
})
