/**
 * Disk use stays bounded: a background shell whose output passes the limit is stopped and its
 * output file cut there with a notice; spilled results and task files of old sessions are
 * removed by age (`cleanupPeriodDays`) and by total size (`TOOLGATE_SESSION_FILES_MAX_MB`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const DAY_MS = 24 * 3600 * 1000

describe("disk bounds", () => {
  it(
    "a background shell writing without end is stopped at the output limit, its file cut there with a notice",
    async () => {
      const dir = fs.realpathSync(tempDir("toolgate-disk-"))
      const env = cleanEnv({ TOOLGATE_TASK_OUTPUT_MAX_BYTES: String(1024 * 1024) })
      dirs.push(dir, env.HOME!)
      const sessionDir = path.join(dir, ".session")
      const tasks = path.join(sessionDir, "tasks")
      const message = [
        { type: "tool_use", id: "toolu_bg", name: "Bash", input: { command: "yes toolgate", run_in_background: true } },
        // waits (bounded) until the task was stopped and its file ends with the notice
        {
          type: "tool_use",
          id: "toolu_wait",
          name: "Bash",
          input: {
            command:
              `timeout 60 sh -c 'until grep -qs "Command killed" ${tasks}/*.output; do sleep 0.1; done' && echo capped`
          }
        }
      ]
      const ran = await runCli([
        "exec",
        "-",
        "--json",
        "--permission-mode",
        "bypassPermissions",
        "--session-dir",
        sessionDir
      ], {
        cwd: dir,
        env,
        input: JSON.stringify(message),
        timeoutMs: 120_000
      })
      expect(ran.code, ran.stderr).toBe(0)
      const results = JSON.parse(ran.stdout).message.content
      expect(results[1].content).toContain("capped")
      const [file] = fs.readdirSync(tasks)
      const text = fs.readFileSync(path.join(tasks, file!), "utf8")
      expect(text.endsWith("\nCommand killed: output file exceeded 1MB\n")).toBe(true)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024 + 64)
    },
    180_000
  )

  it(
    "old and excess spilled results and task files are removed at start; transcripts and recent files stay",
    async () => {
      const dir = fs.realpathSync(tempDir("toolgate-sweep-"))
      const env = cleanEnv({ TOOLGATE_SESSION_FILES_MAX_MB: "5" })
      dirs.push(dir, env.HOME!)
      const projects = path.join(env.HOME!, ".toolgate", "projects")
      const now = Date.now()
      const file = (rel: string, bytes: number, ageDays: number) => {
        const full = path.join(projects, rel)
        fs.mkdirSync(path.dirname(full), { recursive: true })
        fs.writeFileSync(full, Buffer.alloc(bytes, "x"))
        const at = new Date(now - ageDays * DAY_MS)
        fs.utimesSync(full, at, at)
        return full
      }
      const MB = 1024 * 1024
      const old = [
        file("p/s1/tool-results/toolu_a.txt", 100, 20),
        file("p/s1/tasks/b1.output", 100, 20),
        file("q/s2/bash-output/toolu_b.txt", 100, 15)
      ]
      const transcript = file("p/s1/transcript.jsonl", 100, 20)
      const young = file("q/s3/tool-results/toolu_c.txt", 100, 0.5)
      // 9 MB within the age limit, over the 5 MB total: the oldest go first, until it fits
      const big = [
        file("q/s4/tool-results/one.txt", 3 * MB, 3),
        file("q/s4/tool-results/two.txt", 3 * MB, 2),
        file("q/s4/tasks/three.output", 3 * MB, 1)
      ]
      fs.mkdirSync(env.CLAUDE_CONFIG_DIR!, { recursive: true })
      fs.writeFileSync(path.join(env.CLAUDE_CONFIG_DIR!, "settings.json"), JSON.stringify({ cleanupPeriodDays: 10 }))
      const ran = await runCli(["tools", "--json"], { cwd: dir, env, timeoutMs: 120_000 })
      expect(ran.code, ran.stderr).toBe(0)
      expect(old.filter((f) => fs.existsSync(f))).toEqual([])
      expect(fs.existsSync(transcript)).toBe(true)
      expect(fs.existsSync(young)).toBe(true)
      expect(big.map((f) => fs.existsSync(f))).toEqual([false, false, true])
    },
    180_000
  )
})
