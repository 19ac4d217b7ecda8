/**
 * `toolgate serve` on storage that fails. A state folder (SQLite and session folders) that fills
 * up while an input runs: readiness says storage fails (503 with the reason) while it does, and
 * once space returns the input ends (its call answered, run once), the same session takes new
 * inputs and readiness is 200 again, without a restart. A read-only state folder: one line naming
 * it, and the exit code of a usage error. The folders are small tmpfs mounts (mounting needs
 * root: without it the test says so and does not run).
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { fill, mountTmpfs } from "../support/smallDisk.js"
import { bin, createSession, eventually, request, type Served, startServer, toolUse } from "../support/serve.js"

const TOKEN = "serve-full-disk-token-0123456789"

const stateDir = tempDir("toolgate-serve-fulldisk-")
const readOnlyDir = tempDir("toolgate-serve-readonly-")
const mounted = process.getuid?.() === 0 && mountTmpfs(stateDir, "4m") && mountTmpfs(readOnlyDir, "1m")
if (!mounted) process.stderr.write("serveStorageFaults: not run (mounting a tmpfs needs root)\n")

let server: Served | undefined
afterAll(async () => {
  await server?.stop("SIGKILL")
  for (const dir of [stateDir, readOnlyDir]) spawnSync("umount", ["-l", dir], { stdio: "ignore" })
})

describe.skipIf(!mounted)("toolgate serve on a full disk", () => {
  it("reports storage failing while it is full, then ends the input, takes new inputs and is ready again", async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-serve-fulldisk-ws-"))
    server = await startServer({
      args: ["--state-dir", stateDir, "--allow", "bypassPermissions"],
      env: {
        TOOLGATE_SERVE_TOKEN: TOKEN,
        ANTHROPIC_API_KEY: "",
        TOOLGATE_SERVE_POLL_MS: "200",
        TOOLGATE_SERVE_LOCK_REFRESH_MS: "1000"
      }
    })
    const { url } = server
    const { id, token } = await createSession(url, TOKEN, { cwd, permissionMode: "bypassPermissions" })
    const send = (key: string, command: string, wait: boolean) =>
      request(url, "POST", `/sessions/${id}/messages?wait=${wait}`, {
        token,
        body: { role: "assistant", key, content: [toolUse(`toolu_${key}`, "Bash", { command })] }
      })
    const input = (key: string) => request(url, "GET", `/sessions/${id}/messages/${key}?wait=false`, { token })

    expect((await send("k1", "echo one", true)).body).toMatchObject({ status: "done" })

    // a call with a side effect; the disk fills while it runs
    const log = path.join(cwd, "log")
    const started = path.join(cwd, "started")
    await send("k2", `echo start >> ${log}; touch ${started}; sleep 1.5; echo end >> ${log}; echo two`, false)
    await eventually(() => (fs.existsSync(started) ? true : undefined), 30_000)
    const filler = path.join(stateDir, "filler")
    fill(filler)

    const failing = await eventually(async () => {
      const ready = await request(url, "GET", "/ready")
      return ready.status === 503 ? ready : undefined
    }, 30_000)
    expect(failing.body).toMatchObject({ ready: false, storage: false })
    expect(failing.body.reason).toMatch(/disk is full|no space/i)
    expect((await request(url, "GET", "/health")).status).toBe(200)

    // space returns after the call's time (the runner may have stopped it: its shards went)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    fs.rmSync(filler)

    const ended = await eventually(async () => {
      const row = await input("k2")
      return row.body.status === "done" || row.body.status === "failed" ? row.body : undefined
    }, 60_000)
    const ran = fs.readFileSync(log, "utf8")
    if (ended.status === "done") {
      const results = ended.messages[1].content as Array<{ tool_use_id: string; is_error?: boolean; content: unknown }>
      expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_k2"])
      // answered as done only when it finished
      if (results[0]!.is_error !== true) expect(ran).toBe("start\nend\n")
    } else {
      expect(ended.error).toEqual(expect.any(String))
    }
    // run once, never again
    expect(["start\n", "start\nend\n"]).toContain(ran)

    const next = await send("k3", "echo three", true)
    expect(next.body, next.text).toMatchObject({ status: "done" })
    expect(JSON.stringify(next.body.messages)).toContain("three")
    await eventually(async () => ((await request(url, "GET", "/ready")).status === 200 ? true : undefined), 30_000)
  }, 180_000)
})

describe.skipIf(!mounted)("toolgate serve on a read-only state folder", () => {
  it("says so in one line naming the folder, and exits as for a usage error", () => {
    execFileSync("mount", ["-o", "remount,ro", readOnlyDir], { stdio: "ignore" })
    const ran = spawnSync(process.execPath, [bin, "serve", "--port", "0", "--state-dir", readOnlyDir], {
      env: { ...process.env, TOOLGATE_SERVE_TOKEN: TOKEN, NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000
    })
    expect(ran.status).toBe(1)
    expect(ran.stdout).toBe("")
    const lines = ran.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(readOnlyDir)
    expect(lines[0]).toMatch(/read-only/)
  }, 60_000)
})
