/**
 * One ShellAnalyzer per test file (vitest loads support modules once per file): tree-sitter loads
 * once, as in a CLI process, however many runtimes the file builds.
 */
import { Effect, Layer } from "effect"
import * as ShellAnalyzer from "../../src/services/ShellAnalyzer.js"
import { makeBashTool } from "../../src/tools/Bash.js"

export const sharedShellAnalyzer: ShellAnalyzer.ShellAnalyzerService = Effect.runSync(ShellAnalyzer.make)

export const layerSharedShellAnalyzer: Layer.Layer<ShellAnalyzer.ShellAnalyzer> = Layer.succeed(
  ShellAnalyzer.ShellAnalyzer,
  sharedShellAnalyzer
)

/** Bash as the runtime builds it: read-only commands told by this file's analyzer. */
export const analyzedBashTool = makeBashTool({ analyzer: sharedShellAnalyzer })
