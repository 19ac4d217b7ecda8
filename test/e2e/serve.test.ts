/**
 * `toolgate serve` as a web app uses it: the bundled CLI listening on 127.0.0.1 (embedded runner,
 * SQLite in a temporary state folder, a server token), driven over HTTP and its event stream,
 * with sessions on the real Anthropic SDK against a fake Messages server or on scripted models,
 * running real tools in real folders; then killed with SIGKILL and started again on the same
 * storage.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { framesOf, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { tempDir } from "../support/runtime.js"
import {
  anthropicTurn,
  createSession,
  eventually,
  readEvents,
  request,
  scriptOf,
  type Served,
  startServer,
  text,
  toolUse
} from "../support/serve.js"

const workspace = () => fs.realpathSync(tempDir("toolgate-serve-ws-"))

/** Every tool_use of an assistant message is answered by exactly one tool_result in the next message. */
const expectEveryToolUseAnswered = (messages: ReadonlyArray<{ role: string; content: any }>) => {
  messages.forEach((message, i) => {
    if (message.role !== "assistant" || typeof message.content === "string") return
    const uses = message.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id)
    if (uses.length === 0) return
    const next = messages[i + 1]
    expect(next?.role).toBe("user")
    const results = (next!.content as Array<any>).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
    expect(results).toEqual(uses)
  })
}

const toolResults = (messages: ReadonlyArray<{ content: any }>) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result")

const SERVER_TOKEN = "serve-test-token-0123456789"
const API_KEY = "sk-serve-e2e"

