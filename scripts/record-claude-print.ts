/**
 * Records what Claude Code does for the cases of test/fixtures/claude-code/print-behaviours.json
 * (its exit code, stdout, and whether it wrote to stderr) into their `claude` fields, for the test
 * that runs toolgate on the same cases (test/e2e/printBehaviours.test.ts). It needs Claude Code
 * itself and is never run by the tests or CI:
 *
 *   npx tsx scripts/record-claude-print.ts [path/to/claude [case names…]]
 *
 * Each case runs with a clean environment in a fresh project and home folder against a fake
 * Messages API on 127.0.0.1 that answers the main agent's requests with the case's turns (or its
 * API error), and anything else Claude Code asks with a short harmless answer.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { CLAUDE_FIXTURES, sseEventsOf, type SessionTurn } from "../test/support/claudeSession.js"

const MARKER = "TOOLGATE-PRINT"
const claude = process.argv[2] ?? path.join(os.homedir(), ".cache", "claude-code", "node_modules", ".bin", "claude")
const FILE = path.join(CLAUDE_FIXTURES, "print-behaviours.json")

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly files?: Readonly<Record<string, string>>
  readonly turns: ReadonlyArray<SessionTurn>
  readonly apiError?: { readonly status: number; readonly type: string; readonly message: string }
  /** Ctrl-C once the case's command has created this file in the project. */
  readonly interruptWhen?: string
  /** The signal sent at `interruptWhen` (Ctrl-C's SIGINT unless named). */
  readonly interruptSignal?: NodeJS.Signals
  /** How many times the signal is sent, 150 ms apart (once unless given). */
  readonly interruptCount?: number
  claude?: { readonly code: number | null; readonly stdout: string; readonly stderr: boolean }
}

const fixture = JSON.parse(fs.readFileSync(FILE, "utf8")) as { model: string; cases: Array<Case> }

const runCase = (c: Case): Promise<NonNullable<Case["claude"]>> =>
  new Promise((resolve, reject) => {
    const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "record-print-")))
    const project = path.join(work, "proj")
    const home = path.join(work, "home")
    fs.mkdirSync(project, { recursive: true })
    fs.mkdirSync(home, { recursive: true })
    for (const [name, text] of Object.entries(c.files ?? {})) fs.writeFileSync(path.join(project, name), text)
    let mainTurn = 0
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (d: Buffer) => chunks.push(d))
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
        const isMain = (body.tools ?? []).length > 0 && JSON.stringify(body.messages?.[0] ?? "").includes(MARKER)
        if (isMain && c.apiError !== undefined) {
          res.writeHead(c.apiError.status, { "content-type": "application/json" })
          res.end(JSON.stringify({ type: "error", error: { type: c.apiError.type, message: c.apiError.message } }))
          return
        }
        const turn = isMain && mainTurn < c.turns.length
          ? c.turns[mainTurn++]!
          : { blocks: [{ type: "text", text: isMain ? "Done." : "ok" }], stop_reason: "end_turn" }
        res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_fake" })
        for (const e of sseEventsOf(turn, String(body.model ?? fixture.model), `msg_fake_${Date.now()}`, project)) {
          res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`)
        }
        res.end()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      const args = [...c.args.map((a) => a.split("{{PROMPT}}").join(`${MARKER} hi`)), "--model", fixture.model]
      const child = spawn(claude, args, {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
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
      let stderr = ""
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
      if (c.interruptWhen !== undefined) {
        const marker = path.join(project, c.interruptWhen)
        const poll = setInterval(() => {
          if (!fs.existsSync(marker)) return
          clearInterval(poll)
          for (let i = 0; i < (c.interruptCount ?? 1); i++) {
            setTimeout(() => child.kill(c.interruptSignal ?? "SIGINT"), 500 + 150 * i)
          }
        }, 50)
        child.on("close", () => clearInterval(poll))
      }
      child.on("error", reject)
      child.on("close", (code) => {
        clearTimeout(timer)
        server.close()
        fs.rmSync(work, { recursive: true, force: true })
        // the retired-model notice is Claude Code's own, not the case's
        const errors = stderr.split("\n").filter((l) => l.trim() !== "" && !l.includes("was retired"))
        resolve({
          code,
          stdout: stdout.split(project).join("{{cwd}}").split(`${MARKER} `).join(""),
          stderr: errors.length > 0
        })
      })
    })
  })

const only = process.argv.slice(3)
for (const c of fixture.cases) {
  if (only.length > 0 && !only.includes(c.name)) continue
  c.claude = await runCase(c)
  console.log(`${c.name}: exit ${c.claude.code}`)
}
const version = spawnSync(claude, ["--version"], {
  encoding: "utf8",
  env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: os.tmpdir() }
}).stdout.trim()
fs.writeFileSync(FILE, `${JSON.stringify({ ...fixture, recordedWith: version }, null, 2)}\n`)
