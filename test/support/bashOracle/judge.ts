/**
 * The property: a command the analyzer lets run without asking runs exactly what the analyzer
 * named, where it said, and writes only what it named and approved. Compares the analyzer's
 * simple commands (public `analyze` result) with the programs bash really started and the
 * entries of the scratch tree that changed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { CommandAnalysis } from "../../../src/services/ShellAnalyzer.js"
import {
  expandTilde,
  programMatches,
  programRun,
  unitMatches,
  type JudgeContext,
  type ProgramRun,
  type SimpleCommand,
  type Word
} from "./matching.js"
import type { LoggedRun } from "./sandbox.js"
import type { Change } from "./scratch.js"

export type { JudgeContext } from "./matching.js"

/**
 * `unnamed-program`: bash started a program no command of the analysis names; `argv-mismatch`:
 * the program is named, never with these arguments; `wrong-directory`: it ran somewhere the
 * analysis does not go; the write kinds: a change the analysis did not name and approve, a change
 * outside the working directories, a change of a protected path.
 */
export type ProblemKind =
  | "unnamed-program"
  | "argv-mismatch"
  | "wrong-directory"
  | "unnamed-write"
  | "write-outside"
  | "protected-write"

/** Most severe first (a reproducer is minimised keeping its most severe problem). */
export const SEVERITY: ReadonlyArray<ProblemKind> = [
  "unnamed-write",
  "write-outside",
  "protected-write",
  "unnamed-program",
  "wrong-directory",
  "argv-mismatch"
]

export interface Problem {
  readonly kind: ProblemKind
  readonly detail: string
  /** The program, for run problems (its path, or the name bash did not find). */
  readonly program?: string
  /** Whether bash found that program. */
  readonly found?: boolean
  /** The kind of change, for write problems. */
  readonly change?: Change["kind"]
}

const commandsOf = (
  analysis: CommandAnalysis
): ReadonlyArray<SimpleCommand> => (analysis.kind === "simple" ? analysis.commands : analysis.visibleCommands)

const CD_NAMES = new Set(["cd", "pushd", "popd"])

/** The directories the analysis lets commands run in; undefined when a change of directory is only known at run time. */
const directoriesOf = (
  commands: ReadonlyArray<SimpleCommand>,
  ctx: JudgeContext
): ReadonlyArray<string> | undefined => {
  const dirs = [ctx.cwd]
  for (const c of commands) {
    const name = c.argv[0]
    if (typeof name !== "string" || !CD_NAMES.has(name)) continue
    if (name !== "cd") return undefined
    const operands = c.argv.slice(1).filter((w) => w !== "-L" && w !== "-P" && w !== "--")
    if (operands.length === 0) {
      dirs.push(ctx.home)
      continue
    }
    const target = operands[0]!
    if (typeof target !== "string" || target === "-" || operands.length > 1) return undefined
    const expanded = expandTilde(target, ctx.home)
    for (const base of [...dirs]) dirs.push(path.resolve(base, expanded))
  }
  return dirs
}

