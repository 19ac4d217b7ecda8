/**
 * Command hooks as processes, through `toolgate call` (in the test process; the built CLI for the
 * 1.5 MB decision and for Ctrl-C): a decision bigger than the old 1 MB capture is read whole,
 * output past the bound blocks instead of being guessed at, and whatever a hook leaves running is
 * killed with its process group when the hook ends, times out or is interrupted (checked by pid).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { BIN, cleanEnv, runCli, runCliInProcess } from "../services/Agent/cliSupport.js"
import {
  isRecordAlive,
  killRecord,
  parsePidRecord,
  recordedInBackground,
  recordGone,
  recordSelf,
  waitForRecords,
  type PidRecord
} from "../support/pidRecords.js"

const projectWithPreToolUse = (script: string, timeout?: number) => {
  const project = fs.realpathSync(tempDir("toolgate-hook-proc-"))
  const hook = path.join(project, "hook.sh")
  fs.writeFileSync(hook, `#!/bin/bash\n${script}`, { mode: 0o755 })
  fs.mkdirSync(path.join(project, ".claude"))
  fs.writeFileSync(
    path.join(project, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: hook, ...(timeout === undefined ? {} : { timeout }) }]
        }]
      }
    })
  )
  return { project, hook }
}

/**
 * A Bash call under the project's hook. In the test process by default (the hook and its children
 * are real processes either way); the built CLI where the test is about the executable.
 */
const callTouch = (project: string, env: Record<string, string> = {}, run: typeof runCli = runCliInProcess) =>
  run(
    ["call", "Bash", JSON.stringify({ command: "touch ran" }), "--cwd", project, "--allowed-tools", "Bash", "--json"],
    {
      cwd: project,
      env: cleanEnv(env),
      timeoutMs: 90_000
    }
  )

/** Polls (bounded) until the process is gone; true when it is. */
const gone = (record: PidRecord): Promise<boolean> => recordGone(record)

/** The pid a hook recorded, once the file is there. */
const readPid = async (file: string): Promise<PidRecord> => {
  for (let i = 0; i < 400 && !(fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() !== ""); i++) {
    await new Promise((r) => setTimeout(r, 25))
  }
  return parsePidRecord(fs.readFileSync(file, "utf8"))
}

describe("hook output over the old capture limit", () => {
  it("a valid JSON deny of 1.5 MB is read whole: the call is denied with its reason and never runs (built CLI)", {
    timeout: 120_000
  }, async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\npython3 -c 'import json; print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no: " + "x" * 1500000}}))'\n`
    )
    const ran = await callTouch(project, {}, runCli)
    expect(fs.existsSync(path.join(project, "ran"))).toBe(false)
    const result = JSON.parse(ran.stdout).result
    expect(result.is_error).toBe(true)
    expect(result.content).toMatch(/^PreToolUse:Bash hook error: no: x+/)
  })

  it("output past the bound is never guessed at: the call is blocked", { timeout: 120_000 }, async () => {
    // the reason alone is the whole bound (32 MB): with the JSON around it, the output is past it
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\npython3 -c 'import sys; sys.stdout.write("{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PreToolUse\\", \\"permissionDecision\\": \\"allow\\", \\"permissionDecisionReason\\": \\"" + "y" * (32 * 1024 * 1024) + "\\"}}")'\n`
    )
    const ran = await callTouch(project)
    expect(fs.existsSync(path.join(project, "ran"))).toBe(false)
    const result = JSON.parse(ran.stdout).result
    expect(result.is_error).toBe(true)
    expect(result.content).toBe(
      "PreToolUse:Bash hook error: the hook's output is larger than 32 MB and was not read whole, so its answer is unknown"
    )
  })
})

describe("what a hook leaves running goes with it", () => {
  it("a job started with & is killed when the hook exits", async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\n${recordedInBackground("sleep 100", "\"$CLAUDE_PROJECT_DIR/job.pid\"")}\n${
        waitForRecords("\"$CLAUDE_PROJECT_DIR/job.pid\"")
      }\nexit 0\n`
    )
    const ran = await callTouch(project)
    expect(JSON.parse(ran.stdout).result.is_error).not.toBe(true)
    expect(fs.existsSync(path.join(project, "ran"))).toBe(true)
    expect(await gone(await readPid(path.join(project, "job.pid")))).toBe(true)
  })

  it("TOOLGATE_KEEP_HOOK_CHILDREN=1 leaves it running, as Claude Code does", async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\n${recordedInBackground("sleep 100 > /dev/null 2>&1", "\"$CLAUDE_PROJECT_DIR/job.pid\"")}\n${
        waitForRecords("\"$CLAUDE_PROJECT_DIR/job.pid\"")
      }\nexit 0\n`
    )
    await callTouch(project, { TOOLGATE_KEEP_HOOK_CHILDREN: "1" })
    const job = await readPid(path.join(project, "job.pid"))
    try {
      expect(isRecordAlive(job)).toBe(true)
    } finally {
      killRecord(job)
    }
  })

  it("a job that holds the hook's stdout open does not hold the call, and is killed", async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\n${recordedInBackground("sleep 100", "\"$CLAUDE_PROJECT_DIR/job.pid\"")}\n${
        waitForRecords("\"$CLAUDE_PROJECT_DIR/job.pid\"")
      }\necho '{"decision": "block", "reason": "decided before the job ended"}'\n`
    )
    const ran = await callTouch(project)
    expect(JSON.parse(ran.stdout).result.content).toBe("PreToolUse:Bash hook error: decided before the job ended")
    expect(await gone(await readPid(path.join(project, "job.pid")))).toBe(true)
  })

  it("a hook that times out is killed with its children", async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\n${recordedInBackground("sleep 100", "\"$CLAUDE_PROJECT_DIR/job.pid\"")}\n${
        waitForRecords("\"$CLAUDE_PROJECT_DIR/job.pid\"")
      }\nsleep 100\n`,
      1
    )
    const ran = await callTouch(project)
    expect(JSON.parse(ran.stdout).result.is_error).not.toBe(true)
    expect(await gone(await readPid(path.join(project, "job.pid")))).toBe(true)
  })

  it("Ctrl-C while a hook runs kills the hook and its children; the call never runs", async () => {
    const { project } = projectWithPreToolUse(
      `cat > /dev/null\n${recordedInBackground("sleep 100", "\"$CLAUDE_PROJECT_DIR/job.pid\"")}\n${
        waitForRecords("\"$CLAUDE_PROJECT_DIR/job.pid\"")
      }\n${recordSelf("\"$CLAUDE_PROJECT_DIR/hook.pid\"")}\nwait\n`
    )
    const child = spawn(process.execPath, [
      BIN,
      "call",
      "Bash",
      JSON.stringify({ command: "touch ran" }),
      "--cwd",
      project,
      "--allowed-tools",
      "Bash",
      "--json"
    ], {
      cwd: project,
      env: cleanEnv()
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    const job = await readPid(path.join(project, "job.pid"))
    const hook = await readPid(path.join(project, "hook.pid"))
    child.kill("SIGINT")
    await exited
    expect(await gone(job)).toBe(true)
    expect(await gone(hook)).toBe(true)
    expect(fs.existsSync(path.join(project, "ran"))).toBe(false)
  })
})
