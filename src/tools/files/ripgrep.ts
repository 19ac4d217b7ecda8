/**
 * Running ripgrep: found on PATH (once per PATH value), spawned with an argv array (never a
 * shell), with `--no-config` so no config file can add flags such as `--pre`, in a process group
 * of its own, and stopped — and waited for — when the calling fiber is interrupted. In a served
 * session it runs in the session's sandbox (`SearchSandbox`), where nothing outside the session's
 * directories exists: a symlink swapped in anywhere under the search leads nowhere.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { Effect } from "effect"
import { SearchSandbox } from "../../internal/searchSandbox.js"
import { ToolError } from "../../Errors.js"
import { forgetIfEmpty, killGroup, signalGroup, trackGroup } from "../../internal/processGroup.js"

let cache: { readonly pathValue: string; readonly rg: string | undefined } | undefined

export const findRipgrep = (): string | undefined => {
  const pathValue = process.env.PATH ?? ""
  if (cache?.pathValue === pathValue) return cache.rg
  let rg: string | undefined
  for (const dir of pathValue.split(path.delimiter)) {
    if (dir === "") continue
    const candidate = path.join(dir, "rg")
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) {
        rg = candidate
        break
      }
    } catch {
      // not here
    }
  }
  cache = { pathValue, rg }
  return rg
}

export interface RipgrepOutput {
  readonly exitCode: number | null
  readonly stdout: Buffer
  readonly stderr: string
  /** True when the process was stopped because enough output had arrived. */
  readonly stoppedEarly: boolean
}

const MAX_STDOUT_BYTES = 256 * 1024 * 1024
/** ripgrep ends at once on SIGTERM; the grace only matters if it does not. */
const KILL_GRACE_MS = 500

/**
 * Runs `rg args` in `cwd`. `enoughLines`, when given, stops ripgrep once that many newline- (or
 * NUL-) terminated records have arrived.
 */
export const runRipgrep = (
  rg: string,
  args: ReadonlyArray<string>,
  cwd: string,
  enough?: { readonly records: number; readonly separator: 10 | 0 }
): Effect.Effect<RipgrepOutput, ToolError> =>
  Effect.flatMap(SearchSandbox, (sandbox) => {
    if (sandbox === undefined) {
      const env = { ...process.env }
      delete env.RIPGREP_CONFIG_PATH
      return spawnRipgrep(rg, args, { cwd, env }, enough)
    }
    return Effect.scoped(
      sandbox({ argv: [rg, ...args], cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } }).pipe(
        Effect.mapError((e) => new ToolError({ reason: `Failed to run ripgrep in the sandbox: ${e.reason}` })),
        Effect.flatMap((invocation) =>
          invocation === undefined
            ? Effect.fail(new ToolError({ reason: "Failed to run ripgrep: no sandbox to run it in" }))
            : spawnRipgrep(invocation.file, invocation.args, { cwd: "/", env: invocation.env }, enough)
        )
      )
    )
  })

const spawnRipgrep = (
  file: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
  enough?: { readonly records: number; readonly separator: 10 | 0 }
): Effect.Effect<RipgrepOutput, ToolError> =>
  Effect.async<RipgrepOutput, ToolError>((resume) => {
    // its own process group, like every process toolgate starts (see processGroup.ts)
    const child = spawn(file, [...args], { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true })
    trackGroup(child.pid)
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    let outBytes = 0
    let records = 0
    let stoppedEarly = false
    let exited = false
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
    child.stdout.on("data", (chunk: Buffer) => {
      if (stoppedEarly) return
      out.push(chunk)
      outBytes += chunk.length
      if (enough !== undefined) { for (const byte of chunk) if (byte === enough.separator) records++ }
      if ((enough !== undefined && records >= enough.records) || outBytes > MAX_STDOUT_BYTES) {
        stoppedEarly = true
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL")
      }
    })
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.once("error", (error) => {
      exited = true
      resume(Effect.fail(new ToolError({ reason: `Failed to run ripgrep: ${error.message}` })))
    })
    child.once("close", (code) => {
      exited = true
      if (child.pid !== undefined) forgetIfEmpty(child.pid)
      resume(
        Effect.succeed({
          exitCode: code,
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err).toString("utf8"),
          stoppedEarly
        })
      )
    })
    return Effect.suspend(() =>
      exited || child.pid === undefined
        ? Effect.void
        : killGroup(child.pid, KILL_GRACE_MS).pipe(Effect.zipRight(Effect.promise(() => closed)))
    )
  })
