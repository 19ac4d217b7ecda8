/**
 * Runs commands in real bash with stub programs that record the argv bash gives them, each
 * command in a scratch folder of its own, and reports what ran and which files appeared.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** HOME of every run (a tilde expands to it). */
export const STUB_HOME = "/nonexistent-home"

export interface BashRun {
  /** The argv of each stub run (its name first). */
  readonly runs: ReadonlyArray<ReadonlyArray<string>>
  /** Files the command created in its folder, sorted. */
  readonly created: ReadonlyArray<string>
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * Each stub writes its name and arguments to a file of its own under `$STUB_LOG` (a pipeline runs
 * them in subshells at once; a counter tells runs of one shell apart). Functions cost no process:
 * bash expands their words exactly as for a program.
 */
const stubFunctions = (names: ReadonlyArray<string>): string =>
  [
    `__record() { printf '%s\\0' "$(($# - 1))" "$@" > "$STUB_LOG/$1.$BASHPID.$((++__runs))"; }`,
    ...names.map((name) => `${name}() { __record ${name} "$@"; }`)
  ].join("\n")

const readRuns = (logDir: string): Array<Array<string>> =>
  fs.readdirSync(logDir).map((file) => {
    const fields = fs.readFileSync(path.join(logDir, file), "utf8").split("\u0000")
    return fields.slice(1, 2 + Number(fields[0]))
  })

/** Runs each command in a bash of its own (a syntax error in one must not hide the others). */
export const runWithStubs = (stubs: ReadonlyArray<string>, commands: ReadonlyArray<string>): Array<BashRun> => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-stubs-")))
  try {
    const emptyBin = path.join(root, "empty-bin")
    fs.mkdirSync(emptyBin)
    const dirs = commands.map((_, i) => {
      const dir = path.join(root, `c${i}`)
      fs.mkdirSync(path.join(dir, "log"), { recursive: true })
      fs.mkdirSync(path.join(dir, "work"))
      return dir
    })
    // The stubs come from BASH_ENV, as toolgate's own start-up script does; each command runs as
    // `bash -c COMMAND`, exactly as toolgate runs it, in a bash of its own.
    const stubsFile = path.join(root, "stubs.sh")
    fs.writeFileSync(stubsFile, `${stubFunctions(stubs)}\n`)
    const script = commands
      .map((command, i) => {
        const file = path.join(dirs[i]!, "command")
        fs.writeFileSync(file, command)
        const env = `STUB_LOG=${quote(path.join(dirs[i]!, "log"))} BASH_ENV=${quote(stubsFile)}`
        // `$(cat)` would drop trailing newlines: the x keeps them.
        const text = `__command=$(cat ${quote(file)}; printf x); __command=\${__command%x}`
        return `(cd ${
          quote(path.join(dirs[i]!, "work"))
        } && ${text} && ${env} /bin/bash --noprofile --norc -c "$__command") </dev/null >/dev/null 2>&1`
      })
      .join("\n")
    const scriptFile = path.join(root, "all.sh")
    fs.writeFileSync(scriptFile, script)
    const result = spawnSync("/bin/bash", ["--noprofile", "--norc", scriptFile], {
      env: { PATH: `${emptyBin}:/usr/bin:/bin`, HOME: STUB_HOME, LC_ALL: "C" },
      cwd: root,
      encoding: "utf8",
      timeout: 20_000 + commands.length * 200
    })
    if (result.error !== undefined) throw result.error
    return dirs.map((dir) => ({
      runs: readRuns(path.join(dir, "log")),
      created: fs.readdirSync(path.join(dir, "work")).sort()
    }))
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
