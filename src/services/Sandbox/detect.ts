/**
 * Finds out once what can sandbox commands here: Linux with a bubblewrap that really starts a
 * read-only, network-less sandbox (a trial run of `true`, since bwrap may be installed and still
 * fail: no user namespaces, no CAP_SETFCAP for root, a seccomp policy of a container), the seccomp
 * helper shipped with @anthropic-ai/sandbox-runtime (it blocks Unix sockets), and the tools the
 * settings profile needs (socat for its network filter, ripgrep).
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { findSeccompHelper } from "./runtimePackage.js"
import { readOnlyInvocation } from "./readOnly.js"
import type { SandboxStatus } from "./status.js"

export interface DetectOptions {
  /** The PATH to look programs up in. */
  readonly searchPath: string
  /** Use this bwrap instead of the one on PATH. */
  readonly bwrapPath?: string
  readonly platform?: NodeJS.Platform
}

/** An executable named `name` on `searchPath`, or undefined. */
export const findProgram = (name: string, searchPath: string): string | undefined => {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly error?: string
}

const run = (file: string, args: ReadonlyArray<string>, env?: NodeJS.ProcessEnv): Effect.Effect<Ran> =>
  Effect.async<Ran>((resume) => {
    const child = execFile(
      file,
      [...args],
      { timeout: 10_000, env: env ?? process.env, cwd: "/" },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resume(
          Effect.succeed({
            code,
            stdout: String(stdout),
            stderr: String(stderr),
            ...(error !== null && code === null ? { error: error.message } : {})
          })
        )
      }
    )
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

const firstLine = (text: string): string => text.trim().split("\n")[0] ?? ""

/** Starts the read-only profile on `true`: undefined when it works, else what bwrap said. */
const trial = (bwrapPath: string, seccompHelper: string | undefined): Effect.Effect<string | undefined> => {
  const invocation = readOnlyInvocation({
    bwrapPath,
    seccompHelper,
    cwd: "/",
    writable: [],
    hidden: { directories: [], files: [] },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    argv: ["/bin/sh", "-c", "exit 0"]
  })
  return Effect.map(
    run(invocation.file, invocation.args, invocation.env),
    (r) => r.code === 0 ? undefined : firstLine(r.stderr) || r.error || `exit code ${r.code}`
  )
}

export const detectSandbox = (options: DetectOptions): Effect.Effect<SandboxStatus> =>
  Effect.gen(function*() {
    const platform = options.platform ?? process.platform
    if (platform !== "linux") {
      return {
        _tag: "Unavailable",
        reason: `toolgate sandboxes commands with bubblewrap on Linux; this is ${platform}`
      } as const
    }
    const bwrapPath = options.bwrapPath ?? findProgram("bwrap", options.searchPath)
    if (bwrapPath === undefined) return { _tag: "Unavailable", reason: "bubblewrap (bwrap) is not installed" } as const
    const version = yield* run(bwrapPath, ["--version"])
    if (version.code !== 0) {
      return {
        _tag: "Unavailable",
        reason: `${bwrapPath} --version failed: ${
          firstLine(version.stderr) || version.error || `exit code ${version.code}`
        }`
      } as const
    }
    const helper = findSeccompHelper()
    let seccompHelper: string | undefined = helper
    let failure = yield* trial(bwrapPath, helper)
    if (failure !== undefined && helper !== undefined) {
      // the helper needs a nested user namespace; without it the sandbox still holds, Unix sockets aside
      const plain = yield* trial(bwrapPath, undefined)
      if (plain === undefined) {
        seccompHelper = undefined
        failure = undefined
      }
    }
    if (failure !== undefined) {
      return { _tag: "Unavailable", reason: `bubblewrap cannot start a sandbox here: ${failure}` } as const
    }
    return {
      _tag: "Available",
      mechanism: "bubblewrap",
      version: firstLine(version.stdout),
      bwrapPath,
      seccompHelper,
      socatPath: findProgram("socat", options.searchPath),
      ripgrepPath: findProgram("rg", options.searchPath)
    } as const
  })
