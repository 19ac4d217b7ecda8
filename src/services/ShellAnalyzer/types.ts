/**
 * The contract between the shell analyzer (parse a Bash command into simple commands, judge them
 * fail-closed) and the Permissions stage.
 */
import type { PermissionMode, PermissionRule } from "../../Permission.js"

/** A word whose value is unknown at check time (an expansion, a substitution). */
export interface Dynamic {
  readonly dynamic: true
  readonly text: string
}
export type Word = string | Dynamic

export interface Redirect {
  readonly op: string
  readonly fd?: number
  readonly target: Word
}

/** One simple command as bash would run it, with its words resolved. */
export interface SimpleCommand {
  readonly argv: ReadonlyArray<Word>
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: Word }>
  readonly redirects: ReadonlyArray<Redirect>
  /** Where it was found: the top level, inside `$( )`/backticks/`<( )`, a nested `bash -c`/`eval`, or inside a wrapper. */
  readonly origin: "top" | "substitution" | "nested-shell" | "wrapper-inner"
  /** Its source text, for messages and rule suggestions. */
  readonly text: string
}

export type CommandAnalysis =
  | { readonly kind: "simple"; readonly commands: ReadonlyArray<SimpleCommand> }
  | {
    readonly kind: "tooComplex"
    readonly reason: string
    /** Every command that could still be seen (for the deny scan). */
    readonly visibleCommands: ReadonlyArray<SimpleCommand>
  }

/** Verdict of a path check for a redirect target or a file argument. */
export interface PathVerdict {
  readonly behavior: "allow" | "ask" | "deny"
  readonly reason: string
  readonly rule?: PermissionRule
  /** Every name of the path (as given, after each symlink hop, real) is inside a working directory. */
  readonly within: boolean
  /** The protected name (`.git`, `.bashrc`, …) some name of the path runs into. */
  readonly protectedName?: string
}

export interface BashCheckContext {
  /** Bash rules only (toolName "Bash"), every behavior, with sources. */
  readonly rules: ReadonlyArray<PermissionRule>
  readonly mode: PermissionMode
  /** The directory the command runs in. */
  readonly cwd: string
  readonly workingDirectories: ReadonlyArray<string>
  /** Judges a write to a path (redirect targets; acceptEdits file commands): Edit rules, protected paths, working dirs. */
  readonly checkWritePath: (absolutePath: string) => PathVerdict
  /** Judges a read of a path (file commands recognised in Bash, e.g. `cat .env`): Read deny rules. */
  readonly checkReadPath: (absolutePath: string) => PathVerdict
  /**
   * Read or Edit deny rules exist: a file path that cannot be checked (only known at run time, a
   * glob over directories, after a `cd` to an unknown place) asks whatever allows Bash, so that
   * no allow rule or mode can carry a command past a deny rule.
   */
  readonly pathDenyRules?: boolean
}
