/**
 * `toolgate serve`'s storage across versions, cut requests and crashes: a state folder whose
 * sessions were stored whole on their row (as earlier versions did) opens, and their
 * conversations go on as message rows; an input whose HTTP request is cut still runs to its end;
 * inputs a killed server left queued or running end once it is started again, with nobody asking,
 * before those sent after.
 */
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { createSession, request, startServer, toolUse } from "../support/serve.js"

const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => {
  prepare(
    sql: string
  ): { all(...params: ReadonlyArray<unknown>): Array<unknown>; run(...params: ReadonlyArray<unknown>): unknown }
  exec(sql: string): void
  close(): void
}

const SERVER_TOKEN = "serve-storage-token-0123456789"
const env = { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, ANTHROPIC_API_KEY: "", TOOLGATE_SERVE_POLL_MS: "200" }

/** The input as stored, looked at (never delivered again) until it ends. */
const untilEnded = async (url: string, id: string, key: string, token: string) => {
  for (let i = 0; i < 600; i++) {
    const got = await request(url, "GET", `/sessions/${id}/messages/${key}?wait=false`, { token })
    if (got.body?.status === "done" || got.body?.status === "failed") return got
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`input ${key} of session ${id} did not end`)
}

type Message = { readonly role: string; readonly content: ReadonlyArray<Record<string, unknown>> }

const messageRows = (file: string, id: string): Array<Message> => {
  const db = new Database(file)
  try {
    return (db.prepare("SELECT message FROM toolgate_messages WHERE session_id = ? ORDER BY idx").all(id) as Array<
      { message: string }
    >).map((r) => JSON.parse(r.message) as Message)
  } finally {
    db.close()
  }
}

/** Puts the session's conversation back on its row, as earlier versions stored it, without their newer tables. */
const storeAsBefore = (file: string, id: string) => {
  const messages = messageRows(file, id)
  const db = new Database(file)
  try {
    const [row] = db.prepare("SELECT state FROM toolgate_sessions WHERE id = ?").all(id) as Array<{ state: string }>
    const { committedBy: _c, messageCount: _n, ...rest } = JSON.parse(row!.state) as Record<string, unknown>
    db.prepare("UPDATE toolgate_sessions SET state = ? WHERE id = ?").run(JSON.stringify({ ...rest, messages }), id)
    db.exec("DROP TABLE toolgate_messages; DROP TABLE toolgate_step_outcomes")
  } finally {
    db.close()
  }
}

