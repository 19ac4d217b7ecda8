/**
 * The scheduler's rules (DESIGN "The scheduler") without the runtime: calls considered in
 * tool_use order, the cap, and
 *   batches:    a safe call may join running safe calls; an unsafe call runs alone and holds back
 *               every later call;
 *   footprints: a call starts once no earlier unfinished call conflicts with it (write/read or
 *               write/write on overlapping paths; no footprint conflicts with everything; two
 *               safe calls never conflict).
 * Every call is known up front (as after `stop_reason: tool_use`). Played out two ways:
 * `idealMakespan` on the durations with zero overhead and perfect timers, and `runPlain` with
 * real timers and plain callbacks (what the same rules cost without any framework, timer
 * lateness included).
 */
import * as path from "node:path"
import { footprintOf, isSafe, type PlannedCall } from "./tools.js"

type Footprint = { reads: ReadonlyArray<string>; writes: ReadonlyArray<string> } | undefined
export type Mode = "batches" | "footprints"

const within = (child: string, parent: string) => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}
const overlaps = (a: string, b: string) => within(a, b) || within(b, a)

const conflict = (a: Footprint, b: Footprint): boolean => {
  if (a === undefined || b === undefined) return true
  const hits = (writes: ReadonlyArray<string>, other: NonNullable<Footprint>) =>
    writes.some((w) => other.reads.some((r) => overlaps(w, r)) || other.writes.some((x) => overlaps(w, x)))
  return hits(a.writes, b) || hits(b.writes, a)
}

/** The scheduling state of one message; `dispatch` returns the calls that may start now. */
class Planner {
  readonly status: Array<"waiting" | "running" | "done">
  private readonly safe: Array<boolean>
  private readonly prints: Array<Footprint>

  constructor(
    readonly calls: ReadonlyArray<PlannedCall>,
    private readonly mode: Mode,
    private readonly cap: number
  ) {
    this.status = calls.map(() => "waiting")
    this.safe = calls.map(isSafe)
    this.prints = calls.map(footprintOf)
  }

  private running(): number {
    return this.status.filter((s) => s === "running").length
  }

  get finished(): boolean {
    return this.status.every((s) => s === "done")
  }

  finish(i: number): void {
    this.status[i] = "done"
  }

  dispatch(): Array<number> {
    const started: Array<number> = []
    const start = (i: number) => {
      this.status[i] = "running"
      started.push(i)
    }
    for (let i = 0; i < this.calls.length; i++) {
      if (this.status[i] !== "waiting") continue
      if (this.running() >= this.cap) break
      if (this.mode === "batches") {
        const runningUnsafe = this.status.some((s, j) => s === "running" && !this.safe[j])
        if (this.safe[i] ? runningUnsafe : this.running() > 0) break
        start(i)
        if (!this.safe[i]) break
      } else {
        let blocked = false
        for (let j = 0; j < i && !blocked; j++) {
          if (this.status[j] === "done" || (this.safe[i] && this.safe[j])) continue
          blocked = conflict(this.prints[i], this.prints[j])
        }
        if (!blocked) start(i)
      }
    }
    return started
  }
}

/** Makespan with zero overhead and timers that fire exactly on time. */
export const idealMakespan = (calls: ReadonlyArray<PlannedCall>, mode: Mode, cap: number): number => {
  const planner = new Planner(calls, mode, cap)
  const endsAt = new Map<number, number>()
  let t = 0
  const launch = () => {
    for (const i of planner.dispatch()) endsAt.set(i, t + calls[i]!.durationMs)
  }
  launch()
  while (!planner.finished) {
    if (endsAt.size === 0) throw new Error("ideal: nothing runs and calls are left (a rule deadlocks)")
    t = Math.min(...endsAt.values())
    for (const [i, end] of [...endsAt]) {
      if (end === t) {
        planner.finish(i)
        endsAt.delete(i)
      }
    }
    launch()
  }
  return t
}

/** The same rules with real timers and plain callbacks; resolves with the wall time in ms. */
export const runPlain = (calls: ReadonlyArray<PlannedCall>, mode: Mode, cap: number): Promise<number> =>
  new Promise((resolve) => {
    const planner = new Planner(calls, mode, cap)
    const t0 = performance.now()
    const launch = () => {
      if (planner.finished) return resolve(performance.now() - t0)
      for (const i of planner.dispatch()) {
        setTimeout(() => {
          planner.finish(i)
          launch()
        }, calls[i]!.durationMs)
      }
    }
    launch()
  })
