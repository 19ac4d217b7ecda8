/**
 * Runners on PostgreSQL storage that fails. The cluster's database lives in a tablespace on a
 * small tmpfs that fills up while an input's call runs (PostgreSQL then fails the writes that
 * need new space: `could not extend file ...: No space left on device`), for longer than the
 * shard locks' expiration: both runners report storage failing (503 with the reason) while it
 * does, and once space returns the input ends (its call run once), the same session takes new
 * inputs and both runners are ready again, without a restart.
 * Mounting a tmpfs needs root: without it the test says so and does not run. */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createTablespace, postgresBin } from "../support/postgres.js"
import { tempDir } from "../support/runtime.js"
import { eventually, request, toolUse } from "../support/serve.js"
import { SERVER_TOKEN, useClusters } from "./support.js"

const bin = postgresBin()

const space = tempDir("toolgate-pg-tablespace-")
const mounted = bin !== undefined && process.getuid?.() === 0 && (() => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", space], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
if (bin !== undefined && !mounted) {
  process.stderr.write("storageFaults.cluster: not run (mounting a tmpfs needs root)\n")
}

afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", space], { stdio: "ignore" })
})

/** Fills the file system of `file` with it, up to its last byte. */
const fill = (file: string) => {
  const fd = fs.openSync(file, "w")
  const block = Buffer.alloc(64 * 1024)
  try {
    for (;;) fs.writeSync(fd, block)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  } finally {
    fs.closeSync(fd)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!mounted)("toolgate serve --runner on PostgreSQL storage that fills up", () => {
  const { newCluster, postgres } = useClusters(bin!, "pgfaults")

  it("reports storage failing while it is full, then ends the input, takes new inputs and is ready again", async () => {
    createTablespace(postgres(), "filling", space)
    const c = await newCluster({ tablespace: "filling" })
    const runners = [await c.start("r1"), await c.start("r2")]
    const { url } = runners[0]!
    const cwd = path.join(c.work, "ws")
    fs.mkdirSync(cwd, { recursive: true })
    const created = await request(url, "POST", "/sessions", {
      token: SERVER_TOKEN,
      body: { cwd, permissionMode: "bypassPermissions" }
    })
    expect(created.status, created.text).toBe(201)
    const { id, token } = created.body as { id: string; token: string }
    const send = (key: string, command: string) =>
      request(url, "POST", `/sessions/${id}/messages?wait=false`, {
        token,
        body: { role: "assistant", key, content: [toolUse(`toolu_${key}`, "Bash", { command })] }
      })
    /** The input once it ended (done or failed), or undefined after `timeoutMs`. */
    const ended = async (key: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const row = await request(url, "GET", `/sessions/${id}/messages/${key}?wait=false`, { token })
        if (row.body.status === "done" || row.body.status === "failed") return row.body
        await sleep(200)
      }
      return undefined
    }

    expect((await send("k1", "echo one")).status).toBe(200)
    expect(await ended("k1", 30_000)).toMatchObject({ status: "done" })

    // a call with a side effect; storage fills while it runs. Its output, random and large, needs
    // new pages wherever it is stored (PostgreSQL writes small rows into the free space of pages it has)
    const log = path.join(cwd, "log")
    const started = path.join(cwd, "started")
    const command =
      `echo start >> ${log}; touch ${started}; sleep 1.5; echo end >> ${log}; head -c 24000 /dev/urandom | base64 -w0`
    expect((await send("k2", command)).status).toBe(200)
    await eventually(() => (fs.existsSync(started) ? true : undefined), 30_000)
    const filler = path.join(space, "filler")
    fill(filler)

    for (const runner of runners) {
      const failing = await eventually(async () => {
        const ready = await request(runner.url, "GET", "/ready")
        return ready.status === 503 ? ready : undefined
      }, 20_000)
      expect(failing.body).toMatchObject({ ready: false, storage: false })
      expect(failing.body.reason).toMatch(/no space left|could not extend/i)
      expect((await request(runner.url, "GET", "/health")).status).toBe(200)
    }

    // space returns once the shard locks' expiration (6 s) went by: the runners let go of their
    // shards, and stay up (no shard lease of theirs ran out)
    await sleep(7_000)
    fs.rmSync(filler)
    const k2 = await ended("k2", 30_000)
    expect(k2, "input k2 ended once space returned").toBeDefined()
    const ran = fs.readFileSync(log, "utf8")
    if (k2.status === "done") {
      const results = k2.messages[1].content as Array<{ tool_use_id: string; is_error?: boolean; content: unknown }>
      expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_k2"])
      // answered as done only when it finished
      if (results[0]!.is_error !== true) expect(ran).toBe("start\nend\n")
    } else {
      expect(k2.error).toEqual(expect.any(String))
    }
    // run once, never again
    expect(["start\n", "start\nend\n"]).toContain(ran)

    expect((await send("k3", "echo three")).status).toBe(200)
    const k3 = await ended("k3", 30_000)
    expect(k3).toMatchObject({ status: "done" })
    expect(JSON.stringify(k3.messages)).toContain("three")
    for (const runner of runners) {
      await eventually(
        async () => ((await request(runner.url, "GET", "/ready")).status === 200 ? true : undefined),
        30_000
      )
      expect(runner.child.exitCode, runner.stderr()).toBeNull()
    }
  }, 180_000)
})
