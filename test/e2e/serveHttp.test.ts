/**
 * `toolgate serve` at its HTTP edge and at first use: Host and Origin checks (DNS rebinding, web
 * pages), body limits, one-line errors (bad JSON says where, a missing field names it, an unknown
 * session is a 404), tool-only sessions without a model, paged lists, health and readiness, a busy
 * port named, and the README's walkthrough pasted whole into bash.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { createSession, eventually, rawRequest, request, type Served, startServer, toolUse } from "../support/serve.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The start-up error of a server that must refuse to start (one that starts anyway is stopped, and the test fails). */
const refusedStart = (options: Parameters<typeof startServer>[0]): Promise<string> =>
  startServer(options).then(
    async (served) => {
      await served.stop("SIGTERM")
      return "started"
    },
    (e: Error) => e.message
  )

/** No API key: sessions without a script have no model. */
const withoutModel = { ANTHROPIC_API_KEY: "", TOOLGATE_SERVE_POLL_MS: "200" }

describe("toolgate serve on loopback without a token (--no-auth)", () => {
  let server: Served
  const stateDir = tempDir("toolgate-http-open-")
  const ws = fs.realpathSync(tempDir("toolgate-http-ws-"))

  beforeAll(async () => {
    server = await startServer({
      args: ["--state-dir", stateDir, "--no-auth", "--max-body", "65536"],
      env: withoutModel
    })
  }, 90_000)

  afterAll(async () => {
    await server?.stop("SIGTERM")
  })

  const port = () => new URL(server.url).port

  it("refuses a request whose Host is not this server's (DNS rebinding), and answers loopback names", async () => {
    const body = JSON.stringify({ cwd: ws })
    const headers = (hostHeader: string) => ({
      host: hostHeader,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body))
    })
    for (
      const foreign of [
        "attacker.example",
        `attacker.example:${port()}`,
        "localhost.attacker.example",
        "127.0.0.1.nip.io",
        `evil-localhost:${port()}`,
        "[::2]",
        "localhost@attacker.example",
        ""
      ]
    ) {
      const reply = await rawRequest(server.url, "POST", "/sessions", headers(foreign), body)
      expect(reply.status, `${foreign}: ${reply.text}`).toBe(403)
    }
    const noHost = await rawRequest(server.url, "GET", "/sessions", {})
    // Node itself answers a request without Host with 400
    expect([400, 403]).toContain(noHost.status)
    for (
      const own of [
        `127.0.0.1:${port()}`,
        `localhost:${port()}`,
        "LOCALHOST",
        `localhost.:${port()}`,
        `[::1]:${port()}`,
        "127.0.0.2"
      ]
    ) {
      const reply = await rawRequest(server.url, "GET", "/sessions", { host: own })
      expect(reply.status, `${own}: ${reply.text}`).toBe(200)
    }
    // the listing after the refusals: no session was created by them
    expect((await request(server.url, "GET", "/sessions")).body.sessions).toEqual([])
  })

  it("refuses requests from web pages (an Origin, even on a simple POST) and answers no CORS", async () => {
    const simple = await request(server.url, "POST", "/sessions", {
      body: JSON.stringify({ cwd: ws }),
      headers: { "content-type": "text/plain", origin: "http://attacker.example" }
    })
    expect(simple.status).toBe(403)
    const preflight = await request(server.url, "OPTIONS", "/sessions", {
      headers: { origin: "http://attacker.example", "access-control-request-method": "POST" }
    })
    expect(preflight.status).toBe(403)
    const crossSite = await request(server.url, "GET", "/sessions", { headers: { "sec-fetch-site": "cross-site" } })
    expect(crossSite.status).toBe(403)
    expect((await request(server.url, "GET", "/sessions", { headers: { origin: "null" } })).status).toBe(403)
  })

  it("limits request bodies (413 before reading; 411 without a length)", async () => {
    const big = JSON.stringify({ cwd: ws, script: "x".repeat(70_000) })
    const tooLarge = await request(server.url, "POST", "/sessions", { body: big })
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.body.message).toContain("at most 65536")
    const chunked = await rawRequest(server.url, "POST", "/sessions", {
      host: "localhost",
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    }, big)
    expect(chunked.status).toBe(411)
  })

  it("answers a deeply nested body with 400, a long URL with 414 and a huge header with 431, each with a one-line body", async () => {
    const deep = await rawRequest(server.url, "POST", "/sessions", {
      host: "localhost",
      "content-type": "application/json"
    }, `${"[".repeat(30_000)}${"]".repeat(30_000)}`)
    expect(deep.status, deep.text).toBe(400)
    expect(JSON.parse(deep.text).message).toMatch(/nests 30000 levels deep/)
    const longUrl = await rawRequest(server.url, "GET", `/sessions?${"a".repeat(100_000)}`, { host: "localhost" })
    expect(longUrl.status).toBe(414)
    expect(JSON.parse(longUrl.text).message).toMatch(/URL/)
    const hugeHeader = await rawRequest(server.url, "GET", "/health", {
      host: "localhost",
      "x-big": "a".repeat(1_000_000)
    })
    expect(hugeHeader.status).toBe(431)
    expect(JSON.parse(hugeHeader.text).message).toMatch(/header/)
    // the server goes on answering
    expect((await request(server.url, "GET", "/health")).status).toBe(200)
  })

  it("answers bad requests in one line: bad JSON says where, a missing field names it, an unknown session is not found", async () => {
    const badJson = await request(server.url, "POST", "/sessions", { body: "{\"cwd\": \"/tmp\",}" })
    expect(badJson.status).toBe(400)
    expect(badJson.body.message).toMatch(/^the body is not valid JSON: .*position \d+/)
    const missing = await request(server.url, "POST", "/sessions", { body: {} })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toBe("invalid request: cwd: is missing")
    const wrongType = await request(server.url, "POST", "/sessions", { body: { cwd: 42 } })
    expect(wrongType.body.message).toBe("invalid request: cwd: Expected string, actual 42")
    for (
      const route of [
        "/sessions/no-such-session",
        "/sessions/no-such-session/events?follow=false",
        "/sessions/no-such-session/transcript"
      ]
    ) {
      const reply = await request(server.url, "GET", route, { token: "some-token-of-another-session" })
      expect(reply.status, route).toBe(404)
      expect(reply.body.message).toBe("no session no-such-session")
    }
    const route = await request(server.url, "GET", "/nowhere")
    expect(route.status).toBe(404)
    expect(route.body.message).toBe("no such endpoint: GET /nowhere")
  })

  it("runs tool_use inputs of a session that has no model, and says so for a prompt", async () => {
    fs.writeFileSync(path.join(ws, "a.txt"), "alpha\n")
    const created = await request(server.url, "POST", "/sessions", { body: { cwd: ws } })
    expect(created.status, created.text).toBe(201)
    expect(created.body.model).toBe("claude (ANTHROPIC_MODEL or the default)")
    const { id, token } = created.body
    const ran = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "assistant", content: [toolUse("toolu_r", "Read", { file_path: path.join(ws, "a.txt") })] }
    })
    expect(ran.status, ran.text).toBe(200)
    expect(ran.body.messages[1].content[0].content).toContain("alpha")
    const prompt = await request(server.url, "POST", `/sessions/${id}/messages`, {
      token,
      body: { role: "user", content: "hi" }
    })
    expect(prompt.status).toBe(400)
    expect(prompt.body.message).toContain("this session has no model")
    const view = await request(server.url, "GET", `/sessions/${id}`, { token })
    expect(view.body.inputs).toBe(1)
  })

  it("lists sessions a page at a time, with their input counts", async () => {
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) {
      ids.push((await request(server.url, "POST", "/sessions", { body: { cwd: ws } })).body.id)
    }
    const seen: Array<{ id: string; inputs: number }> = []
    let after: string | undefined
    for (let pages = 0; pages < 20; pages++) {
      const page = await request(
        server.url,
        "GET",
        `/sessions?limit=2${after === undefined ? "" : `&after=${encodeURIComponent(after)}`}`
      )
      expect(page.status, page.text).toBe(200)
      expect(page.body.sessions.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.sessions)
      after = page.body.next
      if (after === undefined) break
    }
    expect(seen.map((s) => s.id)).toEqual(expect.arrayContaining(ids))
    expect(new Set(seen.map((s) => s.id)).size).toBe(seen.length)
    expect(seen.some((s) => s.inputs === 1)).toBe(true)
    expect((await request(server.url, "GET", "/sessions?after=garbage")).status).toBe(400)
  })

  it("tells liveness from readiness", async () => {
    expect((await request(server.url, "GET", "/health")).body).toEqual({ ok: true, runner: "embedded" })
    const ready = await request(server.url, "GET", "/ready")
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ ready: true, storage: true, draining: false })
    expect(ready.body.shards).toBeGreaterThan(0)
  })

  it("names the busy port when it cannot listen", async () => {
    const failed = await refusedStart({
      port: Number(port()),
      args: ["--state-dir", tempDir("toolgate-http-busy-"), "--no-auth"],
      env: withoutModel
    })
    expect(failed).toMatch(new RegExp(`toolgate: port ${port()} on 127\\.0\\.0\\.1 is already in use`))
  })
})

