/**
 * Pids recorded by commands for tests to check on. A command toolgate starts runs in a PID
 * namespace of its own (src/internal/leash.ts), where `$$` and `$!` are that namespace's numbers:
 * so commands record `<pid namespace> <pid> <start time>` (`recordPid`), and the test finds the
 * host process with that pid in that namespace, started then (a namespace that is gone has no
 * process left; its number may be given to a new one, hence the start time).
 */
import * as fs from "node:fs"

export interface PidRecord {
  /** `pid:[4026532…]`, or undefined for a bare pid (a host pid). */
  readonly ns: string | undefined
  readonly pid: number
  /** When the process started (clock ticks since boot, /proc/<pid>/stat field 22). */
  readonly start?: number
}

/**
 * A shell word for `echo`: the namespace, the pid `expr` (`$!`, `$$`) names, and its start time
 * (no quote characters, so it fits inside a `bash -c '…'` too; the programs recorded have no
 * space in their names).
 */
export const recordPid = (expr: string): string => `"$(readlink /proc/self/ns/pid) ${expr} $(cut -d\\  -f22 /proc/${expr}/stat)"`

export const parsePidRecord = (line: string): PidRecord => {
  const [first, second, third] = line.trim().split(/\s+/)
  if (second === undefined) return { ns: undefined, pid: Number(first) }
  return third === undefined || third === "" ? { ns: first, pid: Number(second) } : { ns: first, pid: Number(second), start: Number(third) }
}

/** A process's start time, as `recordPid` records it. */
export const startTimeOf = (pid: number | string): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
  } catch {
    return undefined
  }
}

export const readPidRecords = (file: string): ReadonlyArray<PidRecord> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map(parsePidRecord)

const ownNamespace = (() => {
  try {
    return fs.readlinkSync("/proc/self/ns/pid")
  } catch {
    return undefined
  }
})()

const liveState = (pid: number | string): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/** The host pid of a recorded process, while it lives. */
export const hostPidOf = (record: PidRecord): number | undefined => {
  if (record.ns === undefined || record.ns === ownNamespace) return liveState(record.pid) ? record.pid : undefined
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readlinkSync(`/proc/${entry}/ns/pid`) !== record.ns) continue
      const nspid = /^NSpid:\s*(.*)$/m.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]?.trim().split(/\s+/)
      if (Number(nspid?.at(-1)) !== record.pid || !liveState(entry)) continue
      if (record.start === undefined || startTimeOf(entry) === record.start) return Number(entry)
    } catch {
      // gone meanwhile
    }
  }
  return undefined
}

export const isRecordAlive = (record: PidRecord): boolean => hostPidOf(record) !== undefined

/** Polls (bounded) until the recorded process is gone. */
export const recordGone = async (record: PidRecord, withinMs = 5_000): Promise<boolean> => {
  const deadline = Date.now() + withinMs
  while (isRecordAlive(record)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return true
}

/** Kills a recorded process if it is still alive (cleanup after a failed assertion). */
export const killRecord = (record: PidRecord): void => {
  const pid = hostPidOf(record)
  if (pid === undefined) return
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // gone
  }
}
