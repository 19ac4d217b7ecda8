/**
 * Records what Claude Code prints in print mode for the scripted session of
 * test/fixtures/claude-code/session.json, as the fixtures the print-mode shape test compares
 * toolgate with (stream-json.jsonl, json.json). It needs Claude Code itself and is never run by
 * the tests or CI:
 *
 *   npx tsx scripts/record-claude-output.ts [path/to/claude]
 *
 * Claude Code runs with a clean environment against a fake Messages API on 127.0.0.1 that answers
 * the session's turns (and anything else Claude Code asks, titles and token counts, with short
 * harmless answers), in a temporary project and home folder; their paths become {{cwd}} and
 * {{home}} in the fixtures.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { CLAUDE_FIXTURES, loadSession, sseEventsOf } from "../test/support/claudeSession.js"

const MARKER = "TOOLGATE-SHAPE"
const claude = process.argv[2] ?? path.join(os.homedir(), ".cache", "claude-code", "node_modules", ".bin", "claude")
const session = loadSession()
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "record-claude-")))
const project = path.join(work, "proj")
const home = path.join(work, "home")

type Message = { readonly role: string; readonly content: unknown }
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((b) => (b?.type === "text" ? String(b.text) : "")).join("\n")
    : ""

/** The main agent's requests carry tools and the marked prompt, and end with the prompt or tool results. */
const isMain = (body: { tools?: ReadonlyArray<unknown>; messages?: ReadonlyArray<Message> }): boolean => {
  const messages = (body.messages ?? []).filter((m) => m.role === "user" || m.role === "assistant")
  if ((body.tools ?? []).length === 0 || messages.length === 0 || !textOf(messages[0]!.content).includes(MARKER)) {
    return false
  }
  const last = messages.at(-1)!
  return last.role === "user" &&
    (messages.length === 1 || (Array.isArray(last.content) && last.content.some((b) => b?.type === "tool_result")))
}

const server = http.createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    let body: any = {}
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      body = {}
    }
    if ((req.url ?? "").includes("count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ input_tokens: 100 }))
      return
    }
    const turnIndex = isMain(body)
      ? (body.messages as ReadonlyArray<Message>).filter((m) => m.role === "assistant").length
      : -1
    const turn = turnIndex >= 0 && turnIndex < session.turns.length
      ? session.turns[turnIndex]!
      : { blocks: [{ type: "text", text: turnIndex >= 0 ? "Done." : "ok" }], stop_reason: "end_turn" }
    const events = sseEventsOf(
      turn,
      String(body.model ?? session.model),
      `msg_fake_${turnIndex}_${Date.now()}`,
      project
    )
    res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_fake" })
    for (const e of events) res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`)
    res.end()
  })
})

const run = async (port: number, format: "stream-json" | "json"): Promise<string> => {
  fs.rmSync(project, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
  fs.mkdirSync(project, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  for (const [name, text] of Object.entries(session.files)) fs.writeFileSync(path.join(project, name), text)
  const args = [
    "-p",
    `${MARKER} ${session.prompt}`,
    "--output-format",
    format,
    "--model",
    session.model,
    "--tools",
    "Read,Bash"
  ]
  if (format === "stream-json") args.push("--verbose")
  // the fake API answers from this process: the run must not block it
  const child = spawn(claude, args, {
    cwd: project,
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      LANG: "C.UTF-8",
      TERM: "dumb",
      HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      ENABLE_TOOL_SEARCH: "false",
      IS_SANDBOX: "1"
    }
  })
  let stdout = ""
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
  await new Promise((resolve, reject) => {
    child.on("error", reject)
    child.on("close", resolve)
  })
  clearTimeout(timer)
  return stdout.split(project).join("{{cwd}}").split(home).join("{{home}}").split(`${MARKER} `).join("")
}

server.listen(0, "127.0.0.1", async () => {
  const { port } = server.address() as AddressInfo
  try {
    const stream = await run(port, "stream-json")
    fs.writeFileSync(path.join(CLAUDE_FIXTURES, "stream-json.jsonl"), stream)
    const json = await run(port, "json")
    fs.writeFileSync(path.join(CLAUDE_FIXTURES, "json.json"), json)
    const version = spawnSync(claude, ["--version"], {
      encoding: "utf8",
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home }
    }).stdout.trim()
    fs.writeFileSync(path.join(CLAUDE_FIXTURES, "recorded-with.txt"), `${version}\n`)
    console.log(
      `recorded ${stream.trim().split("\n").length} stream-json lines and the json result of Claude Code ${version}`
    )
  } finally {
    server.close()
    fs.rmSync(work, { recursive: true, force: true })
  }
})
