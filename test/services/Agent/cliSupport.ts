/**
 * Running the built CLI (`node dist/toolgate.cjs`, or TOOLGATE_TEST_BIN) as a child process with a
 * clean environment (no inherited API key, a temporary HOME), and in a pseudo-terminal.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cliInProcess } from "../../support/cliInProcess.js"

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..")
export const BIN = path.resolve(ROOT, process.env.TOOLGATE_TEST_BIN ?? "dist/toolgate.cjs")

export const cleanEnv = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value === undefined || key.startsWith("ANTHROPIC_") || key.startsWith("TOOLGATE_") || key.startsWith("CLAUDE_")
    ) continue
    env[key] = value
  }
  // a HOME of the caller's, or a fresh one
  const home = extra.HOME ?? fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-home-"))
  return { ...env, HOME: home, CLAUDE_CONFIG_DIR: path.join(home, ".claude"), NO_COLOR: "1", ...extra }
}

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  readonly cwd?: string
  readonly env?: Record<string, string>
  readonly input?: string
  readonly timeoutMs?: number
}

/** Runs a program without blocking the event loop (the fake server lives in this process); killed after the timeout. */
export const runProgram = (file: string, args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, "SIGKILL")
      reject(new Error(`${path.basename(file)} ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })

/** Runs the built CLI (see runProgram). */
export const runCli = (args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Ran> =>
  runProgram(process.execPath, [BIN, ...args], options)

/**
 * Runs the same command in this process (test/support/cliInProcess.ts): a tenth of the CPU of
 * starting the CLI. For what a command does; what only a process shows (signals, terminals,
 * start-up, the bundle, streams at the file-descriptor level) needs runCli.
 */
export const runCliInProcess = (args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Ran> =>
  Effect.runPromise(
    cliInProcess(args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv(),
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.input === undefined ? {} : { input: options.input })
    })
  ).then((ran) => {
    if (ran.timedOut) {
      throw new Error(`toolgate ${args.join(" ")} timed out\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`)
    }
    return { code: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr }
  })

export const copyExample = (): { readonly work: string; readonly project: string } => {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-e2e-")))
  const project = path.join(work, "project")
  fs.cpSync(path.join(ROOT, "examples", "project"), project, { recursive: true })
  return { work, project }
}

export const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "")
