/**
 * What the model (and the person asked) reads when a Bash command is denied or needs approval,
 * in Claude Code 2.1.332's words (recorded in conformance/scenarios/permissions-bash-*).
 * One place, so that the checks never drift from each other.
 */
import { escapeForDisplay } from "./hygiene.js"

export const GENERIC_ASK = "This command requires approval"

/** A command that does not parse (and has no expansion to name instead). */
export const PARSE_ERROR = "Parse error"

/** A `$` expansion left open (`${x`, `$(cmd`): asked in every mode, bypassPermissions included. */
export const UNSURE_READING =
  "Claude Code can't be sure it read this command the way the shell will, so it can't rule out a dangerous removal. This requires explicit approval. A command that deletes nothing can be sent again in plain syntax that bash and zsh both read, and that is not a workaround. A command that deletes anything, by rm or any other means, needs the user: do not send that part again."

/** When nothing at all can be checked (an empty command). */
export const TOOL_ASK = "Claude requested permissions to use Bash, but you haven't granted it yet."

export const denied = (command: string): string =>
  `Permission to use Bash with command ${escapeForDisplay(command)} has been denied.`

export const compound = (parts: ReadonlyArray<string>): string =>
  `This Bash command contains multiple operations. The following part${parts.length === 1 ? "" : "s"} require${
    parts.length === 1 ? "s" : ""
  } approval: ${parts.map(escapeForDisplay).join(", ")}`

/** `('a', 'b')`, as the write messages list the working directories. */
const listed = (dirs: ReadonlyArray<string>): string => dirs.map((d) => `'${d}'`).join(", ")

const INSIDE_TAIL = (dirs: ReadonlyArray<string>) =>
  `The path is inside the working directories for this session (${
    listed(dirs)
  }), and Claude Code asks before a shell command creates, changes or removes files there.`
const OUTSIDE_TAIL = (dirs: ReadonlyArray<string>) =>
  `The path is outside the working directories for this session (${
    listed(dirs)
  }). Allowing runs the command as written.`

/** A command that writes files (`touch`, `rm`, `cp`, `sed -i`, …) at `path`. */
export const fileCommand = (command: string, path: string, inside: boolean, dirs: ReadonlyArray<string>): string =>
  `${command} in '${escapeForDisplay(path)}' needs approval. ${inside ? INSIDE_TAIL(dirs) : OUTSIDE_TAIL(dirs)}`

export const outputRedirection = (path: string, inside: boolean, dirs: ReadonlyArray<string>): string =>
  `Output redirection to '${escapeForDisplay(path)}' needs approval. ${inside ? INSIDE_TAIL(dirs) : OUTSIDE_TAIL(dirs)}`

export const SHELL_EXPANSION_IN_PATH = "Shell expansion syntax in paths requires manual approval"

export const GLOB_IN_WRITE = "Glob patterns are not allowed in write operations. Please specify an exact file path."

export const withFlags = (command: "cp" | "mv"): string =>
  `${command} with flags requires manual approval to ensure path safety. For security, Claude Code cannot automatically validate ${command} commands that use flags, as some flags like --target-directory=PATH can bypass path validation.`

export const CD_AND_WRITE =
  "Commands that change directories and perform write operations require explicit approval to ensure paths are evaluated correctly. For security, Claude Code cannot automatically determine the final working directory when 'cd' is used in compound commands."

/** What each read-only command does, in the words of the "was blocked" message. */
const READ_VERBS: Readonly<Record<string, string>> = {
  cat: "concatenate files from",
  ls: "list files in",
  head: "read the beginning of files from",
  tail: "read the end of files from",
  tac: "read files (reversed) from",
  grep: "search for patterns in files from",
  egrep: "search for patterns in files from",
  fgrep: "search for patterns in files from",
  rg: "search for patterns in files from",
  wc: "count lines/words/bytes in files from",
  cd: "change directories to",
  find: "search files in",
  stat: "read file stats from",
  file: "examine file types in",
  diff: "compare files from",
  sort: "sort contents of files from",
  uniq: "filter duplicate lines from files in",
  jq: "process JSON from files in",
  awk: "process text from files in",
  sed: "edit files in",
  cut: "extract columns from files in",
  nl: "number lines in files from",
  od: "display octal dump of files from",
  strings: "extract strings from files in",
  md5sum: "compute MD5 checksums for files in",
  sha256sum: "compute SHA-256 checksums for files in",
  git: "access files with git from"
}

/** A read-only command reading outside the working directories; undefined when it has no wording. */
export const readOutside = (command: string, path: string, dirs: ReadonlyArray<string>): string | undefined => {
  const verb = READ_VERBS[command]
  return verb === undefined
    ? undefined
    : `${command} in '${
      escapeForDisplay(path)
    }' was blocked. For security, Claude Code may only ${verb} the allowed working directories for this session: ${
      listed(dirs)
    }.`
}

/** A file read through `<` outside the working directories. */
export const inputOutside = (path: string, dirs: ReadonlyArray<string>): string =>
  `Input redirection from '${
    escapeForDisplay(path)
  }' was blocked. For security, Claude Code may only read files in the allowed working directories for this session: ${
    listed(dirs)
  }.`

/** Why an expansion keeps the command from being checked, by the kind of the first one. */
export const expansionAsk = (reasons: ReadonlyArray<string>): string | undefined => {
  for (const reason of reasons) {
    if (/a command substitution inside a string/.test(reason)) {
      return "Quoted text in this command can't be checked before it runs"
    }
    if (/unquoted command substitution/.test(reason)) {
      return "A nested command in this command can't be checked before it runs"
    }
    // Claude Code reads the session's own variables in "…" (`"$USER"`) as quoted text, others as variables.
    if (/expansion \$(?:USER|PWD|LOGNAME|SHELL) inside a string/.test(reason)) {
      return "Quoted text in this command can't be checked before it runs"
    }
    if (/expansion \$\{/.test(reason)) return "A variable in braces in this command can't be checked before it runs"
    if (/expansion \$|a command name that is not a literal/.test(reason)) {
      return "A variable in this command can't be checked before it runs"
    }
  }
  return undefined
}

/** `rm`/`rmdir` of a working directory (or a parent of one) or of a system directory. */
export const dangerousRemoval = (command: string, path: string, workspace: boolean): string =>
  `Dangerous ${command} operation detected: '${escapeForDisplay(path)}'\n\nThis command would remove ${
    workspace
      ? "a workspace directory (the working directory, an additional working directory, or one of their parent directories)"
      : "a critical system directory"
  }. This requires explicit approval and cannot be auto-allowed by permission rules.`

export const sensitiveFile = (path: string): string =>
  `Claude requested permissions to edit ${escapeForDisplay(path)} which is a sensitive file.`

export const writeTo = (path: string): string =>
  `Claude requested permissions to write to ${escapeForDisplay(path)}, but you haven't granted it yet.`
