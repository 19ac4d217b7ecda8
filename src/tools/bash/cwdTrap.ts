/**
 * Finds the directory a command ended in without changing the command: bash reads the file named
 * by BASH_ENV before running a `-c` string (even with --norc), and ours installs an EXIT trap that
 * writes the final directory to a file it names literally (a variable would let the command choose
 * where the trap writes). The script unsets BASH_ENV so that nested bash processes do not run it
 * too, and sends stderr into stdout: the command's output is one stream in the order it was
 * written, as in Claude Code.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** `text` as one double-quoted bash word. */
const doubleQuoted = (text: string): string => `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`

/** `text` inside a single-quoted bash string. */
const insideSingleQuotes = (text: string): string => text.replace(/'/g, `'\\''`)

const envScript = (cwdFile: string): string =>
  `unset BASH_ENV
exec 2>&1
trap '{ builtin pwd -L; builtin printf "\\0"; builtin pwd -P; } 2>/dev/null >| ${
    insideSingleQuotes(doubleQuoted(cwdFile))
  }' EXIT
`

export interface ShellTempDir {
  /** The variable that makes bash report its final directory. */
  readonly env: { readonly BASH_ENV: string }
  readonly cwdFile: string
}

/** A private temporary directory with the BASH_ENV script; removed when the scope closes. */
export const shellTempDir: Effect.Effect<ShellTempDir, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bash-"))
    const script = path.join(dir, "env.sh")
    const cwdFile = path.join(dir, "cwd")
    fs.writeFileSync(script, envScript(cwdFile), { mode: 0o600 })
    // made now, empty, so that a sandbox can bind it writable; empty reads as "not reported"
    fs.writeFileSync(cwdFile, "", { mode: 0o600 })
    return { dir, env: { BASH_ENV: script }, cwdFile }
  }),
  ({ dir }) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

export interface FinalCwd {
  /** `pwd -L`: the path as the command named it (symlinks kept). */
  readonly logical: string
  /** `pwd -P`: the real path. */
  readonly physical: string
}

/** The directory the shell ended in, or undefined when it did not say (exec, its own EXIT trap, a kill). */
export const readFinalCwd = (cwdFile: string): FinalCwd | undefined => {
  let text: string
  try {
    text = fs.readFileSync(cwdFile, "utf8")
  } catch {
    return undefined
  }
  const nul = text.indexOf("\0")
  if (nul === -1) return undefined
  const dropNewline = (s: string) => (s.endsWith("\n") ? s.slice(0, -1) : s)
  const logical = dropNewline(text.slice(0, nul))
  const physical = dropNewline(text.slice(nul + 1))
  if (!path.isAbsolute(physical)) return undefined
  return { logical: path.isAbsolute(logical) ? logical : physical, physical }
}
