/**
 * What the fault scenarios share: a project folder with a clean environment, the built CLI started
 * as a child process (so it can be killed at any moment, SIGKILL included), scripted sessions, and
 * processes found by a token in their command line (a command inside a PID namespace cannot report
 * its host pid, so each scenario marks its processes with a token of its own).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { BIN, cleanEnv } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

export { BIN } from "../services/Agent/cliSupport.js"

export interface Project {
  readonly dir: string
  readonly env: Record<string, string>
}

export const project = (extraEnv: Readonly<Record<string, string>> = {}): Project => {
  const dir = fs.realpathSync(tempDir("toolgate-faults-"))
  return { dir, env: cleanEnv(extraEnv) }
}

export interface Started {
  readonly child: ChildProcess
  readonly out: { stdout: string; stderr: string }
  /** The exit code, or 128 + n for a signal. */
  readonly exited: Promise<number>
}

/** Starts the built CLI in its own process group (so a test can also kill what it leaves). */
export const startCli = (p: Project, args: ReadonlyArray<string>, input = ""): Started => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: p.dir, env: p.env, stdio: ["pipe", "pipe", "pipe"] })
  const out = { stdout: "", stderr: "" }
  child.stdout!.on("data", (d: Buffer) => (out.stdout += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (out.stderr += d.toString()))
  child.stdin!.on("error", () => undefined)
  child.stdin!.end(input)
  const signals: Record<string, number> = { SIGKILL: 137, SIGTERM: 143, SIGINT: 130, SIGHUP: 129 }
  const exited = new Promise<number>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signals[signal ?? ""] ?? 255))
  )
  return { child, out, exited }
}

/** A token to mark a scenario's processes: `sleep <marker>` sleeps for about an hour. */
export const newMarker = (): string =>
  `3${String(randomBytes(4).readUInt32BE(0) % 1000).padStart(3, "0")}.${randomBytes(4).readUInt32BE(0)}`

/** The pids of live (not zombie) processes whose command line contains `token`. */
export const processesWith = (token: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (!cmdline.includes(token)) continue
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      if (state !== "Z" && state !== "X") found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Kills whatever a failed scenario left behind (the assertion already said so). */
export const killAll = (token: string): void => {
  for (const pid of processesWith(token)) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `ready()` holds; fails with the CLI's stderr when it exits first or takes too long. */
export const waitFor = async (ready: () => boolean, run: Started, what: string, timeoutMs = 60_000): Promise<void> => {
  const t0 = Date.now()
  while (!ready()) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      throw new Error(`the CLI ended before ${what}\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`)
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}\nstderr: ${run.out.stderr}`)
    await sleep(25)
  }
}

/** Waits (bounded) until no process carries `token` any more; returns those still alive. */
export const survivors = async (token: string, graceMs = 3_000): Promise<ReadonlyArray<number>> => {
  const t0 = Date.now()
  let left = processesWith(token)
  while (left.length > 0 && Date.now() - t0 < graceMs) {
    await sleep(50)
    left = processesWith(token)
  }
  return left
}

export type ScriptLine = Readonly<Record<string, unknown>>

export const bash = (id: string, command: string, extra: Readonly<Record<string, unknown>> = {}) => ({
  type: "tool_use",
  id,
  name: "Bash",
  input: { command, ...extra }
})

/** Writes a scripted session (`--replay`): the prompt, then one turn per element, then a final text. */
export const writeScript = (
  p: Project,
  turns: ReadonlyArray<ReadonlyArray<unknown>>,
  name = "script.jsonl"
): string => {
  const lines: Array<ScriptLine> = [
    { type: "user", text: "go" },
    ...turns.map((content) => ({ type: "turn", content, stop_reason: "tool_use" })),
    { type: "turn", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" }
  ]
  const file = path.join(p.dir, name)
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"))
  return file
}

/** The transcript's lines, parsed. */
export const transcriptLines = (sessionDir: string): ReadonlyArray<Record<string, unknown>> => {
  const file = path.join(sessionDir, "transcript.jsonl")
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>]
      } catch {
        return []
      }
    })
}

/** The lines a campaign's commands appended to `<dir>/log`, in order. */
export const logLines = (dir: string): ReadonlyArray<string> => {
  const file = path.join(dir, "log")
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []
}

/** A tool_result block's text, whether its content is a string or text blocks. */
export const resultText = (block: Readonly<Record<string, unknown>>): string =>
  typeof block.content === "string"
    ? block.content
    : Array.isArray(block.content)
    ? (block.content as Array<Record<string, unknown>>).map((b) => String(b.text ?? "")).join("")
    : ""