describe("toolgate serve start-up refusals", () => {
  it("refuses --no-auth beyond loopback", async () => {
    expect(
      await refusedStart({ args: ["--host", "0.0.0.0", "--no-auth", "--state-dir", tempDir("toolgate-serve-open-")] })
    ).toMatch(
      /--no-auth is for loopback addresses only/
    )
  })

  it("refuses --runner without the runners' shared secret", async () => {
    expect(
      await refusedStart({
        args: [
          "--runner",
          "--storage",
          "postgres://nobody@127.0.0.1:1/none",
          "--state-dir",
          tempDir("toolgate-serve-runner-")
        ]
      })
    ).toMatch(/--runner needs the secret the runners share/)
  })

  it("refuses to start where no sandbox can, unless --unsandboxed", async () => {
    const env = { TOOLGATE_BWRAP_PATH: "/bin/false" }
    expect(await refusedStart({ args: ["--state-dir", tempDir("toolgate-serve-nosb-")], env })).toMatch(
      /no sandbox can start here.*--unsandboxed/
    )
    const served = await startServer({ args: ["--state-dir", tempDir("toolgate-serve-nosb-"), "--unsandboxed"], env })
    expect(served.stderr()).toContain("--unsandboxed")
    await served.stop("SIGTERM")
  }, 60_000)
})