describe("toolgate serve (embedded runner)", () => {
  let server: Served
  let fake: FakeAnthropic
  const stateDir = tempDir("toolgate-serve-state-")
  const start = () =>
    startServer({
      args: [
        "--state-dir",
        stateDir,
        "--approval-timeout",
        "120",
        "--allow",
        "bypassPermissions",
        "--allow",
        "acceptEdits"
      ],
      env: {
        TOOLGATE_SERVE_TOKEN: SERVER_TOKEN,
        ANTHROPIC_API_KEY: API_KEY,
        ANTHROPIC_BASE_URL: fake.url,
        TOOLGATE_SERVE_POLL_MS: "200"
      }
    })

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: API_KEY })
    server = await start()
  }, 90_000)

  afterAll(async () => {
    await server?.stop("SIGTERM")
    await fake?.close()
    fs.rmSync(stateDir, { recursive: true, force: true })
  })

  const create = (body: Record<string, unknown>) => createSession(server.url, SERVER_TOKEN, { replaySpeed: 0, ...body })
  const enqueueTurns = (...turns: ReadonlyArray<Array<Record<string, unknown>>>) =>
    fake.enqueue(...turns.map((events) => sse(framesOf(events))))
  let claudeSession: { id: string; token: string } | undefined

  it("drives a Claude session over HTTP and SSE (real SDK, fake Messages server), answers its permission question over HTTP, and records the transcript", async () => {
    const cwd = workspace()
    const { id, token } = await create({ cwd })
    claudeSession = { id, token }
    const first = fake.requests.length
    enqueueTurns(
      anthropicTurn("msg_w1", [
        text("I'll write the file."),
        toolUse("toolu_w1", "Bash", { command: "echo hello > out.txt && cat out.txt" })
      ], "tool_use"),
      anthropicTurn("msg_w2", [text("Done: out.txt says hello.")], "end_turn")
    )
    const events = readEvents(server.url, id, token)
    try {
      const sent = request(server.url, "POST", `/sessions/${id}/messages`, {
        token,
        body: { role: "user", content: "Write hello to out.txt", key: "first" }
      })

      const asked = await events.waitFor("approval_requested")
      expect(asked.data).toMatchObject({
        toolUseId: "toolu_w1",
        tool: "Bash",
        input: { command: "echo hello > out.txt && cat out.txt" }
      })
      const pending = await request(server.url, "GET", `/sessions/${id}/approvals`, { token })
      expect(pending.body.map((a: any) => a.toolUseId)).toEqual(["toolu_w1"])
      expect(fs.existsSync(path.join(cwd, "out.txt"))).toBe(false)

      const answered = await request(server.url, "POST", `/sessions/${id}/approvals/toolu_w1`, {
        token,
        body: { decision: "allow", scope: "once" }
      })
      expect(answered.status, answered.text).toBe(200)
      expect(answered.body.answer).toMatchObject({ behavior: "allow", scope: "once" })

      const result = await sent
      expect(result.status, result.text).toBe(200)
      expect(result.body).toMatchObject({
        key: "first",
        seq: 1,
        kind: "prompt",
        status: "done",
        stop: "end_turn",
        text: "Done: out.txt says hello.",
        turns: 2
      })
      expectEveryToolUseAnswered(result.body.messages)
      expect(toolResults(result.body.messages)).toEqual([{
        type: "tool_result",
        tool_use_id: "toolu_w1",
        content: "hello"
      }])
      expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("hello\n")

      // the SDK asked the Messages API twice, the second time with the call's result
      const asks = fake.requests.slice(first)
      expect(asks).toHaveLength(2)
      expect(asks[0]!.body.messages).toHaveLength(1)
      expect(JSON.stringify(asks[0]!.body.messages[0])).toContain("Write hello to out.txt")
      expect(toolResults(asks[1]!.body.messages)).toEqual([
        expect.objectContaining({ tool_use_id: "toolu_w1", content: "hello" })
      ])

      await events.waitFor("input_finished")
      const order = events.events.map((e) => e.type)
      const at = (type: string) => order.indexOf(type)
      expect(events.events.filter((e) => e.type === "text_delta").map((e) => e.data.text).join("")).toContain(
        "I'll write the file."
      )
      expect(at("input_started")).toBeLessThan(at("approval_requested"))
      expect(at("approval_requested")).toBeLessThan(at("approval_answered"))
      expect(at("approval_answered")).toBeLessThan(at("call_finished"))
      expect(at("call_finished")).toBeLessThan(at("input_finished"))
      const ids = events.events.map((e) => e.id)
      expect(ids).toEqual([...ids].sort((a, b) => a - b))

      // a client that reconnects after an event gets only what came after it
      const later = await request(server.url, "GET", `/sessions/${id}/events?follow=false&after=${asked.id}`, { token })
      const laterIds = [...later.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
      expect(laterIds.length).toBeGreaterThan(0)
      expect(Math.min(...laterIds)).toBe(asked.id + 1)

      const transcript = await request(server.url, "GET", `/sessions/${id}/transcript`, { token })
      const lines = transcript.text.trim().split("\n").map((line) => JSON.parse(line))
      expect(lines.map((l) => l.type)).toEqual(
        expect.arrayContaining([
          "session_start",
          "user",
          "model_turn",
          "assistant",
          "approval",
          "tool_call",
          "tool_results",
          "prompt_end"
        ])
      )
      expect(lines.find((l) => l.type === "approval")).toMatchObject({
        tool_use_id: "toolu_w1",
        answer: { behavior: "allow", scope: "once" }
      })
      expect(lines.find((l) => l.type === "tool_call")).toMatchObject({
        tool_use_id: "toolu_w1",
        name: "Bash",
        is_error: false,
        result: "hello"
      })
      expect(lines.filter((l) => l.type === "tool_call")).toHaveLength(1)

      const view = await request(server.url, "GET", `/sessions/${id}`, { token })
      expect(view.body).toMatchObject({
        id,
        status: "idle",
        turns: 2,
        inputs: 1,
        pendingApprovals: [],
        lastInput: { key: "first", status: "done" }
      })
    } finally {
      events.close()
    }
  })

  it("denies a permission question nobody answers in time", async () => {
    const cwd = workspace()
    const { id, token } = await create({
      cwd,
      approvalTimeoutSeconds: 1,
      script: scriptOf([
        { content: [toolUse("toolu_t1", "Bash", { command: "touch never.txt" })], stop_reason: "tool_use" },
        { content: [text("It was denied.")], stop_reason: "end_turn" }
      ])
    })
    const result = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "user", content: "touch a file" }
    })
    expect(result.body.status).toBe("done")
    expectEveryToolUseAnswered(result.body.messages)
    const denied = result.body.messages[2].content[0]
    expect(denied).toMatchObject({ type: "tool_result", tool_use_id: "toolu_t1", is_error: true })
    expect(denied.content).toContain("No one answered the permission question within 1 seconds")
    expect(fs.existsSync(path.join(cwd, "never.txt"))).toBe(false)
    const answerLate = await request(server.url, "POST", `/sessions/${id}/approvals/toolu_t1`, {
      token,
      body: { decision: "allow" }
    })
    expect(answerLate.status).toBe(409)
  })

  it("runs an assistant message of tool_use blocks in the scheduler, in tool_use order", async () => {
    const cwd = workspace()
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n")
    const { id, token } = await create({
      cwd,
      permissionMode: "acceptEdits",
      script: scriptOf([{ content: [text("unused")], stop_reason: "end_turn" }])
    })
    const result = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: {
        role: "assistant",
        content: [
          toolUse("toolu_r", "Read", { file_path: path.join(cwd, "a.txt") }),
          toolUse("toolu_x", "Write", { file_path: path.join(cwd, "b.txt"), content: "beta\n" })
        ]
      }
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({ kind: "tool_uses", status: "done", stop: "done" })
    expect(result.body.messages).toHaveLength(2)
    expectEveryToolUseAnswered(result.body.messages)
    expect(result.body.messages[1].content[0].content).toContain("alpha")
    expect(fs.readFileSync(path.join(cwd, "b.txt"), "utf8")).toBe("beta\n")
  })

  it("needs the server token to create or list sessions, and keeps one session's token from opening another", async () => {
    const cwd = workspace()
    const script = scriptOf([{ content: [text("hi")], stop_reason: "end_turn" }])
    const body = { cwd, replaySpeed: 0, script }
    expect((await request(server.url, "POST", "/sessions", { body })).status).toBe(401)
    expect((await request(server.url, "POST", "/sessions", { body, token: "wrong-token-wrong-token" })).status).toBe(
      401
    )
    expect((await request(server.url, "GET", "/sessions")).status).toBe(401)
    expect((await request(server.url, "GET", "/openapi.json")).status).toBe(401)
    const a = await create({ cwd, script })
    const b = await create({ cwd, script })
    const own = await request(server.url, "POST", `/sessions/${a.id}/messages`, {
      token: a.token,
      body: { role: "user", content: "hi" }
    })
    expect(own.body).toMatchObject({ status: "done", text: "hi" })
    const listed = await request(server.url, "GET", "/sessions", { token: SERVER_TOKEN })
    expect(listed.body.sessions.map((s: any) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]))
    expect((await request(server.url, "GET", "/sessions", { token: a.token })).status).toBe(401)
    expect((await request(server.url, "GET", `/sessions/${a.id}`, { token: a.token })).status).toBe(200)
    expect((await request(server.url, "GET", `/sessions/${a.id}`, { token: b.token })).status).toBe(401)
    expect((await request(server.url, "GET", `/sessions/${a.id}`)).status).toBe(401)
    expect(
      (await request(server.url, "POST", `/sessions/${a.id}/messages`, {
        token: b.token,
        body: { role: "user", content: "hi" }
      })).status
    ).toBe(401)
    expect((await request(server.url, "GET", `/sessions/${a.id}/events?follow=false`, { token: b.token })).status).toBe(
      401
    )
    expect((await request(server.url, "GET", `/sessions/${a.id}/transcript`, { token: b.token })).status).toBe(401)
  })

  it("answers bad requests with a clear error and changes nothing", async () => {
    const cwd = workspace()
    const relative = await request(server.url, "POST", "/sessions", {
      token: SERVER_TOKEN,
      body: { cwd: "relative/dir", script: scriptOf([{ content: [text("x")], stop_reason: "end_turn" }]) }
    })
    expect(relative.status).toBe(400)
    expect(relative.body.message).toContain("cwd must be an absolute path")
    const missing = await request(server.url, "POST", "/sessions", {
      token: SERVER_TOKEN,
      body: { cwd: path.join(cwd, "nope"), script: "{}" }
    })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toContain("no such directory")
    const badScript = await request(server.url, "POST", "/sessions", {
      token: SERVER_TOKEN,
      body: { cwd, script: "not json" }
    })
    expect(badScript.status).toBe(400)
    expect(badScript.body.message).toMatch(/^script: /)
    const noRole = await request(server.url, "POST", "/sessions", { token: SERVER_TOKEN, body: { cwd: 42 } })
    expect(noRole.status).toBe(400)

    const { id, token } = await create({
      cwd,
      script: scriptOf([{ content: [text("one")], stop_reason: "end_turn" }, {
        content: [text("two")],
        stop_reason: "end_turn"
      }])
    })
    const notToolUse = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "assistant", content: [{ type: "text", text: "hi" }] }
    })
    expect(notToolUse.status).toBe(400)
    expect(notToolUse.body.message).toContain("tool_use")
    const first = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "user", content: "hi", key: "same" }
    })
    expect(first.body.status).toBe("done")
    const again = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "user", content: "hi", key: "same" }
    })
    expect(again.body).toEqual(first.body)
    const clash = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "user", content: "something else", key: "same" }
    })
    expect(clash.status).toBe(409)
    const view = await request(server.url, "GET", `/sessions/${id}`, { token })
    expect(view.body).toMatchObject({ inputs: 1, turns: 1 })
  })

  it("interrupts a running input like Ctrl-C, then stops the session", async () => {
    const cwd = workspace()
    const { id, token } = await create({
      cwd,
      permissionMode: "bypassPermissions",
      script: scriptOf([
        { content: [toolUse("toolu_s", "Bash", { command: "sleep 60" })], stop_reason: "tool_use" },
        { content: [text("never")], stop_reason: "end_turn" }
      ])
    })
    const events = readEvents(server.url, id, token)
    try {
      const queued = await request(server.url, "POST", `/sessions/${id}/messages?wait=false`, {
        token,
        body: { role: "user", content: "sleep", key: "long" }
      })
      expect(queued.body).toMatchObject({ key: "long", status: "queued" })
      await events.waitFor("call_started")
      const interrupted = await request(server.url, "POST", `/sessions/${id}/interrupt`, { token })
      expect(interrupted.body).toEqual({ interrupted: true })
      const result = await request(server.url, "GET", `/sessions/${id}/messages/long?wait=true`, { token })
      expect(result.body).toMatchObject({ status: "done", stop: "interrupted" })
      expectEveryToolUseAnswered(result.body.messages)

      const stopped = await request(server.url, "POST", `/sessions/${id}/stop`, { token })
      expect(stopped.body.status).toBe("stopped")
      const refused = await request(server.url, "POST", `/sessions/${id}/messages`, {
        token,
        body: { role: "user", content: "more" }
      })
      expect(refused.status).toBe(409)
    } finally {
      events.close()
    }
  })

  it("serves its OpenAPI document", async () => {
    const doc = await request(server.url, "GET", "/openapi.json", { token: SERVER_TOKEN })
    expect(doc.status).toBe(200)
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/sessions",
        "/sessions/{id}",
        "/sessions/{id}/messages",
        "/sessions/{id}/events",
        "/sessions/{id}/approvals/{toolUseId}"
      ])
    )
  })

  // last: it kills the server and starts it again on the same storage
  it(
    "resumes after SIGKILL from SQLite: finished model turns and calls are not run again, the call that was running is answered with an error, and the session goes on",
    async () => {
      const cwd = workspace()
      const marks = (name: string) => path.join(cwd, `marks-${name}`)
      const { id, token } = await create({ cwd, permissionMode: "bypassPermissions" })
      const first = fake.requests.length
      enqueueTurns(
        anthropicTurn("msg_a", [toolUse("toolu_a", "Bash", { command: `echo a >> ${marks("a")}` })], "tool_use"),
        anthropicTurn(
          "msg_b",
          [toolUse("toolu_b", "Bash", { command: `echo b >> ${marks("b")}; sleep 20` })],
          "tool_use"
        ),
        anthropicTurn("msg_c", [toolUse("toolu_c", "Bash", { command: `echo c >> ${marks("c")}` })], "tool_use"),
        anthropicTurn("msg_d", [text("Finished.")], "end_turn")
      )
      await request(server.url, "POST", `/sessions/${id}/messages?wait=false`, {
        token,
        body: { role: "user", content: "go", key: "k" }
      })
      await eventually(() => (fs.existsSync(marks("b")) ? true : undefined))
      await server.stop("SIGKILL")

      server = await start()
      const result = await request(server.url, "GET", `/sessions/${id}/messages/k?wait=true`, { token })
      expect(result.body).toMatchObject({ status: "done", stop: "end_turn", text: "Finished." })
      expectEveryToolUseAnswered(result.body.messages)
      const resultOf = (toolUseId: string) =>
        toolResults(result.body.messages).find((b: any) => b.tool_use_id === toolUseId)
      expect(resultOf("toolu_a").is_error).toBeUndefined()
      expect(resultOf("toolu_b")).toMatchObject({ is_error: true })
      expect(resultOf("toolu_b").content).toContain("stopped while it ran")
      expect(resultOf("toolu_c").is_error).toBeUndefined()
      expect(fs.readFileSync(marks("a"), "utf8")).toBe("a\n")
      expect(fs.readFileSync(marks("b"), "utf8")).toBe("b\n")
      expect(fs.readFileSync(marks("c"), "utf8")).toBe("c\n")
      // the two turns recorded before the crash were replayed from storage, not asked again
      const asks = fake.requests.slice(first)
      expect(asks).toHaveLength(4)
      expect(toolResults(asks[2]!.body.messages).map((b: any) => [b.tool_use_id, b.is_error === true])).toEqual([
        ["toolu_a", false],
        ["toolu_b", true]
      ])
      const transcript = await request(server.url, "GET", `/sessions/${id}/transcript`, { token })
      const calls = transcript.text.trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.type === "tool_call")
      expect(calls.map((c) => c.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c"])

      // the sessions of before the crash are still there (when the first test ran in this file)
      if (claudeSession !== undefined) {
        const before = await request(server.url, "GET", `/sessions/${claudeSession.id}`, { token: claudeSession.token })
        expect(before.body).toMatchObject({ status: "idle", inputs: 1, lastInput: { key: "first", status: "done" } })
      }

      // SIGTERM stops the server even while a client follows a session's events
      const following = readEvents(server.url, id, token)
      await following.waitFor("input_finished")
      await server.stop("SIGTERM")
      await following.ended
      // stopped by SIGTERM: 128 + 15, as every toolgate command
      expect(server.child.exitCode).toBe(143)
    },
    120_000
  )
})

