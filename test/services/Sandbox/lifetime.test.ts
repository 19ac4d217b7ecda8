/**
 * A sandboxed command stopped while bubblewrap is still setting up must not outlive the stop: the
 * group signal has to reach every bubblewrap process, not only the outer one (an inner one in a
 * session of its own missed it, never got its parent-death signal either, and ran on as an orphan
 * holding the call's output pipe open).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawnSync } from "node:child_process"
import { killGroup } from "../../../src/internal/processGroup.js"
import { spawnShell } from "../../../src/tools/bash/spawnShell.js"
import { readOnlyInvocation } from "../../../src/services/Sandbox/readOnly.js"
import { servedInvocation } from "../../../src/services/Sandbox/served.js"
import type { ShellInvocation } from "../../../src/services/Sandbox/invocation.js"

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => fs.existsSync(p))
const works = bwrap !== undefined &&
  spawnSync(bwrap, ["--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true"]).status === 0

/** Processes whose command line holds `token` (zombies excluded). */
const processesWith = (token: string): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      return cmdline.includes(token) && state !== "Z" ? [Number(pid)] : []
    } catch {
      return []
    }
  })

const profiles: ReadonlyArray<readonly [string, (argv: ReadonlyArray<string>, cwd: string) => ShellInvocation]> = [
  [
    "read-only",
    (argv, cwd) =>
      readOnlyInvocation({
        bwrapPath: bwrap!,
        seccompHelper: undefined,
        cwd,
        writable: [],
        hidden: { directories: [], files: [] },
        env: { PATH: "/usr/bin:/bin" },
        argv
      })
  ],
  [
    "served",
    (argv, cwd) =>
      servedInvocation(
        {
          bwrapPath: bwrap!,
          seccompHelper: undefined,
          workingDirectories: [cwd],
          readOnly: [],
          hidden: [],
          network: false
        },
        { argv, cwd, env: { PATH: "/usr/bin:/bin" }, scratch: cwd, writable: true }
      )
  ]
]

describe.skipIf(!works)("a sandboxed command stopped while it starts", () => {
  for (const [name, invocationOf] of profiles) {
    it.live(`${name}: leaves no process behind and closes its output`, () =>
      Effect.gen(function*() {
        const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lifetime-"))
        const token = `toolgate-lifetime-${process.pid}-${name}`
        const command = `exec -a ${token} sleep 30`
        const left: Array<number> = []
        let unclosed = 0
        for (let trial = 0; trial < 20; trial++) {
          const child = yield* spawnShell(
            {
              shell: "/bin/bash",
              command,
              cwd,
              env: { PATH: "/usr/bin:/bin" },
              output: "pipe",
              invocation: invocationOf(["/bin/bash", "-c", command], cwd)
            },
            (c) => c
          )
          const closed = new Promise<void>((resolve) => child.stdout!.on("close", resolve).resume())
          yield* Effect.sleep(`${trial % 10} millis`)
          yield* killGroup(child.pid!, 200)
          const ended = yield* Effect.promise(() =>
            Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))])
          )
          if (!ended) unclosed++
        }
        yield* Effect.sleep("300 millis")
        left.push(...processesWith(token))
        for (const pid of left) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // gone
          }
        }
        fs.rmSync(cwd, { recursive: true, force: true })
        expect({ left: left.length, unclosed }).toEqual({ left: 0, unclosed: 0 })
      }), 120_000)
  }
})
