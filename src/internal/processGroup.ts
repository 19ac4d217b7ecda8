/**
 * Process groups toolgate starts: every child it spawns (shells, background shells, hooks, MCP
 * servers, ripgrep) leads a group of its own, so everything it starts (children, grandchildren,
 * `&` jobs) can be stopped at once: SIGTERM, a grace period, then SIGKILL (`killGroup`).
 * Each group is also remembered until it is empty; should the process exit with one still
 * running (a finaliser that never ran), the exit hook SIGKILLs it, so none outlives toolgate.
 * A group whose leader is a leash (leash.ts: bubblewrap keeping a PID namespace) is stopped
 * around its leader: the processes inside get SIGTERM and the grace period, and only the final
 * SIGKILL reaches the leader, which takes the whole namespace with it.
 */
import { Clock, Duration, Effect } from "effect"
import * as fs from "node:fs"

/** Sends `signal` to every process of the group; false when the group has no process left. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal)
    return true
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * True while the group has a process that is not a zombie. Orphans are re-parented to PID 1,
 * which does not always reap them, so a signal-0 probe alone would see dead processes as alive.
 */
export const groupHasLiveMembers = (pgid: number): boolean => {
  if (!signalGroup(pgid, 0)) return false
  if (process.platform !== "linux") return true
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return true
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(Number(entry))
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") return true
  }
  return false
}

/** The live (not zombie) processes of the group. */
export const groupMembers = (pgid: number): ReadonlyArray<number> => {
  const members: Array<number> = []
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return members
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(Number(entry))
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") {
      members.push(Number(entry))
    }
  }
  return members
}

/** True when the process exists and is not a zombie. */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ESRCH") return false
  }
  const stat = process.platform === "linux" ? readStat(pid) : undefined
  return stat === undefined ? process.platform !== "linux" : stat.state !== "Z" && stat.state !== "X"
}

const readStat = (pid: number): { readonly state: string; readonly pgrp: number } | undefined => {
  let text: string
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return { state: fields[0] ?? "", pgrp: Number(fields[2]) }
}

const tracked = new Set<number>()
/** Groups led by a leash: signals other than SIGKILL spare the leader. */
const leashed = new Set<number>()
let exitHookInstalled = false

/** Remembers a group just started (its leader's pid), until it is found empty. */
export const trackGroup = (pgid: number | undefined, options: { readonly leashed?: boolean } = {}): void => {
  if (pgid === undefined) return
  tracked.add(pgid)
  if (options.leashed === true) leashed.add(pgid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const group of tracked) signalGroup(group, "SIGKILL")
  })
}

/** Forgets the group once no process of it is left (zombies included, so its id is not reused yet). */
export const forgetIfEmpty = (pgid: number): void => {
  if (signalGroup(pgid, 0)) return
  tracked.delete(pgid)
  leashed.delete(pgid)
}

/** The groups started and not yet found empty (for tests and diagnostics). */
export const trackedGroups = (): ReadonlyArray<number> => Array.from(tracked)

/** A signal short of SIGKILL: to the whole group, or to all of it but a leash leader. */
const gentleSignal = (pgid: number, signal: NodeJS.Signals): boolean => {
  if (!leashed.has(pgid)) return signalGroup(pgid, signal)
  if (!signalGroup(pgid, 0)) return false
  for (const pid of groupMembers(pgid)) {
    if (pid === pgid) continue
    try {
      process.kill(pid, signal)
    } catch {
      // gone meanwhile
    }
  }
  return true
}

const POLL = Duration.millis(20)

let graceCut = false

/**
 * Ends every grace period, those under way and those to come: each group being stopped gets its
 * SIGKILL now. For the third Ctrl-C, which must stop at once yet still let every call be answered
 * (the calls end as their processes do). It lasts until the process exits.
 */
export const cutGracePeriods = (): void => {
  graceCut = true
}

/** How long to wait for SIGKILLed processes to be gone (delivery is asynchronous). */
const KILL_SETTLE_MS = 1000

/**
 * Stops the whole group: SIGTERM (and SIGCONT, so stopped processes see it), up to `graceMs` for
 * the processes to exit, then SIGKILL for whatever is left, and a bounded wait until it is gone.
 */
export const killGroup = (pgid: number, graceMs: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (!gentleSignal(pgid, "SIGTERM")) return
    gentleSignal(pgid, "SIGCONT")
    const deadline = (yield* Clock.currentTimeMillis) + graceMs
    while (!graceCut && groupHasLiveMembers(pgid) && (yield* Clock.currentTimeMillis) < deadline) {
      yield* Effect.sleep(POLL)
    }
    if (!groupHasLiveMembers(pgid)) return
    signalGroup(pgid, "SIGKILL")
    const settled = (yield* Clock.currentTimeMillis) + KILL_SETTLE_MS
    while (groupHasLiveMembers(pgid) && (yield* Clock.currentTimeMillis) < settled) yield* Effect.sleep(POLL)
  }).pipe(Effect.ensuring(Effect.sync(() => forgetIfEmpty(pgid))))

/** `killGroup` for code outside Effect (the MCP stdio transport). */
export const killGroupPromise = (pgid: number, graceMs: number): Promise<void> =>
  Effect.runPromise(killGroup(pgid, graceMs))
