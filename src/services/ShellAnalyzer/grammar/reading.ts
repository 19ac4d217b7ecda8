/**
 * What the grammar reader gives back: the simple commands bash will run, read by rules written
 * down in docs/shell-grammar.md, or why the command is outside that grammar.
 */
import type { Word } from "../types.js"

export interface ReadRedirect {
  /** The operator without a trailing `-` (`<<-` is `<<`, `>&-` is `>&` with target `-`). */
  readonly op: string
  readonly fd?: number
  readonly target: Word
}

export interface ReadCommand {
  /** Empty for an assignment statement or the redirections of a compound command. */
  readonly argv: ReadonlyArray<Word>
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: Word }>
  readonly redirects: ReadonlyArray<ReadRedirect>
}

export type GrammarReading =
  | { readonly ok: true; readonly commands: ReadonlyArray<ReadCommand> }
  | { readonly ok: false; readonly reason: string }

/** Thrown inside the reader when the text leaves the grammar; never escapes `readCommand`. */
export class OutsideGrammar extends Error {
  constructor(readonly reason: string) {
    super(reason)
  }
}
