/**
 * A `hooks` block that cannot be read fails closed, as any unreadable setting: the CLI stops with
 * exit 78 and one line naming the file and the place in it, and the call the hook would have
 * blocked never runs (Claude Code 2.1.332 skips such a block and runs the call). The shapes
 * Claude Code accepts still run their hooks; a hook toolgate cannot run on an event that can
 * block calls is refused too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bash, project, startCli, type Project } from "./support.js"

const BLOCK = { type: "command", command: "echo blocked-by-hook >&2; exit 2" }

const withUserSettings = (p: Project, settings: unknown): string => {
  const file = path.join(p.env.CLAUDE_CONFIG_DIR!, "settings.json")
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(settings))
  return file
}

const execTouch = async (p: Project) => {
  const run = startCli(
    p,
    ["exec", "-", "--json", "--allowed-tools", "Bash", "--session-dir", path.join(p.dir, ".s")],
    JSON.stringify([bash("toolu_1", "touch ran")])
  )
  const code = await run.exited
  return { code, stdout: run.out.stdout, stderr: run.out.stderr, ran: fs.existsSync(path.join(p.dir, "ran")) }
}

describe("a hooks block that cannot be read stops toolgate (exit 78) and nothing runs", () => {
  const malformed: ReadonlyArray<readonly [string, unknown, string]> = [
    ["PreToolUse given as an object", { PreToolUse: { matcher: "Bash", hooks: [BLOCK] } }, "hooks.PreToolUse"],
    [
      "a group's hooks given as an object",
      { PreToolUse: [{ matcher: "Bash", hooks: BLOCK }] },
      "hooks.PreToolUse[0].hooks"
    ],
    [
      "type \"comand\"",
      { PreToolUse: [{ matcher: "Bash", hooks: [{ ...BLOCK, type: "comand" }] }] },
      "hooks.PreToolUse[0].hooks[0].type"
    ],
    ["hooks given as an array", [{ PreToolUse: [{ matcher: "Bash", hooks: [BLOCK] }] }], "hooks"],
    ["a matcher that is not a string", { PreToolUse: [{ matcher: 5, hooks: [BLOCK] }] }, "hooks.PreToolUse[0].matcher"],
    ["a group without hooks", { PreToolUse: [{ matcher: "Bash" }] }, "hooks.PreToolUse[0].hooks"],
    [
      "a timeout given as a string",
      { PreToolUse: [{ matcher: "Bash", hooks: [{ ...BLOCK, timeout: "5" }] }] },
      "hooks.PreToolUse[0].hooks[0].timeout"
    ],
    ["a prompt hook on PreToolUse (toolgate cannot run it)", {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "block all" }] }]
    }, "hooks.PreToolUse[0].hooks[0].type"]
  ]
  for (const [name, hooks, place] of malformed) {
    it(name, async () => {
      const p = project()
      const file = withUserSettings(p, { hooks })
      const ran = await execTouch(p)
      expect(ran.code).toBe(78)
      expect(ran.ran).toBe(false)
      expect(ran.stdout).toBe("")
      const lines = ran.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(file)
      expect(lines[0]).toContain(`${place}:`)
    }, 60_000)
  }

  it(
    "the shapes Claude Code accepts run their hooks: no matcher, an empty one, extra keys, an unknown event name (a warning)",
    async () => {
      const p = project()
      withUserSettings(p, {
        hooks: {
          pretooluse: [{ matcher: "Bash", hooks: [BLOCK] }],
          PreToolUse: [{ hooks: [] }, {
            matcher: "",
            note: "extra keys are fine",
            hooks: [{ ...BLOCK, statusMessage: "checking", once: false, timeout: 1.5, if: "" }]
          }]
        }
      })
      const ran = await execTouch(p)
      expect(ran.ran).toBe(false)
      expect(JSON.parse(ran.stdout).message.content[0].content).toContain("blocked-by-hook")
      expect(ran.stderr).toMatch(/hooks\.pretooluse\\?" is not a hook event; ignored \(did you mean \\?"PreToolUse/)
    },
    60_000
  )
})
