/**
 * What each command takes, as the argv front end checks it and the help shows it.
 */
import type { FlagMeta } from "./flags.js"

export interface ArgSpec {
  readonly name: string
  readonly optional?: boolean
  readonly description: string
}

export interface CommandSpec {
  /** The words after `toolgate` (`["tools", "schema"]`). */
  readonly path: ReadonlyArray<string>
  readonly summary: string
  readonly args: ReadonlyArray<ArgSpec>
  readonly flags: ReadonlyArray<FlagMeta>
  /** A command that only groups subcommands (`permissions`, `mcp`). */
  readonly group?: boolean
  /** Paragraphs after the options in its help. */
  readonly details?: ReadonlyArray<string>
}

export const commandName = (spec: CommandSpec): string => ["toolgate", ...spec.path].join(" ")

export const argsUsage = (args: ReadonlyArray<ArgSpec>): string =>
  args.map((a) => (a.optional === true ? `[${a.name}]` : `<${a.name}>`)).join(" ")
