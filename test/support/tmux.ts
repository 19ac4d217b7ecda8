/**
 * The built CLI in a tmux session of its own (a private server socket), for what a person sees:
 * `screen()` is tmux's rendering of the terminal (cursor moves and erasures applied), so a test
 * can tell a line redrawn in place from lines appended. The server is killed on `close()`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { BIN } from "../services/Agent/cliSupport.js"

export interface TmuxCli {
  readonly screen: () => string
  readonly keys: (...keys: ReadonlyArray<string>) => void
  /** Polls the screen until `test` holds (bounded); returns that screen. */
  readonly waitFor: (test: (screen: string) => boolean, what: string, ms?: number) => Promise<string>
  /** The exit code, once the command ended (the pane stays). */
  readonly exitCode: () => number | undefined
  readonly close: () => void
}

let sessions = 0

export const startTmuxCli = (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env: Record<string, string>
    readonly cols?: number
    readonly rows?: number
  }
): TmuxCli => {
  const socket = `toolgate-test-${process.pid}-${++sessions}`
  const exitFile = path.join(options.cwd, `.tmux-exit-${sessions}`)
  const tmux = (...a: ReadonlyArray<string>) => spawnSync("tmux", ["-L", socket, ...a], { encoding: "utf8" })
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const envs = Object.entries(options.env).map(([k, v]) => `${k}=${quote(v)}`)
  const command = `cd ${quote(options.cwd)} && env -i ${envs.join(" ")} ${quote(process.execPath)} ${quote(BIN)} ${
    args.map(quote).join(" ")
  }; echo $? > ${quote(exitFile)}`
  const started = tmux(
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-s",
    "t",
    "-x",
    String(options.cols ?? 140),
    "-y",
    String(options.rows ?? 40),
    "sh",
    "-c",
    command
  )
  if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`)
  tmux("set-option", "-t", "t", "remain-on-exit", "on")
  const screen = () => tmux("capture-pane", "-p", "-t", "t").stdout
  return {
    screen,
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    waitFor: (test, what, ms = 60_000) =>
      new Promise((resolve, reject) => {
        const t0 = Date.now()
        const timer = setInterval(() => {
          const now = screen()
          if (test(now)) {
            clearInterval(timer)
            resolve(now)
          } else if (Date.now() - t0 > ms) {
            clearInterval(timer)
            reject(new Error(`timed out waiting for ${what}; screen:\n${now}`))
          }
        }, 50)
      }),
    exitCode: () => (fs.existsSync(exitFile) ? Number(fs.readFileSync(exitFile, "utf8").trim()) : undefined),
    close: () => void tmux("kill-server")
  }
}