const real = (p: string): string => {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/** A path with every existing directory above it resolved (the file the kernel would open). */
const realTarget = (p: string): string => {
  let dir = path.dirname(p)
  const rest = [path.basename(p)]
  while (!fs.existsSync(dir) && dir !== path.dirname(dir)) {
    rest.unshift(path.basename(dir))
    dir = path.dirname(dir)
  }
  const resolved = path.join(real(dir), ...rest)
  try {
    return fs.lstatSync(resolved).isSymbolicLink() ? real(resolved) : resolved
  } catch {
    return resolved
  }
}

/** The file commands acceptEdits approves inside the working directories (their operands are the writes). */
const FILE_COMMANDS: ReadonlySet<string> = new Set(["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"])

const INPUT_OPS = new Set(["<", "<<", "<<-", "<<<", "<&"])

const isFdDuplication = (op: string, target: Word): boolean =>
  (op === ">&" || op === "<&") && typeof target === "string" && /^(?:\d+|-)$/.test(target)

const PROTECTED_DIRS = new Set([".git", ".claude", ".vscode", ".idea", ".husky"])
const PROTECTED_FILES = new Set([
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".gitconfig",
  ".gitmodules",
  ".ripgreprc",
  ".mcp.json",
  ".claude.json"
])

const isProtected = (p: string): boolean => {
  const parts = p.split(path.sep)
  return parts.some((part) => PROTECTED_DIRS.has(part.toLowerCase())) ||
    PROTECTED_FILES.has(path.basename(p).toLowerCase())
}

const inside = (p: string, dir: string): boolean => {
  const rel = path.relative(dir, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

const showRun = (run: ProgramRun): string =>
  `${run.found ? run.program : `${run.program} (not found)`} ${JSON.stringify(run.args)} in ${run.cwd}`

/** Every way in which what bash did differs from what the analyzer said (empty: none). */
export const judge = (
  analysis: CommandAnalysis,
  runs: ReadonlyArray<LoggedRun>,
  changes: ReadonlyArray<Change>,
  ctx: JudgeContext
): Array<Problem> => {
  const problems: Array<Problem> = []
  const commands = commandsOf(analysis)
  const dirs = directoriesOf(commands, ctx)
  const realDirs = dirs?.map(real)

  for (const raw of runs) {
    const run = programRun(raw)
    const who = { program: run.program, found: run.found }
    if (!commands.some((c) => unitMatches(c, run, ctx))) {
      const named = commands.some((c) => c.argv.length > 0 && programMatches(c.argv[0]!, run, ctx))
      problems.push(
        named
          ? {
            kind: "argv-mismatch",
            detail: `bash ran ${showRun(run)}; the analyzer has that program with other arguments`,
            ...who
          }
          : { kind: "unnamed-program", detail: `bash ran ${showRun(run)}, a program the analyzer did not name`, ...who }
      )
      continue
    }
    if (dirs !== undefined && !dirs.includes(run.cwd) && !realDirs!.includes(real(run.cwd))) {
      problems.push({
        kind: "wrong-directory",
        detail: `bash ran ${showRun(run)}; the analyzer expected ${dirs.join(" or ")}`,
        ...who
      })
    }
  }

  // The writes the analyzer named: output redirection targets, and the operands of the file
  // commands acceptEdits approves, resolved in each directory a command may run in.
  const named = new Set<string>()
  let anyTarget = false
  const name = (target: string) => {
    for (const base of dirs ?? [ctx.cwd]) {
      const abs = path.resolve(base, expandTilde(target, ctx.home))
      named.add(abs)
      named.add(realTarget(abs))
    }
  }
  if (ctx.writesApproved) {
    for (const c of commands) {
      const program = c.argv[0]
      if (typeof program === "string" && FILE_COMMANDS.has(program)) {
        const args = c.argv.slice(1)
        const suffixes = [""]
        for (const a of args) {
          if (typeof a !== "string") continue
          const backup = program === "sed"
            ? (/^-[a-zA-Z]*i(.+)$/.exec(a)?.[1] ?? /^--in-place=(.+)$/.exec(a)?.[1])
            : undefined
          if (backup !== undefined) suffixes.push(backup)
        }
        for (const a of args) {
          if (typeof a === "string" && !a.startsWith("-")) { for (const suffix of suffixes) name(a + suffix) }
        }
      }
      for (const r of c.redirects) {
        if (INPUT_OPS.has(r.op) || isFdDuplication(r.op, r.target)) continue
        if (typeof r.target !== "string") {
          anyTarget = true
          continue
        }
        name(r.target)
      }
    }
  }
  const realWorking = ctx.workingDirectories.map(real)
  for (const change of changes) {
    const what = `${change.kind} ${change.path} (${change.detail})`
    if (!anyTarget && !named.has(change.path)) {
      problems.push({
        kind: "unnamed-write",
        detail: `bash ${what}, which the analyzer did not name as an approved write`,
        change: change.kind
      })
    } else if (!realWorking.some((d) => inside(change.path, d))) {
      problems.push({
        kind: "write-outside",
        detail: `bash ${what}, outside the working directories`,
        change: change.kind
      })
    } else if (isProtected(path.relative(ctx.workingDirectories[0] ?? "/", change.path))) {
      problems.push({ kind: "protected-write", detail: `bash ${what}, a protected path`, change: change.kind })
    }
  }
  const details = new Set<string>()
  return problems.filter((p) => {
    if (details.has(p.detail)) return false
    details.add(p.detail)
    return true
  })
}
