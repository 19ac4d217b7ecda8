/**
 * `toolgate serve` exporting OpenTelemetry traces and metrics: the bundled CLI with the standard
 * OTEL_EXPORTER_OTLP_* variables, a fake OTLP/HTTP collector (node:http on 127.0.0.1, JSON
 * bodies), real sessions running real tools. The collector sees an input's span, its calls'
 * spans under it, the approval wait under its call, and the counters and histograms; it never
 * sees what the tools were asked or answered, nor the server's token. Without the variables
 * nothing is sent; with a collector that cannot be reached the server works and says so once.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import {
  createSession,
  eventually,
  request,
  runApproving,
  scriptOf,
  startServer,
  text,
  toolUse
} from "../support/serve.js"

const SERVER_TOKEN = "serve-telemetry-token-0123456789"
const HEADER_SECRET = "collector-key-5e1f0a9b"
const FILE_MARKER = "file-content-marker-7c1d"
const COMMAND_MARKER = "command-marker-42ab"
const INPUT_MARKER = "input-marker-9f3e"

interface Posted {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly body: any
}

interface Collector {
  readonly url: string
  readonly posts: Array<Posted>
  close(): Promise<void>
}

const startCollector = (): Promise<Collector> =>
  new Promise((resolve) => {
    const posts: Array<Posted> = []
    const server = http.createServer((req, res) => {
      let text = ""
      req.on("data", (d) => (text += String(d)))
      req.on("end", () => {
        let body: unknown = undefined
        try {
          body = JSON.parse(text)
        } catch {
          // not JSON: recorded as text
        }
        posts.push({ path: req.url ?? "", headers: req.headers, text, body })
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        posts,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** A port nothing listens on. */
const deadPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

interface OtlpAttribute {
  readonly key: string
  readonly value: Record<string, unknown>
}
const attributesOf = (list: ReadonlyArray<OtlpAttribute> | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, Object.values(a.value)[0]]))

interface ExportedSpan {
  readonly name: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: Record<string, unknown>
}

const spansOf = (posts: ReadonlyArray<Posted>): Array<ExportedSpan> =>
  posts
    .filter((p) => p.path === "/v1/traces")
    .flatMap((p) =>
      (p.body?.resourceSpans ?? []).flatMap((rs: any) =>
        rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => ({ ...s, attributes: attributesOf(s.attributes) })))
      )
    )

interface Point {
  readonly metric: string
  readonly attributes: Record<string, unknown>
  readonly value: number
}

/** The data points of the last metrics export (cumulative: the latest holds everything). */
const lastMetrics = (posts: ReadonlyArray<Posted>): Array<Point> => {
  const last = posts.filter((p) => p.path === "/v1/metrics").at(-1)
  return (last?.body?.resourceMetrics ?? []).flatMap((rm: any) =>
    rm.scopeMetrics.flatMap((sm: any) =>
      sm.metrics.flatMap((m: any) =>
        (m.sum?.dataPoints ?? m.histogram?.dataPoints ?? m.gauge?.dataPoints ?? []).map((d: any) => ({
          metric: m.name,
          attributes: attributesOf(d.attributes),
          value: Number(d.asInt ?? d.asDouble ?? d.count)
        }))
      )
    )
  )
}

const pointOf = (points: ReadonlyArray<Point>, metric: string, attributes: Record<string, unknown> = {}) =>
  points.find((p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))

const workspace = () => {
  const dir = fs.realpathSync(tempDir("toolgate-otel-ws-"))
  fs.writeFileSync(path.join(dir, "notes.txt"), `${FILE_MARKER}\n`)
  return dir
}

const serveWith = (env: Record<string, string>) =>
  startServer({
    args: ["--state-dir", tempDir("toolgate-otel-state-")],
    env: { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, TOOLGATE_SERVE_POLL_MS: "200", ...env }
  })

/** A read, an asked-and-approved Bash command, and a tool that does not exist (the model's input to it is not a label). */
const threeCalls = (cwd: string) => [
  toolUse("toolu_read", "Read", { file_path: path.join(cwd, "notes.txt") }),
  toolUse("toolu_bash", "Bash", { command: `echo ${COMMAND_MARKER} > out.txt` }),
  toolUse("toolu_nope", "NoSuchTool", { x: INPUT_MARKER })
]

