/**
 * A small driver for programs running in a pseudo-terminal (node-pty): collect output, wait for
 * text (bounded), type keys.
 */
import { Effect } from "effect"
import { build } from "esbuild"
import * as pty from "node-pty"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const ROOT = path.resolve(__dirname, "../../..")

let bundleDir: string | undefined
const bundles = new Map<string, Promise<string>>()

/** Packages with native code or files of their own next to them: loaded from node_modules. */
const EXTERNAL = ["node-pty", "web-tree-sitter", "tree-sitter-bash", "better-sqlite3"]

/**
 * The TypeScript file and what it imports, bundled once per test process into one CommonJS file:
 * starting it is a plain `node` start instead of tsx compiling the stages (and node resolving
 * effect's modules) at every run.
 */
const bundled = (script: string): Promise<string> => {
  const known = bundles.get(script)
  if (known !== undefined) return known
  bundleDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pty-"))
  const outfile = path.join(bundleDir, `${bundles.size}-${path.basename(script, ".ts")}.cjs`)
  const made = build({
    entryPoints: [script],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: EXTERNAL,
    logLevel: "error"
  }).then(() => outfile)
  bundles.set(script, made)
  return made
}

export interface Terminal {
  readonly output: () => string
  readonly type: (text: string) => Effect.Effect<void>
  /** Waits until the output (after `from`) matches; fails after ~60 s (a start on a loaded machine takes a while). */
  readonly waitFor: (pattern: RegExp, from?: number) => Effect.Effect<RegExpMatchArray, Error>
  readonly exited: Effect.Effect<number, Error>
}

/** Removes the bundles made so far: a test file that runs programs in a pseudo-terminal calls it in `afterAll`. */
export const removeBundles = (): void => {
  if (bundleDir !== undefined) fs.rmSync(bundleDir, { recursive: true, force: true })
  bundleDir = undefined
  bundles.clear()
}

/** Runs a TypeScript file (bundled) with node in a pseudo-terminal; killed when the scope closes. */
export const runInPty = (script: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.map(Effect.promise(() => bundled(script)), (file) => {
      const proc = pty.spawn(process.execPath, [file, ...args], {
        cwd: ROOT,
        cols: 220,
        rows: 60,
        // the bundle lives in a temporary directory: its external packages resolve from the project's
        env: { ...process.env, NO_COLOR: "1", NODE_PATH: path.join(ROOT, "node_modules") } as Record<string, string>
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
        Effect.gen(function*() {
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
