/**
 * The terminal approver under `toolgate exec` in a pseudo-terminal: "always" saves one rule to
 * `.claude/settings.local.json` (atomically, nothing else changed) and the same command is not
 * asked again; "this session" is not saved; "no" with a message reaches the model.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { BIN, cleanEnv, stripAnsi } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

describe("terminal approver (pseudo-terminal)", () => {
  it("once / always (saved) / session (not saved) / deny with a message", async () => {
    const pty = await import("node-pty")
    const project = fs.realpathSync(tempDir("toolgate-approve-"))
    fs.mkdirSync(path.join(project, ".claude"))
    fs.writeFileSync(path.join(project, ".claude", "settings.local.json"), `${JSON.stringify({ env: { KEEP: "me" } }, null, 2)}\n`)
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
    const child = pty.spawn(process.execPath, [BIN, "exec", message, "--cwd", project, "--json", "--session-dir", path.join(project, ".s")], {
      cwd: project,
      cols: 200,
      rows: 50,
      env: cleanEnv()
    })
    let out = ""
    child.onData((d) => (out += d))
    const exited = new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)))
    const waitFor = (re: RegExp, from: number) =>
      new Promise<number>((resolve, reject) => {
        const t0 = Date.now()
        const timer = setInterval(() => {
          const m = re.exec(stripAnsi(out).slice(from))
          if (m !== null) {
            clearInterval(timer)
            resolve(from + m.index + m[0].length)
          } else if (Date.now() - t0 > 20_000) {
            clearInterval(timer)
            reject(new Error(`timed out waiting for ${re}; screen:\n${stripAnsi(out)}`))
          }
        }, 20)
      })
    let savedRule = ""
    try {
      let at = await waitFor(/touch once\.txt[\s\S]*Choose \[[^\]]*\]: *$/, 0)
      child.write("1\r")
      at = await waitFor(/touch always\.txt[\s\S]*3\. Yes, and always allow (\S+) \(saved to \S*\.claude\/settings\.local\.json\)\n[\s\S]*Choose \[[^\]]*\]: *$/, at)
      savedRule = [...stripAnsi(out).slice(0, at).matchAll(/always allow (\S+) \(saved to \S*\.claude\/settings\.local\.json\)\n/g)].at(-1)![1]!
      child.write("3\r")
      at = await waitFor(/mkdir made[\s\S]*Choose \[[^\]]*\]: *$/, at)
      child.write("2\r")
      at = await waitFor(/rm -f once\.txt[\s\S]*Choose \[[^\]]*\]: *$/, at)
      child.write("4\r")
      await waitFor(/: *$/, at)
      child.write("keep that file\r")
      // the denied call makes exec's exit code 1
      expect(await exited).toBe(1)
    } finally {
      try {
        process.kill(child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    const screen = stripAnsi(out)
    // the repeated command was not asked about again
    expect(screen.match(/Choose \[/g)).toHaveLength(4)
    const report = JSON.parse(screen.slice(screen.indexOf("{\r\n") >= 0 ? screen.indexOf("{\r\n") : screen.lastIndexOf("\n{") + 1).replace(/\r\n/g, "\n"))
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
