/**
 * `sandbox.excludedCommands`: Bash rule patterns (`docker:*`, `make test`) of commands that run
 * outside the sandbox. A call leaves the sandbox only when every command in it matches an entry
 * and nothing else in it could do more than those commands: no `cd`, no substitution, no nested
 * shell, no redirection other than duplicating a descriptor (`2>&1`). Anything the analyzer cannot
 * read stays in. A convenience, not a permission: excluded commands are still judged as usual.
 */
import { Effect } from "effect"
import { compileBashPattern, matchesText, type ShellAnalyzerService } from "../ShellAnalyzer.js"

const DESCRIPTOR_DUPLICATION = /^[<>]&$/

export const isExcludedCommand = (
  analyzer: ShellAnalyzerService,
  command: string,
  patterns: ReadonlyArray<string>
): Effect.Effect<boolean> => {
  if (patterns.length === 0) return Effect.succeed(false)
  const compiled = patterns.map(compileBashPattern)
  return analyzer.analyze(command).pipe(
    Effect.map((analysis) => {
      if (analysis.kind !== "simple" || analysis.commands.length === 0) return false
      return analysis.commands.every((unit) => {
        if (unit.origin !== "top" || unit.env.length > 0) return false
        if (
          !unit.redirects.every((r) =>
            DESCRIPTOR_DUPLICATION.test(r.op) && typeof r.target === "string" && /^\d+$/.test(r.target)
          )
        ) return false
        if (!unit.argv.every((w): w is string => typeof w === "string")) return false
        const argv = unit.argv as ReadonlyArray<string>
        if (argv.length === 0 || argv[0] === "cd") return false
        const text = argv.join(" ")
        return compiled.some((pattern) => matchesText(pattern, text))
      })
    }),
    Effect.catchAllCause(() => Effect.succeed(false))
  )
}
