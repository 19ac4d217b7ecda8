/**
 * The fail-closed Bash command analyzer: parse with tree-sitter,
 * walk into simple commands, match Claude Code's Bash rules, and decide allow / ask / deny. The
 * ShellAnalyzer service (src/services/ShellAnalyzer.ts) owns one parser and its analyses.
 */
import { Effect } from "effect"
import type { ShellAnalyzerService } from "../ShellAnalyzer.js"
import { makeAnalyses, toCommandAnalysis, type Analyses } from "./analyze.js"
import { hasOnlySafeEnv } from "./bashRules.js"
import { decideBash } from "./check.js"
import { unitGuards } from "./guards.js"
import type { ShellParser } from "./parser.js"
import { readOnlyVerdict } from "./readOnly.js"
import { redirectIsFdDup, type Analysis } from "./units.js"
import { commandKey } from "./wrappers.js"

export type { BashCheckContext, CommandAnalysis, Dynamic, PathVerdict, Redirect, SimpleCommand, Word } from "./types.js"
export { makeShellParser, MAX_COMMAND_LENGTH, type ShellParser } from "./parser.js"
export { makeAnalyses } from "./analyze.js"
export { suggestRules } from "./suggest.js"
export { escapeForDisplay } from "./hygiene.js"
export { compileBashPattern, matchesText, SAFE_ENV_VARS } from "./bashRules.js"

const HARMLESS_OUTPUTS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"])

/**
 * Is the command read-only as a whole (every simple command is a built-in read-only command, no
 * writes through redirections, no change of directory)?
 */
const isReadOnlyAnalysis = (analysis: Analysis): boolean => {
  if (analysis.complexReasons.length > 0 || analysis.units.length === 0) return false
  for (const unit of analysis.units) {
    const argv0 = unit.argv[0]
    if (typeof argv0 === "string") {
      const key = commandKey(argv0)
      if (key === "cd" || key === "pushd" || key === "popd") return false
    }
    if (!hasOnlySafeEnv(unit) || unitGuards(unit).length > 0) return false
    if (unit.role === "assignment") return false
    if (!readOnlyVerdict(unit).readOnly) return false
    for (const redirect of unit.redirects) {
      if (
        redirect.op === "<" || redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<" ||
        redirectIsFdDup(redirect)
      ) continue
      if (typeof redirect.target === "string" && HARMLESS_OUTPUTS.has(redirect.target)) continue
      return false
    }
  }
  return true
}

/** The analyzer over one parser, with a cache of analyses of its own (given: for benchmarks, which empty it). */
export const makeShellAnalyzer = (
  parser: ShellParser,
  analyses: Analyses = makeAnalyses(parser)
): ShellAnalyzerService => ({
  warmup: parser.ensure,
  unavailable: Effect.map(parser.ensure, () => parser.unavailable()),
  analyze: (command) => Effect.map(parser.ensure, () => toCommandAnalysis(analyses.analyze(command))),
  checkBash: (command, ctx) => Effect.map(parser.ensure, () => decideBash(analyses.analyze(command), ctx)),
  isReadOnly: (command) => parser.unavailable() === undefined && isReadOnlyAnalysis(analyses.analyze(command))
})
