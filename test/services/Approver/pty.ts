/**
 * A small driver for programs running in a pseudo-terminal (node-pty): collect output, wait for
 * text (bounded), type keys.
 */
import { Effect } from "effect"
import * as pty from "node-pty"
import * as path from "node:path"

export const ROOT = path.resolve(__dirname, "../../..")

export interface Terminal {
  readonly output: () => string
  readonly type: (text: string) => Effect.Effect<void>
  /** Waits until the output (after `from`) matches; fails after ~60 s (starting tsx on a loaded machine takes a while). */
  readonly waitFor: (pattern: RegExp, from?: number) => Effect.Effect<RegExpMatchArray, Error>
  readonly exited: Effect.Effect<number, Error>
}

/** Runs a TypeScript file under tsx in a pseudo-terminal; killed when the scope closes. */
export const runInPty = (script: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const proc = pty.spawn(process.execPath, ["--import", "tsx", script, ...args], {
        cwd: ROOT,
        cols: 220,
        rows: 60,
        env: { ...process.env, NO_COLOR: "1" } as Record<string, string>
      })
      let buffer = ""
      let exitCode: number | undefined
      proc.onData((d) => {
        buffer += d
      })
      proc.onExit((e) => {
        exitCode = e.exitCode
      })
      const poll = <A>(check: () => A | undefined, what: string) =>
        Effect.gen(function* () {
          for (let i = 0; i < 1200; i++) {
            const found = check()
            if (found !== undefined) return found
            yield* Effect.sleep("50 millis")
          }
          return yield* Effect.fail(new Error(`timed out waiting for ${what}; output so far:\n${buffer}`))
        })
      const terminal: Terminal = {
        output: () => buffer,
        type: (text) => Effect.sync(() => proc.write(text)),
        waitFor: (pattern, from = 0) => poll(() => buffer.slice(from).match(pattern) ?? undefined, String(pattern)),
        exited: poll(() => exitCode, "exit")
      }
      return { proc, terminal }
    }),
    ({ proc }) =>
      Effect.sync(() => {
        try {
          proc.kill()
        } catch {
          // already exited
        }
      })
  ).pipe(Effect.map(({ terminal }) => terminal))
