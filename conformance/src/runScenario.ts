/**
 * One program run on one scenario: fresh folders, a fake Messages API playing the script, the
 * program as a process group of its own (killed whole when it exits, times out or is
 * interrupted, so background shells never outlive the run), then what it sent the model and the
 * files it left. Everything is released when the run ends.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as FakeMessagesApi from "./FakeMessagesApi.js"
import { makeLayout, populate, snapshot, substitute, type FileEntry, type LayoutError } from "./layout.js"
import { normaliser, readConversation, type Conversation } from "./observe.js"
import { commandOf, envOf, MARKER, type Command, type Program } from "./programs.js"
import { resultSteps, scriptOf, type Scenario } from "./Scenario.js"

export interface ProcessOutcome {
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
  readonly wallMs: number
}

export interface Observation extends Conversation, ProcessOutcome {
  readonly files: Record<string, FileEntry>
}

const killGroup = (pid: number | undefined) => {
  if (pid === undefined) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // the group is gone
  }
}

export interface LaunchOptions {
  readonly cwd: string
  readonly env: Record<string, string>
  readonly timeoutMs: number
}

/** How a program's command is started and waited for. */
export type Launcher = (command: Command, options: LaunchOptions) => Effect.Effect<ProcessOutcome>

/** The program as a process group of its own. */
export const runProcess: Launcher = ({ file, args }, options) =>
  Effect.async<ProcessOutcome>((resume) => {
    const started = Date.now()
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    let exitCode: number | null = null
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid)
    }, options.timeoutMs)
    // whatever the program left running in its group goes with it, so its pipes close
    child.on("exit", (code) => {
      exitCode = code
      killGroup(child.pid)
    })
    child.on("close", () => {
      clearTimeout(timer)
      resume(Effect.succeed({ exitCode, timedOut, stdout, stderr, wallMs: Date.now() - started }))
    })
    child.on("error", (e) => {
      clearTimeout(timer)
      resume(
        Effect.succeed({
          exitCode: null,
          timedOut: false,
          stdout,
          stderr: `${stderr}${e.message}`,
          wallMs: Date.now() - started
        })
      )
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      killGroup(child.pid)
    })
  })

export const DEFAULT_TIMEOUT_MS = 90_000

/** With CONFORMANCE_KEEP=DIR, each run's requests, stdout and stderr are kept in DIR/<scenario>/<program>/. */
const keep = (program: Program, scenario: Scenario, requests: ReadonlyArray<unknown>, ran: ProcessOutcome) => {
  const dir = process.env.CONFORMANCE_KEEP
  if (dir === undefined || dir === "") return
  const into = path.join(dir, scenario.name, program.kind)
  fs.mkdirSync(into, { recursive: true })
  fs.writeFileSync(path.join(into, "requests.jsonl"), requests.map((r) => JSON.stringify(r)).join("\n") + "\n")
  fs.writeFileSync(path.join(into, "stdout.txt"), ran.stdout)
  fs.writeFileSync(path.join(into, "stderr.txt"), ran.stderr)
}

export const observe = (
  program: Program,
  scenario: Scenario,
  options: { readonly timeoutMs?: number; readonly launch?: Launcher } = {}
): Effect.Effect<Observation, LayoutError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const layout = yield* makeLayout
      const resolved = substitute(scenario, layout)
      yield* populate(layout, resolved)
      const api = yield* FakeMessagesApi.make(scriptOf(resolved), MARKER)
      const launch = options.launch ?? runProcess
      const ran = yield* launch(commandOf(program, resolved), {
        cwd: layout.proj,
        env: envOf(program, resolved, layout, api.url),
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS
      })
      const conversation = readConversation(api.requests, resultSteps(resolved), layout)
      keep(program, scenario, api.requests, ran)
      return { ...conversation, ...ran, files: snapshot(layout.proj, normaliser(layout)) }
    })
  )
