/**
 * The shell analyzer: tree-sitter-bash parses a command, a walker splits it into simple commands,
 * and Claude Code's Bash rules decide on them (implementation in src/services/ShellAnalyzer/).
 * Permissions decides Bash calls with it, Hooks matches `if: "Bash(…)"` conditions with it, and
 * the Bash tool asks it whether a command is read-only.
 *
 * The layer owns one parser and its cache of analyses. The parser is loaded on the first use,
 * not when the layer is built, so a session that never sees a Bash call never loads tree-sitter.
 * A parser that cannot load makes every Bash decision ask (fail closed).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { makeShellAnalyzer, makeShellParser } from "./ShellAnalyzer/index.js"
import type { Decision } from "../Permission.js"
import type { BashCheckContext, CommandAnalysis } from "./ShellAnalyzer/types.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  BashCheckContext,
  /**
   * @since 0.1.0
   * @category models
   */
  CommandAnalysis,
  /**
   * @since 0.1.0
   * @category models
   */
  PathVerdict,
  /**
   * @since 0.1.0
   * @category models
   */
  SimpleCommand
} from "./ShellAnalyzer/types.js"
/** Bash rule patterns, for the other readers of `Bash(…)` rules (hook conditions, sandbox exclusions). */
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  compileBashPattern,
  /**
   * @since 0.1.0
   * @category utils
   */
  matchesText,
  /**
   * @since 0.1.0
   * @category utils
   */
  strictMatchesCommand,
  /**
   * @since 0.1.0
   * @category models
   */
  type BashPattern
} from "./ShellAnalyzer/bashRules.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ShellAnalyzerService {
  /** Loads the parser (once; later calls return at once). Never fails. */
  readonly warmup: Effect.Effect<void>
  /** Loads the parser, then why it cannot be used: undefined when it can. */
  readonly unavailable: Effect.Effect<string | undefined>
  /** A command as simple commands, or "too complex" and why (loads the parser first). */
  readonly analyze: (command: string) => Effect.Effect<CommandAnalysis>
  /** The Bash permission verdict for a command under rules and mode (loads the parser first). */
  readonly checkBash: (command: string, ctx: BashCheckContext) => Effect.Effect<Decision>
  /**
   * Is the command read-only as a whole? Synchronous (tool flags are), so false until `warmup`
   * has loaded the parser, and false whenever the parser cannot tell (fail closed).
   */
  readonly isReadOnly: (command: string) => boolean
}

/**
 * @since 0.1.0
 * @category services
 */
export class ShellAnalyzer extends Context.Tag("toolgate/ShellAnalyzer")<ShellAnalyzer, ShellAnalyzerService>() {}

/**
 * A fresh analyzer with a parser and a cache of its own; tree-sitter loads on first use.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<ShellAnalyzerService> = Effect.sync(() => makeShellAnalyzer(makeShellParser()))

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ShellAnalyzer> = Layer.effect(ShellAnalyzer, make)

/**
 * An analyzer whose parser never loads, as when tree-sitter is missing: every Bash call asks
 * (deny rules still deny), no command is read-only, and Hooks match `if` conditions with their
 * own splitter. For tests and for embedders who do not ship the grammar.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeUnavailable = (reason = "disabled"): Effect.Effect<ShellAnalyzerService> =>
  Effect.sync(() => makeShellAnalyzer(makeShellParser({ unavailable: reason })))

/**
 * @since 0.1.0
 * @category layers
 */
export const layerUnavailable = (reason?: string): Layer.Layer<ShellAnalyzer> =>
  Layer.effect(ShellAnalyzer, makeUnavailable(reason))
