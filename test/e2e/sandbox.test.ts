/**
 * Claude Code's sandbox (`sandbox.enabled`) end to end through `toolgate run` against a fake
 * Messages API: the model's Bash calls run in bubblewrap through @anthropic-ai/sandbox-runtime. A
 * write outside the working directories fails with the kernel's error; a server on 127.0.0.1 is
 * out of reach (directly: the command has a network of its own; through the filtering proxy: the
 * host is not allowed) until a WebFetch(domain:…) rule allows it. The texts are Claude Code's.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sseEventsOf, sseFramesOf } from "../support/claudeSession.js"
import { sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { cleanEnv, runCliInProcess } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

const MODEL = "claude-sonnet-4-6"
let fake: FakeAnthropic
let server: http.Server
let port = 0
let hits = 0
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-sandbox" })
  server = http.createServer((_req, res) => {
    hits++
    res.end("reached the server\n")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  await fake.close()
  await new Promise((resolve) => server.close(resolve))
})

const turn = (blocks: ReadonlyArray<Record<string, unknown>>, stop: string, cwd: string, n: number) =>
  sse(sseFramesOf(sseEventsOf({ blocks, stop_reason: stop } as never, MODEL, `msg_${n}`, cwd)))

const bash = (id: string, command: string) => ({
  type: "tool_use",
  id,
  name: "Bash",
  input: { command, description: "x" }
})

const results = (stdout: string): Record<string, { readonly text: string; readonly isError: boolean }> => {
  const out: Record<string, { text: string; isError: boolean }> = {}
  for (const line of stdout.trim().split("\n")) {
    const event = JSON.parse(line) as { type: string; message?: { content?: ReadonlyArray<Record<string, unknown>> } }
    if (event.type !== "user") continue
    for (const block of event.message?.content ?? []) {
      if (block.type !== "tool_result") continue
      const content = block.content
      const text = typeof content === "string"
        ? content
        : (content as ReadonlyArray<{ text?: string }>).map((c) => c.text ?? "").join("")
      out[String(block.tool_use_id)] = { text, isError: block.is_error === true }
    }
  }
  return out
}

const runWith = async (settings: Record<string, unknown>, blocks: ReadonlyArray<Record<string, unknown>>) => {
  const root = fs.realpathSync(tempDir("toolgate-e2e-sandbox-"))
  const project = path.join(root, "project")
  const outside = path.join(root, "outside")
  fs.mkdirSync(project)
  fs.mkdirSync(outside)
  const resolved = JSON.parse(
    JSON.stringify(blocks).split("{{OUTSIDE}}").join(outside).split("{{PORT}}").join(String(port))
  )
  fake.enqueue(turn(resolved, "tool_use", project, 1), turn([{ type: "text", text: "Done." }], "end_turn", project, 2))
  const ran = await runCliInProcess(
    [
      "run",
      "-p",
      "Try it",
      "--model",
      MODEL,
      "--output-format",
      "stream-json",
      "--strict-mcp-config",
      "--settings",
      JSON.stringify(settings)
    ],
    {
      cwd: project,
      env: cleanEnv({ ANTHROPIC_API_KEY: "sk-sandbox", ANTHROPIC_BASE_URL: fake.url }),
      timeoutMs: 90_000
    }
  )
  return { ...ran, project, outside }
}

const SANDBOX = { sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }

describe("sandbox.enabled", () => {
  it("a write outside the working directories fails with the kernel's error; inside and in $TMPDIR it works", async () => {
    const scratch =
      `python3 -c "import os; open(os.path.join(os.environ['TMPDIR'], 's'), 'w').write('x'); print('scratch ok')"`
    const ran = await runWith(SANDBOX, [
      bash("toolu_01", "echo leak > {{OUTSIDE}}/w.txt"),
      bash("toolu_02", "echo ok > inside.txt && cat inside.txt"),
      bash("toolu_03", scratch)
    ])
    expect(ran.code, ran.stderr).toBe(0)
    const got = results(ran.stdout)
    expect(got.toolu_01).toEqual({
      isError: true,
      text: `Exit code 1\n/bin/bash: line 1: ${ran.outside}/w.txt: Read-only file system`
    })
    expect(got.toolu_02).toEqual({ isError: false, text: "ok" })
    expect(got.toolu_03).toEqual({ isError: false, text: "scratch ok" })
    expect(fs.existsSync(path.join(ran.outside, "w.txt"))).toBe(false)
    expect(fs.readFileSync(path.join(ran.project, "inside.txt"), "utf8")).toBe("ok\n")
  })

  it("a server on 127.0.0.1 cannot be reached unless a WebFetch(domain:…) rule allows its host", async () => {
    const before = hits
    const blocks = [
      bash("toolu_01", "curl -sS -m 5 http://127.0.0.1:{{PORT}}/"),
      bash("toolu_02", "curl -sS -m 5 --noproxy '' http://127.0.0.1:{{PORT}}/")
    ]
    const refused = await runWith(SANDBOX, blocks)
    expect(refused.code, refused.stderr).toBe(0)
    const got = results(refused.stdout)
    // directly: the command's network namespace has nothing on that port
    expect(got.toolu_01!.isError).toBe(true)
    expect(got.toolu_01!.text).toMatch(/^Exit code 7\ncurl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/)
    // through the proxy: refused, and the model is told which host in Claude Code's block
    expect(got.toolu_02).toEqual({
      isError: false,
      text:
        `Connection blocked by network allowlist\n<sandbox_violations>\ndeny network-outbound 127.0.0.1:${port} (user denied)\n</sandbox_violations>`
    })
    expect(hits).toBe(before)

    const allowed = await runWith(
      { ...SANDBOX, permissions: { allow: ["WebFetch(domain:127.0.0.1)"] } },
      blocks.slice(1)
    )
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(results(allowed.stdout).toolu_02).toEqual({ isError: false, text: "reached the server" })
    expect(hits).toBe(before + 1)
  })
})
