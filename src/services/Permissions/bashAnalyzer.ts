/**
 * The bridge to the shell analyzer in `./shell/index`. When it cannot be loaded or fails, the outcome
 * is "Unavailable" and every Bash call asks (issue 4: parser load failure means every Bash call
 * asks).
 */
import { Effect, Exit } from "effect"
import type { BashCheckContext, BashVerdict } from "./shell/types.js"

interface ShellAnalyzer {
  readonly checkBashCommand: (command: string, ctx: BashCheckContext) => Effect.Effect<BashVerdict>
  readonly ensureShellParser: Effect.Effect<void, unknown>
}

let loading: Promise<ShellAnalyzer | undefined> | undefined
/** Set once loaded, so later checks need no promise (an async hop per decision). */
let loaded: { readonly analyzer: ShellAnalyzer | undefined } | undefined

/** Loaded on first use, so commands that never see Bash never load tree-sitter. */
const load = (): Promise<ShellAnalyzer | undefined> => {
  loading ??= (async () => {
    try {
      const module: ShellAnalyzer = await import("./shell/index.js")
      const started = await Effect.runPromiseExit(module.ensureShellParser)
      loaded = { analyzer: Exit.isSuccess(started) ? module : undefined }
      return loaded.analyzer
    } catch {
      loaded = { analyzer: undefined }
      return undefined
    }
  })()
  return loading
}

export type AnalyzerOutcome =
  | { readonly _tag: "Verdict"; readonly verdict: BashVerdict }
  | { readonly _tag: "Unavailable"; readonly reason: string }

/** The analyzer's verdict, or why there is none (never fails, never dies). */
export const analyzeBash = (command: string, ctx: BashCheckContext): Effect.Effect<AnalyzerOutcome> =>
  (loaded !== undefined ? Effect.succeed(loaded.analyzer) : Effect.promise(load)).pipe(
    Effect.flatMap((analyzer) =>
      analyzer === undefined
        ? Effect.succeed<AnalyzerOutcome>({ _tag: "Unavailable", reason: "the shell analyzer is not available" })
        : analyzer.checkBashCommand(command, ctx).pipe(
            Effect.map((verdict): AnalyzerOutcome => ({ _tag: "Verdict", verdict })),
            Effect.catchAllCause((cause) =>
              Effect.succeed<AnalyzerOutcome>({ _tag: "Unavailable", reason: `the shell analyzer failed: ${String(cause)}` })
            )
          )
    )
  )
