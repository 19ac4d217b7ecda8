/**
 * `toolgate call` on the built CLI (dist/toolgate.cjs; npm test builds it) with a project's custom
 * tools and skills. `TOOLGATE_CLI` points it at another build.
 */
import { describe, expect, it } from "vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { promisify } from "node:util"
import { makeExtensionSandbox } from "./support.js"

const run = promisify(execFile)
const CLI = process.env.TOOLGATE_CLI ?? path.join(__dirname, "..", "..", "..", "dist", "toolgate.cjs")
describe("toolgate call with custom tools and skills (built CLI)", () => {
  it("calls a custom tool and a skill from the project folder", async () => {
    const box = makeExtensionSandbox()
    const env = {
      ...process.env,
      HOME: box.root,
      CLAUDE_CONFIG_DIR: box.userConfigDir,
      TOOLGATE_MANAGED_SETTINGS_DIR: path.join(box.root, "managed")
    }
    const call = async (tool: string, input: unknown, extra: ReadonlyArray<string> = []) => {
      const result = await run(process.execPath, [
        CLI,
        "call",
        tool,
        JSON.stringify(input),
        "--json",
        "--cwd",
        box.project,
        "--trust-project",
        "--session-dir",
        path.join(box.root, "session"),
        ...extra
      ], { env }).catch(
        (error: { stdout: string; stderr: string }) => error
      )
      return {
        json: JSON.parse(result.stdout) as { result: { content: unknown; is_error?: boolean } },
        stderr: result.stderr
      }
    }
    try {
      const greet = await call("Greet", { name: "CLI" })
      expect(greet.json.result.content).toBe("Hello, CLI!")
      expect(greet.stderr).toContain("broken.mjs was skipped: it failed to load: boom at load time")
      const skill = await call("Skill", { skill: "release-notes", args: "1.0" }, [
        "--allowed-tools",
        "Skill(release-notes *)"
      ])
      expect(skill.json.result.content).toBe("Launching skill: release-notes")
      const count = await call("WordCount", { text: "x y z" }, ["--allowed-tools", "WordCount"])
      expect(count.json.result.content).toBe(`3 words (cwd ${box.project})`)
    } finally {
      box.cleanup()
    }
  }, 60_000)
})
