/**
 * The working directories as every name they go by: each directory's
 * lexical path, its symlink hops and its real path. Containment is
 * by path components; case is folded only on volumes that really are case-insensitive.
 */
import * as path from "node:path"
import { isWithin } from "../../internal/expandPath.js"
import { isCaseInsensitiveVolume, resolveCandidates } from "./pathResolution.js"

export interface WorkingDirectory {
  /** As configured (absolute). */
  readonly path: string
  /** Every name of the directory: lexical, hops, real path. */
  readonly names: ReadonlyArray<string>
  readonly caseInsensitive: boolean
}

export const resolveWorkingDirectories = (dirs: ReadonlyArray<string>): ReadonlyArray<WorkingDirectory> => {
  const seen = new Set<string>()
  const out: Array<WorkingDirectory> = []
  for (const dir of dirs) {
    const absolute = path.resolve(dir)
    if (seen.has(absolute)) continue
    seen.add(absolute)
    const resolution = resolveCandidates(absolute)
    // a working directory that cannot be resolved contributes only its own name
    const names = resolution.ok ? resolution.candidates : [absolute]
    out.push({ path: absolute, names, caseInsensitive: isCaseInsensitiveVolume(absolute) })
  }
  return out
}

/** The working directory that contains `candidate`, if any. */
export const containingDirectory = (
  candidate: string,
  dirs: ReadonlyArray<WorkingDirectory>
): WorkingDirectory | undefined =>
  dirs.find((dir) =>
    dir.names.some((
      name
    ) => (dir.caseInsensitive ? isWithin(candidate.toLowerCase(), name.toLowerCase()) : isWithin(candidate, name)))
  )