describe("toolgate serve: SIGTERM while an input runs past the drain time", () => {
  it("stops it, says so, and exits 143 (not 0)", async () => {
    const stateDir = tempDir("toolgate-serve-drain-")
    const cwd = fs.realpathSync(tempDir("toolgate-serve-drain-ws-"))
    const server = await startServer({
      args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
      env: {
        TOOLGATE_SERVE_TOKEN: SERVER_TOKEN,
        ANTHROPIC_API_KEY: "",
        TOOLGATE_SERVE_POLL_MS: "200",
        TOOLGATE_SERVE_DRAIN_MS: "500"
      }
    })
    try {
      const { id, token } = await createSession(server.url, SERVER_TOKEN, { cwd, permissionMode: "bypassPermissions" })
      const started = path.join(cwd, "started")
      const content = [toolUse("toolu_long", "Bash", { command: `touch ${started}; sleep 30` })]
      await request(server.url, "POST", `/sessions/${id}/messages?wait=false`, {
        token,
        body: { role: "assistant", content, key: "k" }
      })
      await eventually(() => (fs.existsSync(started) ? true : undefined))
      const signalled = Date.now()
      await server.stop("SIGTERM")
      expect(server.stderr()).toContain("drain time over: 1 input(s)")
      expect(server.child.exitCode).toBe(143)
      // the drain time is all it gets: no other runner waits to take the input over
      expect(Date.now() - signalled).toBeLessThan(6_000)
    } finally {
      await server.stop("SIGKILL")
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)
})

/** Pids of processes whose command line is exactly `sleep <seconds>` (unique numbers mark a test's processes). */
const sleepers = (seconds: ReadonlyArray<number>): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean)
        return args.length === 2 && args[0]!.endsWith("sleep") && seconds.includes(Number(args[1]))
      } catch {
        return false
      }
    })
    .map(Number)

