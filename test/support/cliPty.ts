/**
 * The built CLI in a pseudo-terminal (node-pty), for the terminal's behaviour end to end: the
 * screen as text (escape sequences and carriage returns removed, or raw), waiting for text with a
 * generous bound, typing keys, and the exit code. `close()` kills it if it is still running.
 */
import { BIN, stripAnsi } from "../services/Agent/cliSupport.js"

export interface CliPty {
  /** Everything written so far, escape sequences removed. */
  readonly screen: () => string
  /** Everything written so far, as written. */
  readonly raw: () => string
  readonly type: (keys: string) => void
  /** Resolves with the offset after the first match of `re` in the screen after `from`. */
  readonly waitFor: (re: RegExp, from?: number, ms?: number) => Promise<number>
  readonly exited: Promise<number>
  readonly close: () => void
}

export const spawnCliPty = async (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env: Record<string, string>
    readonly cols?: number
    readonly rows?: number
  }
): Promise<CliPty> => {
  const pty = await import("node-pty")
  const child = pty.spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    cols: options.cols ?? 160,
    rows: options.rows ?? 50,
    env: options.env
  })
  let out = ""
  child.onData((d) => {
    out += d
  })
  const exited = new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)))
  let done = false
  void exited.then(() => (done = true))
  const waitFor = (re: RegExp, from = 0, ms = 60_000) =>
    new Promise<number>((resolve, reject) => {
      const t0 = Date.now()
      const timer = setInterval(() => {
        const text = stripAnsi(out)
        const m = re.exec(text.slice(from))
        if (m !== null) {
          clearInterval(timer)
          resolve(from + m.index + m[0].length)
        } else if (Date.now() - t0 > ms) {
          clearInterval(timer)
          reject(new Error(`timed out waiting for ${re}; screen:\n${text}`))
        }
      }, 25)
    })
  return {
    screen: () => stripAnsi(out),
    raw: () => out,
    type: (keys) => child.write(keys),
    waitFor,
    exited,
    close: () => {
      if (done) return
      try {
        process.kill(child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
  }
}