describe("toolgate serve --policy", () => {
  it("takes what create requests may ask for from a policy file, and refuses a file it cannot read whole", async () => {
    const dir = fs.realpathSync(tempDir("toolgate-serve-policy-"))
    const policy = path.join(dir, "policy.json")
    fs.writeFileSync(policy, JSON.stringify({ permissionModes: ["default", "acceptEdits"], trustProject: true }))
    const ws = path.join(dir, "ws")
    fs.mkdirSync(ws)
    const served = await startServer({
      args: ["--state-dir", path.join(dir, "state"), "--no-auth", "--policy", policy],
      env: withoutModel
    })
    try {
      expect(
        (await request(served.url, "POST", "/sessions", {
          body: { cwd: ws, permissionMode: "acceptEdits", trustProject: true }
        })).status
      ).toBe(201)
      expect(
        (await request(served.url, "POST", "/sessions", { body: { cwd: ws, permissionMode: "bypassPermissions" } }))
          .status
      ).toBe(403)
      // the policy file is the server's own: no session may hold it
      expect((await request(served.url, "POST", "/sessions", { body: { cwd: dir } })).status).toBe(403)
    } finally {
      await served.stop("SIGTERM")
    }
    fs.writeFileSync(policy, JSON.stringify({ permissionModes: ["default"], hook: true }))
    expect(
      await refusedStart({
        args: ["--state-dir", path.join(dir, "state2"), "--no-auth", "--policy", policy],
        env: withoutModel
      })
    ).toMatch(
      /--policy .*policy\.json: hook: is unexpected/
    )
  }, 60_000)
})