describe("toolgate serve killed (SIGKILL) mid-call", () => {
  it(
    "leaves no process of its sessions running: a call's command and what it left in the background, and a background shell",
    async () => {
      const stateDir = tempDir("toolgate-serve-kill-")
      const cwd = fs.realpathSync(tempDir("toolgate-serve-kill-ws-"))
      const server = await startServer({
        args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
        env: { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, ANTHROPIC_API_KEY: "", TOOLGATE_SERVE_POLL_MS: "200" }
      })
      const marks = [4171, 4172, 4173]
      try {
        const { id, token } = await createSession(server.url, SERVER_TOKEN, {
          cwd,
          permissionMode: "bypassPermissions"
        })
        const send = (key: string, blocks: Array<Record<string, unknown>>, wait: boolean) =>
          request(server.url, "POST", `/sessions/${id}/messages?wait=${wait}`, {
            token,
            body: { role: "assistant", content: blocks, key }
          })
        const background = await send("bg", [
          toolUse("toolu_bg", "Bash", { command: "sleep 4173", run_in_background: true })
        ], true)
        expect(background.body.status, background.text).toBe("done")
        await send("fg", [toolUse("toolu_fg", "Bash", { command: "sleep 4171 & sleep 4172" })], false)
        await eventually(() => (sleepers(marks).length === 3 ? true : undefined), 30_000, 50)
        await server.stop("SIGKILL")
        // the sandbox dies with the server: nothing of the session goes on
        await eventually(() => (sleepers(marks).length === 0 ? true : undefined), 10_000, 50)
      } finally {
        await server.stop("SIGKILL")
        for (const pid of sleepers(marks)) process.kill(pid, "SIGKILL")
        fs.rmSync(stateDir, { recursive: true, force: true })
      }
    },
    60_000
  )
})