describe("toolgate serve storage", () => {
  it(
    "opens sessions stored whole on their row by earlier versions, and their conversations go on as message rows",
    async () => {
      const stateDir = tempDir("toolgate-serve-storage-")
      const cwd = fs.realpathSync(tempDir("toolgate-serve-storage-ws-"))
      const file = path.join(cwd, "notes.txt")
      fs.writeFileSync(file, "alpha\n")
      const db = path.join(stateDir, "toolgate.db")
      const serve = () => startServer({ args: ["--state-dir", stateDir, "--allow", "bypassPermissions"], env })
      const read = (id: string) => ({ role: "assistant", content: [toolUse(id, "Read", { file_path: file })] })
      let server = await serve()
      try {
        const { id, token } = await createSession(server.url, SERVER_TOKEN, {
          cwd,
          permissionMode: "bypassPermissions"
        })
        const first = await request(server.url, "POST", `/sessions/${id}/messages`, { token, body: read("toolu_1") })
        expect(first.body.status, first.text).toBe("done")
        await server.stop("SIGTERM")
        const before = messageRows(db, id)
        expect(before.map((m) => m.role)).toEqual(["assistant", "user"])
        storeAsBefore(db, id)

        server = await serve()
        const view = await request(server.url, "GET", `/sessions/${id}`, { token })
        expect(view.status, view.text).toBe(200)
        const second = await request(server.url, "POST", `/sessions/${id}/messages`, { token, body: read("toolu_2") })
        expect(second.body.status, second.text).toBe("done")
        expect(JSON.stringify(second.body.messages)).toContain("alpha")
        const after = messageRows(db, id)
        expect(after.slice(0, 2)).toEqual(before)
        expect(after.map((m) => m.content[0]?.tool_use_id ?? m.content[0]?.id)).toEqual([
          "toolu_1",
          "toolu_1",
          "toolu_2",
          "toolu_2"
        ])
      } finally {
        await server.stop("SIGKILL")
      }
    },
    90_000
  )

  it("runs an input to its end when its HTTP request is cut", async () => {
    const stateDir = tempDir("toolgate-serve-cut-")
    const cwd = fs.realpathSync(tempDir("toolgate-serve-cut-ws-"))
    const server = await startServer({
      args: ["--state-dir", stateDir, "--allow", "bypassPermissions", "--unsandboxed"],
      env
    })
    try {
      const { id, token } = await createSession(server.url, SERVER_TOKEN, { cwd, permissionMode: "bypassPermissions" })
      const started = path.join(cwd, "started")
      const ended = path.join(cwd, "ended")
      const command = `touch ${started}; sleep 1; touch ${ended}`
      const cut = new AbortController()
      const sent = fetch(`${server.url}/sessions/${id}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ role: "assistant", content: [toolUse("toolu_cut", "Bash", { command })], key: "cut" }),
        signal: cut.signal
      }).catch(() => undefined)
      for (let i = 0; i < 600 && !fs.existsSync(started); i++) await new Promise((r) => setTimeout(r, 50))
      cut.abort()
      await sent
      // looked at without waiting: asking with wait=true would deliver the input again
      const result = await untilEnded(server.url, id, "cut", token)
      expect(result.body.status, result.text).toBe("done")
      expect(JSON.stringify(result.body.messages)).not.toContain("\"is_error\":true")
      expect(fs.existsSync(ended)).toBe(true)
    } finally {
      await server.stop("SIGKILL")
    }
  }, 90_000)

  it(
    "ends the inputs a killed server left running and queued once it starts again, with nobody asking for them, before the inputs sent after",
    async () => {
      const stateDir = tempDir("toolgate-serve-recover-")
      const cwd = fs.realpathSync(tempDir("toolgate-serve-recover-ws-"))
      const serve = () =>
        startServer({ args: ["--state-dir", stateDir, "--allow", "bypassPermissions", "--unsandboxed"], env })
      let server = await serve()
      try {
        const { id, token } = await createSession(server.url, SERVER_TOKEN, {
          cwd,
          permissionMode: "bypassPermissions"
        })
        const mark = (name: string) => path.join(cwd, name)
        const send = (key: string, command: string) =>
          request(server.url, "POST", `/sessions/${id}/messages?wait=false`, {
            token,
            body: { role: "assistant", content: [toolUse(`toolu_${key}`, "Bash", { command })], key }
          })
        expect((await send("first", `echo first >> ${mark("first")}; sleep 60`)).status).toBe(200)
        for (let i = 0; i < 600 && !fs.existsSync(mark("first")); i++) await new Promise((r) => setTimeout(r, 50))
        expect((await send("second", `echo second >> ${mark("order")}`)).status).toBe(200)
        await server.stop("SIGKILL")

        server = await serve()
        // sent at once: it still runs after the inputs sent before it
        const third = await request(server.url, "POST", `/sessions/${id}/messages`, {
          token,
          body: {
            role: "assistant",
            content: [toolUse("toolu_third", "Bash", { command: `echo third >> ${mark("order")}` })],
            key: "third"
          }
        })
        expect(third.body.status, third.text).toBe("done")
        const second = await untilEnded(server.url, id, "second", token)
        expect(second.body.status, second.text).toBe("done")
        expect(JSON.stringify(second.body.messages)).not.toContain("\"is_error\":true")
        expect(fs.readFileSync(mark("order"), "utf8")).toBe("second\nthird\n")
        // the call that was running when the server died is answered, and not run again
        const first = await untilEnded(server.url, id, "first", token)
        expect(JSON.stringify(first.body.messages)).toContain("stopped while it ran")
        expect(fs.readFileSync(mark("first"), "utf8")).toBe("first\n")
      } finally {
        await server.stop("SIGKILL")
      }
    },
    90_000
  )
})
