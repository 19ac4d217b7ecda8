/**
 * Settings that change while `run` goes on apply to the next call: a deny rule or a blocking hook
 * added mid-run is seen (Claude Code 2.1.332 sees those added to project and local settings), and
 * a settings file that becomes unreadable mid-run stops every call rather than dropping its rules
 * (Claude Code then runs the call the old deny rule forbade).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bash, project, startCli, transcriptLines, waitFor, writeScript, type Project } from "./support.js"

/** The first call waits until the test has changed the settings; the second one is the subject. */
const waitForChange = "touch go; while [ ! -f changed ]; do sleep 0.02; done; echo waited"

const runWithChange = async (p: Project, change: () => void, extraArgs: ReadonlyArray<string> = []) => {
  const script = writeScript(p, [[bash("toolu_1", waitForChange)], [
    bash("toolu_2", "echo second > second.txt; echo second")
  ]])
  const sessionDir = path.join(p.dir, ".session")
  const run = startCli(p, [
    "run",
    "-p",
    "go",
    "--replay",
    script,
    "--replay-speed",
    "0",
    "--allowed-tools",
    "Bash",
    "--session-dir",
    sessionDir,
    ...extraArgs
  ])
  await waitFor(() => fs.existsSync(path.join(p.dir, "go")), run, "the first call")
  change()
  fs.writeFileSync(path.join(p.dir, "changed"), "")
  const code = await run.exited
  const second = transcriptLines(sessionDir).find((l) => l.type === "tool_call" && l.tool_use_id === "toolu_2")
  return { code, run, second, ran: fs.existsSync(path.join(p.dir, "second.txt")) }
}

const projectSettings = (p: Project) => path.join(p.dir, ".claude", "settings.json")

const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(value))
}

describe("settings changed while run goes on", () => {
  it("a deny rule added to the project settings mid-run denies the next call", async () => {
    const p = project()
    const { second, ran } = await runWithChange(
      p,
      () => writeJson(projectSettings(p), { permissions: { deny: ["Bash(echo second:*)"] } })
    )
    expect(ran).toBe(false)
    expect(second?.is_error).toBe(true)
    expect(String(second?.result)).toContain("denied")
  }, 60_000)

  it("a deny rule added to the user settings mid-run denies the next call", async () => {
    const p = project()
    const { second, ran } = await runWithChange(
      p,
      () =>
        writeJson(path.join(p.env.CLAUDE_CONFIG_DIR!, "settings.json"), {
          permissions: { deny: ["Bash(echo second:*)"] }
        })
    )
    expect(ran).toBe(false)
    expect(second?.is_error).toBe(true)
  }, 60_000)

  it("a blocking PreToolUse hook added mid-run blocks the next call", async () => {
    const p = project()
    const hook = {
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: "echo blocked-by-the-new-hook >&2; exit 2" }]
        }]
      }
    }
    const { second, ran } = await runWithChange(
      p,
      () => writeJson(path.join(p.env.CLAUDE_CONFIG_DIR!, "settings.json"), hook)
    )
    expect(ran).toBe(false)
    expect(String(second?.result)).toContain("blocked-by-the-new-hook")
  }, 60_000)

  it(
    "a settings file corrupted mid-run denies every call, naming the file; the old deny rule is not dropped",
    async () => {
      const p = project()
      writeJson(projectSettings(p), { permissions: { deny: ["Bash(echo second:*)"] } })
      const { second, ran, code, run } = await runWithChange(
        p,
        () => fs.writeFileSync(projectSettings(p), "{ not json")
      )
      expect(ran).toBe(false)
      expect(second?.is_error).toBe(true)
      expect(String(second?.result)).toContain(projectSettings(p))
      expect(run.out.stderr).toContain(projectSettings(p))
      expect(code).toBe(0)
    },
    60_000
  )
})
