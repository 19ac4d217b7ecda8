/**
 * `toolgate run` at a terminal, as a person sees it (tmux renders the screen; node-pty gives the
 * raw bytes): running calls drawn in place with their time and last output lines, a parallel
 * batch under one header, call times without the time spent answering; the approval prompt's
 * coloured diff and narrowest "always" rule; slash commands; Ctrl-D.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cleanEnv, copyExample } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { startTmuxCli } from "../support/tmux.js"

const scriptFile = (dir: string, turns: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>) => {
  const file = path.join(dir, "session.jsonl")
  const lines = [...turns.map((content) => ({ type: "turn", delay_ms: 0, content })), {
    type: "turn",
    delay_ms: 0,
    content: [{ type: "text", text: "All done." }]
  }]
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"))
  return file
}

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name, input })

/** Environment for tmux: `env -i` keeps only these. */
const tmuxEnv = (extra: Record<string, string> = {}) => {
  const env = cleanEnv(extra)
  return {
    PATH: env.PATH ?? "/usr/bin:/bin",
    HOME: env.HOME!,
    CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR!,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    ...extra
  }
}

const count = (screen: string, re: RegExp) => screen.split("\n").filter((l) => re.test(l)).length

// The three wait on purpose (a command paused, two 4 s sleeps, a question left 4 s unanswered)
// with the machine idle meanwhile: they run side by side.
describe.concurrent("running calls at the terminal", () => {
  it("one line per running call, redrawn in place with its elapsed time and last output lines", async () => {
    const { work, project } = copyExample()
    // pauses after steps 4 and 9 until the test lets it go on (the files go4, go9)
    const loop =
      "for i in 1 2 3 4 5 6 7 8 9 10; do echo step $i; case $i in 4|9) until [ -e go$i ]; do sleep 0.05; done;; esac; done"
    const file = scriptFile(work, [[use("toolu_loop", "Bash", { command: loop })]])
    const tmux = startTmuxCli([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--dangerously-skip-permissions",
      "--session-dir",
      path.join(work, "s"),
      "go"
    ], {
      cwd: project,
      env: tmuxEnv()
    })
    try {
      // the live line, with the command's latest output under it, once its time is in seconds
      const running = await tmux.waitFor(
        (s) => /Bash\(for i in[^\n]*· \d+(\.\d)? s/.test(s) && /│ step 4/.test(s),
        "the running command with its output"
      )
      expect(count(running, /Bash\(for i in/)).toBe(1)
      expect(running).toMatch(/Bash\(for i in[^\n]*· \d+(\.\d)? s/)
      fs.writeFileSync(path.join(project, "go4"), "")
      // later: still one line for it (redrawn, not appended), with newer output
      const later = await tmux.waitFor((s) => /│ step 9/.test(s), "newer output")
      expect(count(later, /Bash\(for i in/)).toBe(1)
      fs.writeFileSync(path.join(project, "go9"), "")
      const done = await tmux.waitFor((s) => /All done\./.test(s) && /› *$/m.test(s), "the end of the turn")
      // the live block is gone; the result is there once
      expect(done).toMatch(/● Bash\(for i in[^\n]*\d+(\.\d)? s\n/)
      expect(count(done, /Bash\(for i in/)).toBe(1)
      expect(done).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
      expect(count(done, /Running for/)).toBe(0)
      tmux.keys("/exit", "Enter")
    } finally {
      tmux.close()
    }
  }, 120_000)

  it("calls running together are grouped under one header", async () => {
    const { work, project } = copyExample()
    const file = scriptFile(work, [[
      use("toolu_s1", "Sleep", { duration_ms: 4000 }),
      use("toolu_s2", "Sleep", { duration_ms: 4000 })
    ]])
    const tmux = startTmuxCli([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(work, "s"),
      "go"
    ], {
      cwd: project,
      env: tmuxEnv({ TOOLGATE_ENABLE_SLEEP: "1" })
    })
    try {
      const screen = await tmux.waitFor((s) => /2 calls running in parallel \(batch 1\)/.test(s), "the group header")
      expect(count(screen, /◦ Sleep\(4000 ms\)/)).toBe(2)
      await tmux.waitFor((s) => /2 calls ran in parallel/.test(s) && /All done\./.test(s), "the results")
      tmux.keys("/exit", "Enter")
    } finally {
      tmux.close()
    }
  }, 120_000)

  it("a call's time leaves out the time its permission question waited for an answer", async () => {
    const { work, project } = copyExample()
    const file = scriptFile(work, [[use("toolu_touch", "Bash", { command: "touch made.txt" })]])
    const term = await spawnCliPty([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(work, "s"),
      "go"
    ], { cwd: project, env: cleanEnv() })
    try {
      const at = await term.waitFor(/Permission request: Bash[\s\S]*Choose \[[^\]]*\]: *$/)
      await new Promise((r) => setTimeout(r, 4000))
      term.type("1\r")
      const end = await term.waitFor(/● Bash\(touch made\.txt\) ([\d.]+) (ms|s)\n/, at)
      const [, amount, unit] = /● Bash\(touch made\.txt\) ([\d.]+) (ms|s)\n/.exec(term.screen().slice(at, end))!
      expect(Number(amount) * (unit === "s" ? 1000 : 1)).toBeLessThan(3000)
      await term.waitFor(/All done\.[\s\S]*› *$/, end)
      term.type("/exit\r")
      expect(await term.exited).toBe(0)
    } finally {
      term.close()
    }
    expect(fs.existsSync(path.join(project, "made.txt"))).toBe(true)
  }, 120_000)
})

describe("the approval prompt", () => {
  it("Edit: a coloured diff; 'always' offers the file itself and names the settings file", async () => {
    const { work, project } = copyExample()
    const math = path.join(project, "src", "math.js")
    const file = scriptFile(work, [
      [use("toolu_read", "Read", { file_path: math })],
      [use("toolu_edit", "Edit", {
        file_path: math,
        old_string: "  return Math.abs(a) * Math.abs(b)",
        new_string: "  return a * b"
      })]
    ])
    const env = cleanEnv()
    delete env.NO_COLOR
    const term = await spawnCliPty([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(work, "s"),
      "fix it"
    ], { cwd: project, env })
    const settings = path.join(project, ".claude", "settings.local.json")
    let prompt = ""
    try {
      const at = await term.waitFor(/Permission request: Edit[\s\S]*Choose \[[^\]]*\]: *$/)
      prompt = term.screen().slice(0, at)
      expect(prompt).toMatch(/- *return Math\.abs\(a\) \* Math\.abs\(b\)/)
      expect(prompt).toMatch(/\+ *return a \* b/)
      expect(term.raw()).toMatch(/\x1b\[31m[^\n]*- +return Math\.abs/)
      expect(term.raw()).toMatch(/\x1b\[32m[^\n]*\+ +return a \* b/)
      expect(prompt).toContain(`3. Yes, and always allow Edit(/src/math.js) (saved to ${settings})`)
      expect(prompt).not.toMatch(/Edit\(\/\*\*\)/)
      term.type("3\r")
      await term.waitFor(/All done\.[\s\S]*› *$/, at)
      term.type("/exit\r")
      expect(await term.exited).toBe(0)
    } finally {
      term.close()
    }
    expect(JSON.parse(fs.readFileSync(settings, "utf8"))).toEqual({ permissions: { allow: ["Edit(/src/math.js)"] } })
    expect(fs.readFileSync(math, "utf8")).toContain("return a * b")
  }, 120_000)

  it("Write of a new file: its lines as additions", async () => {
    const { work, project } = copyExample()
    const target = path.join(project, "src", "extra.js")
    const file = scriptFile(work, [[
      use("toolu_write", "Write", { file_path: target, content: "// extra\nmodule.exports = 42\n" })
    ]])
    const term = await spawnCliPty([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(work, "s"),
      "add it"
    ], { cwd: project, env: cleanEnv() })
    try {
      const at = await term.waitFor(/Permission request: Write[\s\S]*Choose \[[^\]]*\]: *$/)
      const prompt = term.screen().slice(0, at)
      expect(prompt).toMatch(/new file, 3 lines/)
      expect(prompt).toMatch(/\+ \/\/ extra\n[^\n]*\+ module\.exports = 42/)
      expect(prompt).toMatch(/always allow Edit\(\/src\/extra\.js\)/)
      term.type("4\r")
      await term.waitFor(/Tell Claude what to do differently/, at)
      term.type("\r")
      await term.waitFor(/All done\.[\s\S]*› *$/, at)
      term.type("/exit\r")
      expect(await term.exited).toBe(0)
    } finally {
      term.close()
    }
    expect(fs.existsSync(target)).toBe(false)
  }, 120_000)
})

describe("interactive run: slash commands and Ctrl-D", () => {
  it("/help, /tools, /permissions, /mcp, /clear, an unknown command; Ctrl-D leaves cleanly", async () => {
    const { work, project } = copyExample()
    const file = scriptFile(work, [])
    const term = await spawnCliPty([
      "run",
      "--replay",
      file,
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(work, "s"),
      "--allowed-tools",
      "Bash(npm test:*)"
    ], {
      cwd: project,
      env: cleanEnv()
    })
    try {
      let at = await term.waitFor(/› *$/)
      term.type("/help\r")
      at = await term.waitFor(/\/permissions[\s\S]*\/exit[\s\S]*› *$/, at)
      term.type("/tools\r")
      at = await term.waitFor(/Read +built-in[\s\S]*› *$/, at)
      term.type("/permissions\r")
      at = await term.waitFor(
        /Permission mode: default[\s\S]*allow \(1\):\n +Bash\(npm test:\*\) +\(cliArg\)[\s\S]*› *$/,
        at
      )
      term.type("/mcp\r")
      at = await term.waitFor(/No MCP servers configured[\s\S]*› *$/, at)
      term.type("/clear\r")
      at = await term.waitFor(/conversation cleared[\s\S]*› *$/, at)
      term.type("/tols\r")
      await term.waitFor(/Unknown command \/tols \(did you mean \/tools\?\)[\s\S]*› *$/, at)
      term.type("\x04")
      expect(await term.exited).toBe(0)
    } finally {
      term.close()
    }
  }, 120_000)
})