describe("toolgate serve settings from the environment", () => {
  it("reads the storage, state folder, token and limits from TOOLGATE_SERVE_*", async () => {
    const dir = fs.realpathSync(tempDir("toolgate-serve-env-"))
    const served = await startServer({
      args: [],
      env: {
        ...withoutModel,
        TOOLGATE_SERVE_STATE_DIR: path.join(dir, "state"),
        TOOLGATE_SERVE_STORAGE: `sqlite:${path.join(dir, "db", "sessions.db")}`,
        TOOLGATE_SERVE_TOKEN: "env-server-token-0123456789",
        TOOLGATE_SERVE_MAX_BODY: "1000"
      }
    })
    try {
      expect(served.token).toBeUndefined()
      expect(fs.existsSync(path.join(dir, "db", "sessions.db"))).toBe(true)
      expect((await request(served.url, "GET", "/sessions", { token: "env-server-token-0123456789" })).status).toBe(200)
      expect(
        (await request(served.url, "POST", "/sessions", {
          token: "env-server-token-0123456789",
          body: { cwd: dir, script: "x".repeat(2000) }
        })).status
      ).toBe(413)
    } finally {
      await served.stop("SIGTERM")
    }
  }, 60_000)
})

describe("toolgate serve --cors-origin", () => {
  it("answers CORS for the origins it was given, and only those", async () => {
    const served = await startServer({
      args: ["--state-dir", tempDir("toolgate-serve-cors-"), "--no-auth", "--cors-origin", "https://app.example"],
      env: withoutModel
    })
    try {
      const preflight = await request(served.url, "OPTIONS", "/sessions", {
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization,content-type"
        }
      })
      expect(preflight.status).toBeLessThan(300)
      const allowed = await request(served.url, "GET", "/sessions", { headers: { origin: "https://app.example" } })
      expect(allowed.status).toBe(200)
      const response = await fetch(`${served.url}/sessions`, { headers: { origin: "https://app.example" } })
      expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example")
      expect((await request(served.url, "GET", "/sessions", { headers: { origin: "https://other.example" } })).status)
        .toBe(403)
    } finally {
      await served.stop("SIGTERM")
    }
  }, 60_000)
})

describe("toolgate serve --session-ttl", () => {
  it("deletes a session idle past its time, with its folder", async () => {
    const state = tempDir("toolgate-serve-ttl-")
    const served = await startServer({
      args: ["--state-dir", state, "--no-auth", "--session-ttl", "1"],
      env: withoutModel
    })
    try {
      const ws = fs.realpathSync(tempDir("toolgate-serve-ttl-ws-"))
      const created = await request(served.url, "POST", "/sessions", { body: { cwd: ws } })
      const { id, token } = created.body
      await request(served.url, "POST", `/sessions/${id}/messages`, {
        token,
        body: { role: "assistant", content: [toolUse("toolu_1", "Bash", { command: "echo hi" })] }
      })
      expect(fs.existsSync(path.join(state, "sessions", id))).toBe(true)
      await eventually(
        async () => ((await request(served.url, "GET", `/sessions/${id}`, { token })).status === 404
          ? true
          : undefined),
        30_000,
        200
      )
      expect(fs.existsSync(path.join(state, "sessions", id))).toBe(false)
    } finally {
      await served.stop("SIGTERM")
    }
  }, 60_000)
})

