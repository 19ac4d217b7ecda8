/**
 * Pids recorded by commands for tests to check on. A command toolgate starts runs in a PID
 * namespace of its own (src/internal/leash.ts), where `$$` and `$!` are that namespace's numbers,
 * not the host's; but /proc is the host's, so a process that reads /proc/self/stat itself learns
 * its host pid. Commands record pids that way (`recordSelf`, `recordedInBackground`), and tests
 * check them as host pids.
 */
import * as fs from "node:fs"

export interface PidRecord {
  readonly pid: number
}

/** Shell: writes this shell's own (host) pid to `file` (a shell word). */
export const recordSelf = (file: string): string => `{ read -r __pid _ < /proc/self/stat; echo "$__pid" > ${file}; }`

/** Shell: runs `command` in the background as a process that first appends its own (host) pid to `file` (a shell word). */
export const recordedInBackground = (command: string, file: string): string =>
  `(read -r __pid _ < /proc/self/stat; echo "$__pid" >> ${file}; exec ${command}) &`

/** Shell: waits until `file` (a shell word) holds `count` pids (the background ones write theirs when they start). */
export const waitForRecords = (file: string, count = 1): string =>
  `until [ "$(cat ${file} 2>/dev/null | wc -l)" -ge ${count} ]; do sleep 0.01; done;`

export const parsePidRecord = (line: string): PidRecord => ({ pid: Number(line.trim()) })

export const readPidRecords = (file: string): ReadonlyArray<PidRecord> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map(parsePidRecord)

/** Alive and not a zombie. */
export const isRecordAlive = (record: PidRecord): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${record.pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

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
  if (!isRecordAlive(record)) return
  try {
    process.kill(record.pid, "SIGKILL")
  } catch {
    // gone
  }
}