const quiet = { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" }

describe("toolgate serve with OpenTelemetry export", () => {
  let collector: Collector
  beforeAll(async () => {
    collector = await startCollector()
  })
  afterAll(async () => {
    await collector?.close()
  })

  it(
    "exports spans of the input, its calls and the approval wait, and metrics of sessions, inputs, calls and approvals; nothing the tools were asked or answered",
    async () => {
      const server = await serveWith({
        ...quiet,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${HEADER_SECRET}`,
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "200"
      })
      try {
        const cwd = workspace()
        const session = await createSession(server.url, SERVER_TOKEN, { cwd })
        const results = await runApproving(server.url, session, threeCalls(cwd))
        expect(results.get("toolu_read")?.text).toContain(FILE_MARKER)
        expect(results.get("toolu_bash")?.isError).toBe(false)
        expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe(`${COMMAND_MARKER}\n`)
        expect(results.get("toolu_nope")?.isError).toBe(true)

        // a prompt whose one call asks, and nobody answers in time
        const unanswered = await request(server.url, "POST", "/sessions", {
          token: SERVER_TOKEN,
          body: {
            cwd,
            approvalTimeoutSeconds: 1,
            script: scriptOf([
              {
                content: [toolUse("toolu_late", "Bash", { command: `touch ${COMMAND_MARKER}` })],
                stop_reason: "tool_use"
              },
              { content: [text("It was denied.")], stop_reason: "end_turn" }
            ])
          }
        })
        const prompt = await request(server.url, "POST", `/sessions/${unanswered.body.id}/messages`, {
          token: unanswered.body.token,
          body: { role: "user", content: `touch a file ${INPUT_MARKER}` }
        })
        expect(prompt.body.status).toBe("done")

        const spans = await eventually(() => {
          const all = spansOf(collector.posts)
          const inputs = all.filter((s) => s.name === "toolgate.input")
          const approvals = all.filter((s) => s.name === "toolgate.approval")
          return inputs.length >= 2 && approvals.length >= 2 &&
              all.filter((s) => s.name === "toolgate.call").length >= 3
            ? all
            : undefined
        }, 30_000)
        const input = spans.find((s) =>
          s.name === "toolgate.input" && s.attributes["toolgate.session.id"] === session.id
        )!
        expect(input.attributes).toMatchObject({
          "toolgate.session.id": session.id,
          "toolgate.input.kind": "tool_uses",
          "toolgate.input.status": "done",
          "toolgate.runner": "embedded",
          "toolgate.input.resumed": false
        })
        const promptInput = spans.find((s) =>
          s.name === "toolgate.input" && s.attributes["toolgate.session.id"] === unanswered.body.id
        )!
        expect(promptInput.attributes).toMatchObject({
          "toolgate.input.kind": "prompt",
          "toolgate.input.status": "done"
        })
        const callSpans = spans.filter((s) => s.name === "toolgate.call")
        const call = (id: string) => callSpans.find((s) => s.attributes["toolgate.tool_use.id"] === id)!
        expect(call("toolu_read").attributes).toMatchObject({ "toolgate.tool": "Read", "toolgate.call.outcome": "ok" })
        expect(call("toolu_bash").attributes).toMatchObject({ "toolgate.tool": "Bash", "toolgate.call.outcome": "ok" })
        // a tool that does not exist never runs: counted below, no span
        expect(call("toolu_nope")).toBeUndefined()
        expect(call("toolu_late").attributes).toMatchObject({ "toolgate.call.outcome": "not_approved" })
        expect(call("toolu_late").parentSpanId).toBe(promptInput.spanId)
        for (const id of ["toolu_read", "toolu_bash"]) expect(call(id).parentSpanId).toBe(input.spanId)
        expect(
          spans.find((s) => s.attributes["toolgate.tool_use.id"] === "toolu_late" && s.name === "toolgate.approval")
            ?.attributes
        ).toMatchObject({ "toolgate.approval.decision": "timeout" })
        const approval = spans.find((s) =>
          s.name === "toolgate.approval" && s.attributes["toolgate.tool_use.id"] === "toolu_bash"
        )!
        expect(approval.attributes).toMatchObject({
          "toolgate.tool": "Bash",
          "toolgate.tool_use.id": "toolu_bash",
          "toolgate.session.id": session.id,
          "toolgate.approval.decision": "allow",
          "toolgate.approval.scope": "once"
        })
        expect(approval.parentSpanId).toBe(call("toolu_bash").spanId)
        // only toolgate's own spans, with only toolgate's own attributes
        for (const s of spans) {
          expect(s.name).toMatch(/^toolgate\./)
          for (const key of Object.keys(s.attributes)) expect(key).toMatch(/^toolgate\./)
        }

        const points = await eventually(() => {
          const latest = lastMetrics(collector.posts)
          return pointOf(latest, "toolgate.inputs", { kind: "prompt", status: "done" }) !== undefined &&
              pointOf(latest, "toolgate.approvals", { decision: "timeout" }) !== undefined
            ? latest
            : undefined
        }, 30_000)
        expect(pointOf(points, "toolgate.sessions.created")?.value).toBe(2)
        expect(pointOf(points, "toolgate.inputs", { kind: "prompt", status: "done" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.calls", { tool: "Bash", outcome: "not_approved" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.approvals", { decision: "timeout" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.inputs", { kind: "tool_uses", status: "done" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.input.duration", { kind: "tool_uses", status: "done" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.calls", { tool: "Read", outcome: "ok" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.calls", { tool: "Bash", outcome: "ok" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.calls", { tool: "unknown", outcome: "error" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.call.duration", { tool: "Bash", outcome: "ok" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.approvals", { decision: "allow" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.approval.wait", { decision: "allow" })?.value).toBe(1)

        const resource = attributesOf(
          collector.posts.find((p) => p.path === "/v1/metrics")!.body.resourceMetrics[0].resource.attributes
        )
        expect(resource).toMatchObject({
          "service.name": "toolgate",
          "toolgate.runner": "embedded",
          "deployment.environment": "test"
        })
        expect(collector.posts.every((p) => p.headers["x-collector-key"] === HEADER_SECRET)).toBe(true)
        expect(collector.posts.every((p) => p.headers["content-type"] === "application/json")).toBe(true)
        const sent = collector.posts.map((p) => p.text).join("\n")
        for (
          const secret of [
            FILE_MARKER,
            COMMAND_MARKER,
            INPUT_MARKER,
            SERVER_TOKEN,
            session.token,
            unanswered.body.token,
            HEADER_SECRET
          ]
        ) {
          expect(sent).not.toContain(secret)
        }
        expect(server.stdout()).toBe("")
      } finally {
        await server.stop()
      }
    },
    90_000
  )

  it(
    "counts the call a runner killed mid-call left behind, answered RunnerLost by the runner that resumes its input",
    async () => {
      const stateDir = tempDir("toolgate-otel-lost-")
      const otel = {
        ...quiet,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "200"
      }
      const start = () =>
        startServer({
          args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
          env: { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, TOOLGATE_SERVE_POLL_MS: "200", ...otel }
        })
      const cwd = workspace()
      const mark = path.join(cwd, "started")
      let server = await start()
      try {
        const session = await createSession(server.url, SERVER_TOKEN, { cwd, permissionMode: "bypassPermissions" })
        await request(server.url, "POST", `/sessions/${session.id}/messages?wait=false`, {
          token: session.token,
          body: {
            role: "assistant",
            content: [toolUse("toolu_lost", "Bash", { command: `touch ${mark}; sleep 30` })],
            key: "k"
          }
        })
        await eventually(() => (fs.existsSync(mark) ? true : undefined))
        await server.stop("SIGKILL")
        const exportedBefore = collector.posts.length

        server = await start()
        const result = await request(server.url, "GET", `/sessions/${session.id}/messages/k?wait=true`, {
          token: session.token
        })
        expect(result.body.status).toBe("done")
        expect(JSON.stringify(result.body.messages)).toContain("stopped while it ran")
        const points = await eventually(() => {
          const latest = lastMetrics(collector.posts.slice(exportedBefore))
          return pointOf(latest, "toolgate.runner_lost", { tool: "Bash" }) !== undefined ? latest : undefined
        }, 30_000)
        expect(pointOf(points, "toolgate.runner_lost", { tool: "Bash" })?.value).toBe(1)
        expect(pointOf(points, "toolgate.calls", { tool: "Bash", outcome: "runner_lost" })?.value).toBe(1)
        const spans = await eventually(() => {
          const all = spansOf(collector.posts.slice(exportedBefore))
          return all.some((s) => s.name === "toolgate.input") ? all : undefined
        }, 30_000)
        expect(spans.find((s) => s.name === "toolgate.input")?.attributes).toMatchObject({
          "toolgate.input.resumed": true,
          "toolgate.input.status": "done"
        })
        expect(spans.find((s) => s.name === "toolgate.call")?.attributes).toMatchObject({
          "toolgate.tool_use.id": "toolu_lost",
          "toolgate.call.outcome": "runner_lost",
          "toolgate.call.error": "RunnerLost"
        })
      } finally {
        await server.stop()
      }
    },
    120_000
  )

  it("sends nothing without an endpoint in the environment", async () => {
    const before = collector.posts.length
    const server = await serveWith({ ...quiet, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "100" })
    try {
      const cwd = workspace()
      const results = await runApproving(
        server.url,
        await createSession(server.url, SERVER_TOKEN, { cwd }),
        threeCalls(cwd)
      )
      expect(results.get("toolu_bash")?.isError).toBe(false)
      // several export intervals
      await new Promise((r) => setTimeout(r, 500))
    } finally {
      await server.stop()
    }
    expect(collector.posts.length).toBe(before)
  }, 90_000)

  it(
    "serves as usual when the collector cannot be reached, with one warning on stderr and nothing on stdout",
    async () => {
      const server = await serveWith({
        ...quiet,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await deadPort()}`,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "100"
      })
      const warnings = () => server.stderr().split("\n").filter((line) => line.includes("OpenTelemetry"))
      try {
        const cwd = workspace()
        const session = await createSession(server.url, SERVER_TOKEN, { cwd })
        const first = await runApproving(server.url, session, threeCalls(cwd))
        expect(first.get("toolu_read")?.text).toContain(FILE_MARKER)
        await eventually(() => (warnings().length > 0 ? true : undefined), 30_000)
        const second = await runApproving(server.url, session, [
          toolUse("toolu_again", "Bash", { command: "echo again > again.txt" })
        ])
        expect(second.get("toolu_again")?.isError).toBe(false)
        expect(fs.readFileSync(path.join(cwd, "again.txt"), "utf8")).toBe("again\n")
      } finally {
        await server.stop()
      }
      expect(warnings()).toHaveLength(1)
      expect(warnings()[0]).toContain("cannot be reached")
      expect(server.stdout()).toBe("")
    },
    90_000
  )
})
