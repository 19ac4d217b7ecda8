/**
 * A transcript that cannot be written whole (the file-size limit, RLIMIT_FSIZE, stands in for a
 * full disk: the write that crosses it is cut short, the next fails with EFBIG): the transcript
 * keeps whole lines only, the failure is reported on stderr, and `run` exits non-zero.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, runProgram } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const LIMIT_KB = 64

describe("transcript on a full disk", () => {
  it("whole lines or nothing, the failure reported, a non-zero exit", async () => {
    const project = fs.realpathSync(tempDir("toolgate-fulldisk-"))
    dirs.push(project)
    const turn = (i: number) => ({
      type: "turn",
      content: [{ type: "tool_use", id: `toolu_big${i}`, name: "Bash", input: { command: `seq 100000 104000` } }],
      stop_reason: "tool_use"
    })
    const script = [{ type: "user", text: "print numbers" }, turn(1), turn(2), turn(3), turn(4), {
      type: "turn",
      content: [{ type: "text", text: "done" }],
      stop_reason: "end_turn"
    }]
    fs.writeFileSync(path.join(project, "script.jsonl"), script.map((l) => JSON.stringify(l)).join("\n"))
    const sessionDir = path.join(project, ".session")
    const env = cleanEnv()
    dirs.push(env.HOME!)
    const args = [
      "run",
      "-p",
      "go",
      "--replay",
      "script.jsonl",
      "--replay-speed",
      "0",
      "--output-format",
      "json",
      "--allowed-tools",
      "Bash(seq:*)",
      "--session-dir",
      sessionDir
    ]
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ")
    const ran = await runProgram("bash", ["-c", `ulimit -f ${LIMIT_KB} && exec ${quoted}`], {
      cwd: project,
      env,
      timeoutMs: 170_000
    })
    const text = fs.readFileSync(path.join(sessionDir, "transcript.jsonl"), "utf8")
    // the limit was reached: the session wrote more than the file could take
    expect(text.length).toBeGreaterThan(LIMIT_KB * 1024 * 0.5)
    expect(text.length).toBeLessThanOrEqual(LIMIT_KB * 1024)
    expect(text.endsWith("\n")).toBe(true)
    for (const line of text.split("\n").filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow()
    expect(ran.stderr).toMatch(/transcript .*transcript\.jsonl.*(EFBIG|too large|no space)/i)
    expect(ran.code).not.toBe(0)
    // the calls themselves still ran and were answered
    const result = JSON.parse(ran.stdout)
    expect(result.num_turns ?? result.turns ?? 5).toBeGreaterThan(0)
    // and the result does not claim a success the exit code denies
    expect(result).toMatchObject({ type: "result", subtype: "error_during_execution", is_error: true })
  }, 180_000)
})
