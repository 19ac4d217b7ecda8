/**
 * Failover that never stalls: runners on one PostgreSQL, scripted sessions whose second call
 * sleeps, and a runner that dies (SIGKILL), freezes with everything it started (SIGSTOP), or
 * joins while those calls run. Every session finishes; a call that was not running when the
 * runner died runs exactly once and succeeds; only the call in flight on a runner that died may
 * be answered "stopped while it ran", and none runs twice.
 */
import { describe, expect, it } from "vitest"
import { postgresBin } from "../support/postgres.js"
import { request } from "../support/serve.js"
import {
  allInCallB,
  expectMarkedSessionDone,
  freeze,
  resumedOn,
  runsOf,
  startMarkedSession,
  startSpreadSessions,
  thaw,
  waitForInput,
  useClusters
} from "./support.js"

const bin = postgresBin()

describe.skipIf(bin === undefined)("toolgate serve --runner: failover", () => {
  const { newCluster } = useClusters(bin!, "failover")

  it("a runner killed mid-call: its sessions finish on the other runner; only the calls it was running are answered as stopped", async () => {
    const c = await newCluster()
    const [r1, r2] = [await c.start("r1"), await c.start("r2")]
    const { sessions, owner } = await startSpreadSessions(r2, c.work, [r1, r2], { each: 2, sleepSeconds: 30 })
    await allInCallB(sessions)
    await r1.stop("SIGKILL")

    for (const session of sessions) {
      const result = await waitForInput(r2, session)
      const onVictim = owner.get(session.id) === r1.address
      const lost = expectMarkedSessionDone(session, result, onVictim)
      // the victim's calls were mid-sleep: nothing could finish them but the victim
      expect(lost, `session ${session.i}`).toBe(onVictim)
      if (onVictim) expect(await resumedOn(r2.url, session)).toEqual([r2.address])
    }
  })

  it("a frozen runner (its whole process tree stopped) loses its sessions once its lease runs out, and stops itself when it wakes", async () => {
    const c = await newCluster()
    const [r1, r2] = [await c.start("r1"), await c.start("r2")]
    const { sessions, owner } = await startSpreadSessions(r2, c.work, [r1, r2], { each: 2, sleepSeconds: 30 })
    await allInCallB(sessions)
    freeze(r1.pid)

    for (const session of sessions) {
      const result = await waitForInput(r2, session)
      const onVictim = owner.get(session.id) === r1.address
      expect(expectMarkedSessionDone(session, result, onVictim), `session ${session.i}`).toBe(onVictim)
    }
    const before = sessions.map((s) => ["a", "b", "c"].map((call) => runsOf(s.cwd, call)))

    // woken, it finds its lease gone and stops at once, with everything it started
    thaw(r1.pid)
    const exit = await r1.exited
    expect(exit.code).not.toBe(0)
    expect(r1.stderr()).toContain("shard lease")
    expect(sessions.map((s) => ["a", "b", "c"].map((call) => runsOf(s.cwd, call)))).toEqual(before)
    expect((await request(r2.url, "GET", "/ready")).body).toMatchObject({ ready: true })
  })

  it("a runner joining while calls run: the sessions it takes over finish, their running calls too, and none stalls", async () => {
    const c = await newCluster()
    const r1 = await c.start("r1")
    const sessions = await Promise.all(Array.from({ length: 12 }, (_, i) => startMarkedSession(r1, c.work, i, 3)))
    await allInCallB(sessions)
    const r2 = await c.start("r2")

    const results = await Promise.all(sessions.map((s) => waitForInput(r2, s, "k", 90_000)))
    const moved = await Promise.all(sessions.map((s) => resumedOn(r2.url, s)))
    sessions.forEach((session, k) => {
      // the running call had time to finish where it ran; the rest of its input moved
      expectMarkedSessionDone(session, results[k]!, false)
    })
    expect(moved.filter((m) => m.includes(r2.address)).length).toBeGreaterThan(0)
  })
})
