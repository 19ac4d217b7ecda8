/**
 * TEMPORARY adapter to the shell analyzer (src/permissions/shell/index.ts), which is being written
 * in parallel. It loads the module dynamically and fails closed (not read-only) while it is
 * missing or broken. Once that module exists, delete this file and import `ensureShellParser` and
 * `isReadOnlyCommand` from "../../permissions/shell/index.js" in Bash.ts.
 */
import { Effect } from "effect"

interface ShellAnalyzer {
  readonly ensureShellParser: Effect.Effect<void>
  readonly isReadOnlyCommand: (command: string) => boolean
}

// A non-literal specifier: the type checker and the bundler must not require the file yet.
const ANALYZER_MODULE = "../../permissions/shell/index.js"

let analyzer: ShellAnalyzer | undefined

const isAnalyzer = (m: unknown): m is ShellAnalyzer =>
  typeof m === "object" &&
  m !== null &&
  typeof (m as ShellAnalyzer).isReadOnlyCommand === "function" &&
  Effect.isEffect((m as ShellAnalyzer).ensureShellParser)

/** Loads the analyzer and its parser; does nothing (and keeps failing closed) when it cannot. */
export const ensureShellParser: Effect.Effect<void> = Effect.suspend(() =>
  analyzer !== undefined
    ? analyzer.ensureShellParser
    : Effect.tryPromise(() => import(ANALYZER_MODULE) as Promise<unknown>).pipe(
        Effect.flatMap((m) => {
          if (!isAnalyzer(m)) return Effect.void
          analyzer = m
          return m.ensureShellParser
        })
      )
).pipe(Effect.catchAllCause(() => Effect.void))

/** True only when the analyzer is loaded and says the command is read-only. */
export const isReadOnlyCommand = (command: string): boolean => {
  if (analyzer === undefined) return false
  try {
    return analyzer.isReadOnlyCommand(command) === true
  } catch {
    return false
  }
}
