/**
 * The bridge to the ShellAnalyzer service. When it fails, the outcome is "Unavailable" and the
 * Bash call asks (a parser that cannot work means every Bash call asks).
 */
import { Effect } from "effect"
import type { Decision } from "../../Permission.js"
import type { ShellAnalyzerService, BashCheckContext } from "../ShellAnalyzer.js"

export type AnalyzerOutcome =
  | { readonly _tag: "Verdict"; readonly verdict: Decision }
  | { readonly _tag: "Unavailable"; readonly reason: string }

export type AnalyzeBash = (command: string, ctx: BashCheckContext) => Effect.Effect<AnalyzerOutcome>

/** The analyzer's verdict, or why there is none (never fails, never dies). */
export const analyzeBashWith = (shell: ShellAnalyzerService): AnalyzeBash => (command, ctx) =>
  Effect.suspend(() => shell.checkBash(command, ctx)).pipe(
    Effect.map((verdict): AnalyzerOutcome => ({ _tag: "Verdict", verdict })),
    Effect.catchAllCause((cause) =>
      Effect.succeed<AnalyzerOutcome>({ _tag: "Unavailable", reason: `the shell analyzer failed: ${String(cause)}` })
    )
  )
