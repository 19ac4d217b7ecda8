/**
 * How a Bash call's command is handed to the shell: `<shell> --noprofile --norc -c ': && eval
 * <command>'`. bash then reads the command exactly as `-c <command>` would (the quoting below is
 * exact), but names parse errors as Claude Code's shell does (`/bin/bash: eval: line 1: …`); the
 * `:` before it keeps bash from treating the eval as the script's only command, which would drop
 * the `eval: line N:` part of those messages.
 */

/** `text` as one single-quoted shell word. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/** The shell's arguments (after its path) that run `command`. */
export const commandArgs = (command: string): ReadonlyArray<string> => [
  "--noprofile",
  "--norc",
  "-c",
  `: && eval ${shellQuote(command)}`
]
