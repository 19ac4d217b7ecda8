/**
 * The fail-closed Bash command analyzer (reference/shell-security.md): parse with tree-sitter,
 * walk into simple commands, match Claude Code's Bash rules, and decide allow / ask / deny.
 */
import { analyzeSync } from "./analyze.js"
import { hasOnlySafeEnv } from "./bashRules.js"
import { unitGuards } from "./guards.js"
import { parserUnavailable } from "./parser.js"
import { readOnlyVerdict } from "./readOnly.js"
import { redirectIsFdDup } from "./units.js"
import { commandKey } from "./wrappers.js"

export type { BashCheckContext, BashVerdict, CommandAnalysis, Dynamic, PathVerdict, Redirect, SimpleCommand, Word } from "./types.js"
export { ensureShellParser, MAX_COMMAND_LENGTH } from "./parser.js"
export { analyzeCommand } from "./analyze.js"
export { checkBashCommand } from "./check.js"
export { suggestRules } from "./suggest.js"
export { escapeForDisplay } from "./hygiene.js"
export { compileBashPattern, matchesText, SAFE_ENV_VARS } from "./bashRules.js"

const HARMLESS_OUTPUTS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"])

/**
 * Is the command read-only as a whole (every simple command is a built-in read-only command, no
 * writes through redirections, no change of directory)? Synchronous; false until the parser has
 * been loaded with `ensureShellParser` (fail closed).
 */
export const isReadOnlyCommand = (command: string): boolean => {
  if (parserUnavailable() !== undefined) return false
  const analysis = analyzeSync(command)
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
      if (redirect.op === "<" || redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<" || redirectIsFdDup(redirect)) continue
      if (typeof redirect.target === "string" && HARMLESS_OUTPUTS.has(redirect.target)) continue
      return false
    }
  }
  return true
}
