/**
 * Where a command starts and where the next one will: a `cd` carries
 * over only while it stays inside the working directories, compared on real paths.
 */
import * as fs from "node:fs"
import { isDirectory } from "../../internal/fileKind.js"
import { isWithin } from "../../internal/expandPath.js"
import { workingDirectories, type SessionContext } from "../../Session.js"
import type { FinalCwd } from "./cwdTrap.js"

export const resetNotice = (dir: string): string => `Shell cwd was reset to ${dir}`

export interface CwdChoice {
  readonly cwd: string
  /** Set when the shell is not where the command left it (or where the session thought it was). */
  readonly notice: string | undefined
}

const realPath = (p: string): string => {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/** The session's cwd, or the project directory when the cwd has gone away. */
export const startingDirectory = (session: SessionContext): CwdChoice =>
  isDirectory(session.cwd) || !isDirectory(session.projectDir)
    ? { cwd: session.cwd, notice: undefined }
    : { cwd: session.projectDir, notice: resetNotice(session.projectDir) }

export const isInsideWorkingDirectories = (realDir: string, session: SessionContext): boolean =>
  workingDirectories(session).some((dir) => isWithin(realDir, realPath(dir)))

/**
 * The cwd for the next call. `ranIn` is where this command started; `final` is where the shell
 * ended (undefined when it did not report).
 */
export const nextDirectory = (options: {
  readonly session: SessionContext
  readonly ranIn: string
  readonly final: FinalCwd | undefined
  readonly maintainProjectDir: boolean
}): CwdChoice => {
  const { session, ranIn, final } = options
  if (options.maintainProjectDir) {
    const project = session.projectDir
    const moved = (final?.physical ?? realPath(ranIn)) !== realPath(project)
    return { cwd: project, notice: moved ? resetNotice(project) : undefined }
  }
  if (final === undefined) return { cwd: ranIn, notice: undefined }
  if (!isInsideWorkingDirectories(final.physical, session)) return { cwd: ranIn, notice: resetNotice(ranIn) }
  // Keep the path as the command spelled it, unless it no longer leads to the same place.
  return { cwd: realPath(final.logical) === final.physical ? final.logical : final.physical, notice: undefined }
}
