/**
 * Matching what bash ran against the analyzer's simple commands: which program a logged run is
 * (PATH lookups, absolute and relative paths, the project's scripts), and whether the analyzer's
 * argv accounts for the arguments (Dynamic words, globs and their expansions, `~`, the run-time
 * arguments of xargs and find -exec).
 */
import * as path from "node:path"
import type { CommandAnalysis } from "../../../src/services/ShellAnalyzer.js"
import { PROJECT_SCRIPT_STUB } from "./harness.js"
import type { LoggedRun } from "./sandbox.js"

export type SimpleCommand = Extract<CommandAnalysis, { readonly kind: "simple" }>["commands"][number]
export type Word = SimpleCommand["argv"][number]

export interface JudgeContext {
  /** The directory the command started in. */
  readonly cwd: string
  readonly home: string
  /** The working directories of the session (writes anywhere else are failures whatever the analysis says). */
  readonly workingDirectories: ReadonlyArray<string>
  /** Whether the mode can approve writes at all (acceptEdits); otherwise any change fails. */
  readonly writesApproved: boolean
  /** The directories PATH lookups resolve to inside the sandbox. */
  readonly pathDirs: ReadonlyArray<string>
}

const isDynamic = (w: Word): boolean => typeof w !== "string"

/** The last word stands for arguments that xargs / find -exec add at run time. */
const getsRuntimeArgs = (c: SimpleCommand): boolean => {
  const marked = (c as SimpleCommand & { readonly runtimeArgs?: boolean }).runtimeArgs
  if (marked !== undefined) return marked
  const last = c.argv[c.argv.length - 1]
  return c.origin === "wrapper-inner" && last !== undefined && isDynamic(last)
}

export const expandTilde = (
  word: string,
  home: string
): string => (word === "~" || word.startsWith("~/") ? home + word.slice(1) : word)

/** `/bin` and `/sbin` are links into /usr on the machines this runs on. */
const canonicalBin = (p: string): string => p.replace(/^\/bin\//, "/usr/bin/").replace(/^\/sbin\//, "/usr/sbin/")

export interface ProgramRun {
  /** Absolute path of what ran, or the bare name bash could not find. */
  readonly program: string
  readonly found: boolean
  readonly args: ReadonlyArray<string>
  readonly cwd: string
}

/** What a logged run means: the program (a script of the project shows as its interpreter stub) and its arguments. */
export const programRun = (run: LoggedRun): ProgramRun => {
  if (run.kind === "missing") return { program: run.argv[0] ?? "", found: false, args: run.argv.slice(1), cwd: run.cwd }
  const argv0 = canonicalBin(path.resolve(run.cwd, run.argv[0] ?? ""))
  if (path.basename(argv0) === PROJECT_SCRIPT_STUB && run.argv.length > 1) {
    return { program: path.resolve(run.cwd, run.argv[1]!), found: true, args: run.argv.slice(2), cwd: run.cwd }
  }
  return { program: argv0, found: true, args: run.argv.slice(1), cwd: run.cwd }
}

export const programMatches = (word: Word, run: ProgramRun, ctx: JudgeContext): boolean => {
  if (typeof word !== "string") return true
  if (!word.includes("/")) {
    if (!run.found) return run.program === word
    return path.basename(run.program) === word && ctx.pathDirs.includes(path.dirname(run.program))
  }
  return run.found && canonicalBin(path.resolve(run.cwd, expandTilde(word, ctx.home))) === run.program
}

/** A bash glob as a regular expression over one path (`*` and `?` stay within a component and skip a leading dot). */
const globRegExp = (glob: string): RegExp | undefined => {
  let out = ""
  let magic = false
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    const atStart = i === 0 || glob[i - 1] === "/"
    if (c === "\\" && i + 1 < glob.length) {
      out += glob[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
    } else if (c === "*") {
      magic = true
      while (glob[i + 1] === "*") i++
      out += atStart ? "(?!\\.)[^/]*" : "[^/]*"
    } else if (c === "?") {
      magic = true
      out += atStart ? "(?!\\.)[^/]" : "[^/]"
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2)
      if (close === -1) out += "\\["
      else {
        magic = true
        let body = glob.slice(i + 1, close)
        if (body.startsWith("!")) body = `^${body.slice(1)}`
        out += `[${body.replace(/\\/g, "\\\\")}]`
        i = close
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  }
  if (!magic) return undefined
  try {
    return new RegExp(`^${out}$`, "u")
  } catch {
    return undefined
  }
}

/**
 * The values bash may give a word the analyzer reports as a string: itself, and for `~` / `~/…`
 * the home directory (the analyzer reports the home as `~`, and quoted and unquoted words alike).
 */
const literalValues = (word: string, ctx: JudgeContext): ReadonlyArray<string> =>
  word === "~" || word.startsWith("~/") ? [word, expandTilde(word, ctx.home)] : [word]

/**
 * A Dynamic word written wholly inside double quotes is one argument; any other (`$X`, `$(cmd)`
 * unquoted) is split and globbed by bash into any number, none included.
 */
const oneWord = (w: Exclude<Word, string>): boolean => /^"[^"]*"$/s.test(w.text) || w.text.startsWith("<(")

/**
 * Does the analyzer's argv (after argv[0]) account for these arguments? A Dynamic word stands
 * for one argument, or any number when unquoted; a word with glob characters for itself or for
 * one or more arguments it matches (its expansion); the last word of a unit that gets run-time
 * arguments for any number.
 */
const argsMatch = (
  expected: ReadonlyArray<Word>,
  actual: ReadonlyArray<string>,
  runtimeArgs: boolean,
  ctx: JudgeContext
): boolean => {
  const fixed = runtimeArgs ? expected.slice(0, -1) : expected
  const go = (i: number, j: number): boolean => {
    if (i === fixed.length) return runtimeArgs || j === actual.length
    const w = fixed[i]!
    if (typeof w !== "string" && !oneWord(w)) {
      for (let k = j; k <= actual.length; k++) if (go(i + 1, k)) return true
      return false
    }
    if (j >= actual.length) return false
    if (typeof w !== "string") return go(i + 1, j + 1)
    if (literalValues(w, ctx).includes(actual[j]!) && go(i + 1, j + 1)) return true
    const glob = globRegExp(expandTilde(w, ctx.home))
    if (glob === undefined) return false
    for (let k = j; k < actual.length && glob.test(actual[k]!); k++) if (go(i + 1, k + 1)) return true
    return false
  }
  return go(0, 0)
}

export const unitMatches = (unit: SimpleCommand, run: ProgramRun, ctx: JudgeContext): boolean =>
  unit.argv.length > 0 && programMatches(unit.argv[0]!, run, ctx) &&
  argsMatch(unit.argv.slice(1), run.args, getsRuntimeArgs(unit), ctx)
