/**
 * The terminal approver under `toolgate exec` in a pseudo-terminal: "always" saves one rule to
 * `.claude/settings.local.json` (atomically, nothing else changed) and the same command is not
 * asked again; "this session" is not saved; "no" with a message reaches the model.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cleanEnv } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"

describe("terminal approver (pseudo-terminal)", () => {
  it("once / always (saved) / session (not saved) / deny with a message", async () => {
    const project = fs.realpathSync(tempDir("toolgate-approve-"))
    fs.mkdirSync(path.join(project, ".claude"))
    fs.writeFileSync(
      path.join(project, ".claude", "settings.local.json"),
      `${JSON.stringify({ env: { KEEP: "me" } }, null, 2)}\n`
    )
    const message = path.join(project, "message.json")
    const bash = (id: string, command: string) => ({ type: "tool_use", id, name: "Bash", input: { command } })
    fs.writeFileSync(
      message,
      JSON.stringify([
        bash("once", "touch once.txt"),
        bash("always", "touch always.txt"),
        bash("again", "touch always.txt"),
        bash("session", "mkdir made"),
        bash("denied", "rm -f once.txt")
      ])
    )
    const cli = await spawnCliPty([
      "exec",
      message,
      "--cwd",
      project,
      "--json",
      "--session-dir",
      path.join(project, ".s")
    ], {
      cwd: project,
      cols: 200,
      rows: 50,
      env: cleanEnv()
    })
    const waitFor = (re: RegExp, from: number) => cli.waitFor(re, from, 20_000)
    let savedRule = ""
    try {
      let at = await waitFor(/touch once\.txt[\s\S]*Choose \[[^\]]*\]: *$/, 0)
      cli.type("1\r")
      at = await waitFor(
        /touch always\.txt[\s\S]*3\. Yes, and always allow (\S+) \(saved to \S*\.claude\/settings\.local\.json\)\n[\s\S]*Choose \[[^\]]*\]: *$/,
        at
      )
      savedRule = [
        ...cli.screen().slice(0, at).matchAll(/always allow (\S+) \(saved to \S*\.claude\/settings\.local\.json\)\n/g)
      ].at(-1)![1]!
      cli.type("3\r")
      at = await waitFor(/mkdir made[\s\S]*Choose \[[^\]]*\]: *$/, at)
      cli.type("2\r")
      at = await waitFor(/rm -f once\.txt[\s\S]*Choose \[[^\]]*\]: *$/, at)
      cli.type("4\r")
      await waitFor(/: *$/, at)
      cli.type("keep that file\r")
      // the denied call makes exec's exit code 1
      expect(await cli.exited).toBe(1)
    } finally {
      cli.close()
    }
    const screen = cli.screen()
    // the repeated command was not asked about again
    expect(screen.match(/Choose \[/g)).toHaveLength(4)
    const report = JSON.parse(
      screen.slice(screen.indexOf("{\r\n") >= 0 ? screen.indexOf("{\r\n") : screen.lastIndexOf("\n{") + 1).replace(
        /\r\n/g,
        "\n"
      )
    )
    const results = report.message.content
    expect(results.map((r: { is_error?: boolean }) => r.is_error === true)).toEqual([false, false, false, false, true])
    expect(results[4].content).toMatch(/To tell you how to proceed, the user said:\nkeep that file$/)
    expect(fs.existsSync(path.join(project, "once.txt"))).toBe(true)
    expect(fs.existsSync(path.join(project, "made"))).toBe(true)
    // "always" saved exactly the offered rule, keeping the file's other content; "session" saved nothing
    const saved = JSON.parse(fs.readFileSync(path.join(project, ".claude", "settings.local.json"), "utf8"))
    expect(saved).toEqual({ env: { KEEP: "me" }, permissions: { allow: [savedRule] } })
    expect(savedRule).toMatch(/^Bash\(touch/)
    expect(fs.readdirSync(path.join(project, ".claude"))).toEqual(["settings.local.json"])
  })
})