describe("the README's serve walkthrough", () => {
  it("works pasted whole into bash", async () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Serve"))
    const block = /```sh\n(S=http[\s\S]*?)```/.exec(section)?.[1]
    expect(block, "the walkthrough block").toBeDefined()
    const work = fs.realpathSync(tempDir("toolgate-walkthrough-"))
    const token = "walkthrough-token-0123456789abcdef"
    const server = await startServer({
      args: ["--state-dir", path.join(work, "state"), "--approval-timeout", "120"],
      env: { TOOLGATE_SERVE_TOKEN: token, ANTHROPIC_API_KEY: "" }
    })
    try {
      // the block's server address gives way to this server's; the rest runs as written
      const script = block!.replace(/^S=\S+/m, `S=${server.url}`)
      const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          "bash",
          ["-e", "-c", script],
          { cwd: work, timeout: 120_000, env: { ...process.env, HOME: work, TOOLGATE_SERVE_TOKEN: token } },
          (error, stdout, stderr) =>
            resolve({
              code: error === null ? 0 : (error as { code?: number }).code ?? null,
              stdout: String(stdout),
              stderr: String(stderr)
            })
        )
      })
      expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(0)
      expect(out.stdout).toContain("\"behavior\":\"allow\"")
      expect(out.stdout).toMatch(/"status":"done"/)
      expect(out.stdout).toContain("Done: out.txt says hello.")
      expect(out.stdout).toContain("approval_requested")
    } finally {
      await server.stop("SIGTERM")
    }
  }, 180_000)
})

describe("toolgate serve with a cap on running inputs (TOOLGATE_SERVE_MAX_RUNNING_INPUTS)", () => {
  it(
    "answers 429 to a new input beyond the cap, takes a retry of a stored one, and takes new ones once a slot frees",
    async () => {
      const stateDir = tempDir("toolgate-http-cap-")
      const ws = fs.realpathSync(tempDir("toolgate-http-cap-ws-"))
      const server = await startServer({
        args: ["--state-dir", stateDir, "--no-auth", "--allow", "bypassPermissions"],
        env: { ...withoutModel, TOOLGATE_SERVE_MAX_RUNNING_INPUTS: "1" }
      })
      try {
        const session = () => createSession(server.url, undefined, { cwd: ws, permissionMode: "bypassPermissions" })
        const [a, b] = [await session(), await session()]
        const started = path.join(ws, "started")
        const long = {
          role: "assistant",
          content: [toolUse("toolu_long", "Bash", { command: `touch ${started}; sleep 30` })],
          key: "long"
        }
        expect(
          (await request(server.url, "POST", `/sessions/${a.id}/messages?wait=false`, { token: a.token, body: long }))
            .status
        ).toBe(200)
        await eventually(() => (fs.existsSync(started) ? true : undefined))

        const quick = {
          role: "assistant",
          content: [toolUse("toolu_quick", "Bash", { command: "true" })],
          key: "quick"
        }
        const refused = await request(server.url, "POST", `/sessions/${b.id}/messages?wait=false`, {
          token: b.token,
          body: quick
        })
        expect(refused.status, refused.text).toBe(429)
        expect(refused.body).toMatchObject({ _tag: "TooBusy" })
        expect(refused.body.message).toContain("TOOLGATE_SERVE_MAX_RUNNING_INPUTS=1")
        // the refused input was not stored: nothing of it runs later
        expect(
          (await request(server.url, "GET", `/sessions/${b.id}/messages/quick?wait=false`, { token: b.token })).status
        ).toBe(404)
        // the running input, sent again under its key, is not a new one
        expect(
          (await request(server.url, "POST", `/sessions/${a.id}/messages?wait=false`, { token: a.token, body: long }))
            .status
        ).toBe(200)

        expect((await request(server.url, "POST", `/sessions/${a.id}/interrupt`, { token: a.token })).status).toBe(200)
        await eventually(
          async () => ((await request(server.url, "GET", `/sessions/${a.id}/messages/long?wait=false`, {
              token: a.token
            })).body.status === "done"
            ? true
            : undefined)
        )
        const accepted = await eventually(async () => {
          const reply = await request(server.url, "POST", `/sessions/${b.id}/messages?wait=true`, {
            token: b.token,
            body: quick
          })
          return reply.status === 429 ? undefined : reply
        })
        expect(accepted.status, accepted.text).toBe(200)
        expect(accepted.body.status).toBe("done")
      } finally {
        await server.stop("SIGKILL")
        fs.rmSync(stateDir, { recursive: true, force: true })
      }
    },
    90_000
  )
})
