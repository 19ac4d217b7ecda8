/** A process to start: what the shell spawner runs in place of `<shell> --noprofile --norc -c <command>`. */
export interface ShellInvocation {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

/** `'text'` for a POSIX shell, whatever the text holds. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
