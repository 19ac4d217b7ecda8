/**
 * Runners on PostgreSQL storage that fails. The cluster's database lives in a tablespace on a
 * small tmpfs that fills up while an input's call runs (PostgreSQL then fails the writes that
 * need new space: `could not extend file ...: No space left on device`), for longer than the
 * shard locks' expiration: both runners report storage failing (503 with the reason) while it
 * does, and once space returns the input ends (its call run once), the same session takes new
 * inputs and both runners are ready again, without a restart. PostgreSQL crashing (and restarting
 * at once, as after a full write-ahead log) just as a call's result is written: the same.
 * Mounting a tmpfs needs root: without it the tests say so and do not run. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { createTablespace, postgresBin } from "../support/postgres.js"
import { tempDir } from "../support/runtime.js"
import { fill, mountTmpfs } from "../support/smallDisk.js"
import { createSession, eventually, request, toolUse } from "../support/serve.js"
import { type Cluster, type Runner, SERVER_TOKEN, useClusters } from "./support.js"

const bin = postgresBin()

const space = tempDir("toolgate-pg-tablespace-")
const mounted = bin !== undefined && process.getuid?.() === 0 && mountTmpfs(space, "48m")
if (bin !== undefined && !mounted) {
  process.stderr.write("storageFaults.cluster: not run (mounting a tmpfs needs root)\n")
}

const filler = path.join(space, "filler")
// space returns even when a test stopped early: the server's other databases need it
afterEach(() => fs.rmSync(filler, { force: true }))
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", space], { stdio: "ignore" })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The pids and command lines of a process's children. */
const childrenOf = (pid: number) =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== pid) return []
      return [{ pid: Number(entry), command: fs.readFileSync(`/proc/${entry}/cmdline`, "utf8") }]
    } catch {
      return []
    }
  })

/** A session created through `url`, working in `cwd`: its inputs are one Bash call each. */
const sessionOn = async (url: string, cwd: string) => {
  fs.mkdirSync(cwd, { recursive: true })
  const { id, token } = await createSession(url, SERVER_TOKEN, { cwd, permissionMode: "bypassPermissions" })
  return {
    send: async (key: string, command: string) => {
      const sent = await request(url, "POST", `/sessions/${id}/messages?wait=false`, {
        token,
        body: { role: "assistant", key, content: [toolUse(`toolu_${key}`, "Bash", { command })] }
      })
      expect(sent.status, sent.text).toBe(200)
    },
    /** The input once it ended (done or failed), or undefined after `timeoutMs`. */
    ended: async (key: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const row = await request(url, "GET", `/sessions/${id}/messages/${key}?wait=false`, { token })
        if (row.body.status === "done" || row.body.status === "failed") return row.body
        await sleep(200)
      }
      return undefined
    }
  }
}

/**
 * An input that ended after a storage fault during its call: answered as done (with the call's
 * result, or as stopped while it ran) or as failed; the call ran once (`ran`: its log).
 */
const expectEndedOnce = (input: any, ran: string) => {
  expect(input, "the input ended once storage took writes again").toBeDefined()
  if (input.status === "done") {
    const results = input.messages[1].content as Array<{ tool_use_id: string; is_error?: boolean; content: unknown }>
    expect(results).toHaveLength(1)
    // answered as done only when it finished
    if (results[0]!.is_error !== true) expect(ran).toBe("start\nend\n")
    else expect(JSON.stringify(results[0]!.content)).toContain("stopped while it ran")
  } else {
    expect(input.error).toEqual(expect.any(String))
  }
  // run once, never again
  expect(["start\n", "start\nend\n"]).toContain(ran)
}

/** A session takes a new input, and every runner is up and ready. */
const expectRecovered = async (
  session: Awaited<ReturnType<typeof sessionOn>>,
  runners: ReadonlyArray<Runner>
) => {
  await session.send("k3", "echo three")
  const k3 = await session.ended("k3", 30_000)
  expect(k3).toMatchObject({ status: "done" })
  expect(JSON.stringify(k3.messages)).toContain("three")
  for (const runner of runners) {
    await eventually(
      async () => ((await request(runner.url, "GET", "/ready")).status === 200 ? true : undefined),
      30_000
    )
    expect(runner.child.exitCode, runner.stderr()).toBeNull()
  }
}

/** Two runners of the cluster, and a session created through the first that ran one input (k1). */
const twoRunnersAndASession = async (c: Cluster) => {
  const runners = [await c.start("r1"), await c.start("r2")]
  const cwd = path.join(c.work, "ws")
  const session = await sessionOn(runners[0]!.url, cwd)
  await session.send("k1", "echo one")
  expect(await session.ended("k1", 30_000)).toMatchObject({ status: "done" })
  return { runners, cwd, session }
}

describe.skipIf(!mounted)("toolgate serve --runner on PostgreSQL storage that fails", () => {
  // commits survive a crash (a call's start mark among them: after one, the call must not run again)
  const { newCluster, postgres } = useClusters(bin!, "pgfaults", { durableCommits: true })

  it("reports storage failing while it is full, then ends the input, takes new inputs and is ready again", async () => {
    createTablespace(postgres(), "filling", space)
    const { cwd, runners, session } = await twoRunnersAndASession(await newCluster({ tablespace: "filling" }))

    // a call with a side effect; storage fills while it runs. Its output, random and large, needs
    // new pages wherever it is stored (PostgreSQL writes small rows into the free space of pages it has)
    const log = path.join(cwd, "log")
    const started = path.join(cwd, "started")
    const command =
      `echo start >> ${log}; touch ${started}; sleep 1.5; echo end >> ${log}; head -c 24000 /dev/urandom | base64 -w0`
    await session.send("k2", command)
    await eventually(() => (fs.existsSync(started) ? true : undefined), 30_000)
    fill(filler)

    for (const runner of runners) {
      const failing = await eventually(async () => {
        const ready = await request(runner.url, "GET", "/ready")
        return ready.status === 503 ? ready : undefined
      }, 20_000)
      expect(failing.body).toMatchObject({ ready: false, storage: false })
      expect(failing.body.reason).toMatch(/could not extend file .*: No space left on device/)
      expect((await request(runner.url, "GET", "/health")).status).toBe(200)
    }

    // space returns once the shard locks' expiration (6 s) went by: the runners let go of their
    // shards, and stay up (no shard lease of theirs ran out)
    await sleep(7_000)
    fs.rmSync(filler)
    expectEndedOnce(await session.ended("k2", 30_000), fs.readFileSync(log, "utf8"))
    await expectRecovered(session, runners)
  }, 180_000)

  it(
    "PostgreSQL crashing as a call's result is written: the input ends, its call run once, the session goes on",
    async () => {
      const { cwd, runners, session } = await twoRunnersAndASession(await newCluster())

      const log = path.join(cwd, "log")
      await session.send("k2", `echo start >> ${log}; sleep 1; echo end >> ${log}; echo two`)
      await eventually(
        () => (fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("end") ? true : undefined),
        30_000,
        10
      )
      // one of its processes killed, PostgreSQL ends every connection and recovers from its log
      const backend = childrenOf(postgres().pid).find((p) => p.command.includes("toolgate"))
      expect(backend).toBeDefined()
      process.kill(backend!.pid, "SIGKILL")

      expectEndedOnce(await session.ended("k2", 30_000), fs.readFileSync(log, "utf8"))
      await expectRecovered(session, runners)
    },
    180_000
  )
})
