/**
 * Notification hooks under the terminal approver (`toolgate call` in a pseudo-terminal): a
 * permission question left unanswered fires the `permission_prompt` Notification hooks; a
 * question answered before the delay fires none.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cleanEnv } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"

const projectWithNotificationHook = () => {
  const project = fs.realpathSync(tempDir("toolgate-notify-"))
  fs.mkdirSync(path.join(project, ".claude"))
  fs.writeFileSync(
    path.join(project, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        Notification: [
          {
            matcher: "permission_prompt",
            hooks: [{ type: "command", command: `cat > "$CLAUDE_PROJECT_DIR/notified.json"` }]
          },
          { matcher: "idle_prompt", hooks: [{ type: "command", command: `touch "$CLAUDE_PROJECT_DIR/idle"` }] }
        ]
      }
    })
  )
  return project
}

const askInPty = async (project: string, delayMs: number) => {
  const cli = await spawnCliPty(["call", "Bash", JSON.stringify({ command: "touch approved" }), "--cwd", project], {
    cwd: project,
    cols: 200,
    rows: 50,
    env: cleanEnv({ TOOLGATE_PERMISSION_NOTIFY_DELAY_MS: String(delayMs) })
  })
  const until = async (check: () => boolean, what: string) => {
    for (let i = 0; i < 1200 && !check(); i++) await new Promise((r) => setTimeout(r, 50))
    if (!check()) throw new Error(`timed out waiting for ${what}; screen:\n${cli.screen()}`)
  }
  return { cli, until, prompted: () => /Choose \[[^\]]*\]: *$/.test(cli.screen()) }
}

describe("Notification hooks (pseudo-terminal)", () => {
  it("a question left unanswered fires permission_prompt with Claude Code's message; idle_prompt hooks stay quiet", async () => {
    const project = projectWithNotificationHook()
    const run = await askInPty(project, 300)
    try {
      await run.until(run.prompted, "the permission question")
      const notified = path.join(project, "notified.json")
      await run.until(
        () => fs.existsSync(notified) && fs.readFileSync(notified, "utf8").trim() !== "",
        "the Notification hook"
      )
      run.cli.type("1\r")
      expect(await run.cli.exited).toBe(0)
      expect(JSON.parse(fs.readFileSync(notified, "utf8"))).toMatchObject({
        hook_event_name: "Notification",
        message: "Claude needs your permission to use Bash",
        notification_type: "permission_prompt",
        cwd: project
      })
      expect(fs.existsSync(path.join(project, "approved"))).toBe(true)
      expect(fs.existsSync(path.join(project, "idle"))).toBe(false)
    } finally {
      run.cli.close()
    }
  })

  it("a question answered before the delay fires nothing", async () => {
    const project = projectWithNotificationHook()
    const run = await askInPty(project, 600_000)
    try {
      await run.until(run.prompted, "the permission question")
      run.cli.type("1\r")
      expect(await run.cli.exited).toBe(0)
      expect(fs.existsSync(path.join(project, "approved"))).toBe(true)
      expect(fs.existsSync(path.join(project, "notified.json"))).toBe(false)
    } finally {
      run.cli.close()
    }
  })
})
