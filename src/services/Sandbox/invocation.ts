/** A process to start: what the shell spawner runs in place of the shell itself (src/internal/shellScript.ts). */
export interface ShellInvocation {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

export { shellQuote } from "../../internal/shellScript.js"
