/**
 * Whether served sessions can be sandboxed here: the machine's sandbox as detected for every
 * runtime, then a trial run of the served profile itself (its own namespaces and mounts), since a
 * machine may start the read-only profile and still refuse this one.
 */
import { Config, Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { SandboxStatus } from "../Sandbox.js"
import { detectSandbox } from "./detect.js"
import { servedInvocation } from "./served.js"

const trial = (
  status: Extract<SandboxStatus, { _tag: "Available" }>,
  hidden: string
): Effect.Effect<string | undefined> =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-served-trial-"))),
    (dir) =>
      Effect.async<string | undefined>((resume) => {
        const scratch = path.join(dir, "scratch")
        const work = path.join(dir, "work")
        fs.mkdirSync(scratch)
        fs.mkdirSync(work)
        const invocation = servedInvocation(
          {
            bwrapPath: status.bwrapPath,
            seccompHelper: status.seccompHelper,
            workingDirectories: [work],
            readOnly: [],
            hidden: [hidden],
            network: false
          },
          {
            argv: ["/bin/sh", "-c", "test -d \"$TMPDIR\" && touch ./probe"],
            cwd: work,
            env: { PATH: "/usr/bin:/bin", TMPDIR: scratch },
            scratch,
            writable: true
          }
        )
        const child = execFile(
          invocation.file,
          [...invocation.args],
          { env: invocation.env, timeout: 10_000 },
          (error, _stdout, stderr) => {
            if (error !== null) resume(Effect.succeed(String(stderr).trim().split("\n")[0] || error.message))
            else {resume(Effect.succeed(
                fs.existsSync(path.join(work, "probe"))
                  ? undefined
                  : "the trial command could not write its working directory"
              ))}
          }
        )
        return Effect.sync(() => void child.kill("SIGKILL"))
      }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** The machine's sandbox when the served profile starts on it, else why not. */
export const servedSandbox = (stateDir: string): Effect.Effect<SandboxStatus> =>
  Effect.gen(function*() {
    const searchPath = yield* Config.string("PATH").pipe(
      Config.withDefault("/usr/local/bin:/usr/bin:/bin"),
      Effect.orElseSucceed(() => "/usr/local/bin:/usr/bin:/bin")
    )
    const bwrapPath = yield* Config.option(Config.string("TOOLGATE_BWRAP_PATH")).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    const status = yield* detectSandbox({
      searchPath,
      ...(bwrapPath?._tag === "Some" ? { bwrapPath: bwrapPath.value } : {})
    })
    if (status._tag === "Unavailable") return status
    const failure = yield* trial(status, stateDir)
    return failure === undefined
      ? status
      : { _tag: "Unavailable", reason: `the served sandbox does not start: ${failure}` }
  })
