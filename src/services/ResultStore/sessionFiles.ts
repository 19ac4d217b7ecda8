/**
 * Keeping the sessions' files bounded: spilled results (`tool-results/`, `bash-output/`),
 * background task output (`tasks/`) and saved MCP resources (`mcp-resources/`) under the sessions
 * root (`~/.toolgate/projects/<project>/<session>/`) are removed when older than the age limit,
 * then the oldest go until the rest fit the total size limit. Transcripts and todo lists stay.
 * Files changed in the last few minutes may belong to a running session: the size rule leaves
 * them alone.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const SPILL_FOLDERS: ReadonlyArray<string> = ["tool-results", "bash-output", "tasks", "mcp-resources"]

export interface SweepPolicy {
  readonly maxAgeMs: number
  readonly maxTotalBytes: number
  /** Files changed more recently than this are never removed for size. */
  readonly keepRecentMs: number
  readonly now: number
}

export interface SweepReport {
  readonly removed: ReadonlyArray<string>
  readonly keptBytes: number
}

interface Found {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
}

const entries = (dir: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

const spilledFiles = (root: string): ReadonlyArray<Found> => {
  const found: Array<Found> = []
  for (const project of entries(root)) {
    for (const session of entries(path.join(root, project))) {
      for (const folder of SPILL_FOLDERS) {
        const dir = path.join(root, project, session, folder)
        for (const name of entries(dir)) {
          const file = path.join(dir, name)
          try {
            const stat = fs.lstatSync(file)
            if (stat.isFile()) found.push({ file, size: stat.size, mtimeMs: stat.mtimeMs })
          } catch {
            // gone meanwhile
          }
        }
      }
    }
  }
  return found
}

const remove = (file: string): boolean => {
  try {
    fs.rmSync(file, { force: true })
    return true
  } catch {
    return false
  }
}

/** Applies the policy to every session under `root`; what could not be removed is kept. */
export const sweepSessionFiles = (root: string, policy: SweepPolicy): SweepReport => {
  const removed: Array<string> = []
  const kept: Array<Found> = []
  for (const f of spilledFiles(root)) {
    if (policy.now - f.mtimeMs > policy.maxAgeMs && remove(f.file)) removed.push(f.file)
    else kept.push(f)
  }
  let total = kept.reduce((sum, f) => sum + f.size, 0)
  for (const f of [...kept].sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= policy.maxTotalBytes) break
    if (policy.now - f.mtimeMs < policy.keepRecentMs) continue
    if (remove(f.file)) {
      removed.push(f.file)
      total -= f.size
    }
  }
  return { removed, keptBytes: total }
}
