/**
 * `toolgate run` in a pseudo-terminal (node-pty): the prompt line, a permission question answered,
 * Ctrl-C during a tool (the turn stops, the session goes on), and /exit.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { spawnCliPty } from "../../support/cliPty.js"
import { cleanEnv, copyExample } from "./cliSupport.js"

const script = [
  {
    type: "turn",
    delay_ms: 20,
    content: [{ type: "text", text: "I'll create the file." }, {
      type: "tool_use",
      id: "toolu_i1",
      name: "Bash",
      input: { command: "echo hello > out.txt", description: "Create out.txt" }
    }]
  },
  {
    type: "turn",
    delay_ms: 20,
    content: [{ type: "text", text: "Now a long wait." }, {
      type: "tool_use",
      id: "toolu_i2",
      name: "Sleep",
      input: { duration_ms: 60000 }
    }]
  },
  { type: "turn", delay_ms: 20, content: [{ type: "text", text: "Yes, still here." }] }
]

describe("toolgate run, interactive (pseudo-terminal)", () => {
  it("prompt line, a permission question answered, Ctrl-C during a tool, then /exit", async () => {
    const { work, project } = copyExample()
    const file = path.join(work, "session.jsonl")
    fs.writeFileSync(file, script.map((l) => JSON.stringify(l)).join("\n"))
    const sessionDir = path.join(work, "s")
    const cli = await spawnCliPty(["run", "--replay", file, "--session-dir", sessionDir], {
      cwd: project,
      cols: 120,
      rows: 40,
      env: cleanEnv({ TOOLGATE_ENABLE_SLEEP: "1" })
    })
    /** Waits until the screen text after `from` matches. */
    const waitFor = (re: RegExp, from = 0) => cli.waitFor(re, from, 20_000)
    try {
      let at = await waitFor(/› *$/)
      cli.type("make a file\r")
      at = await waitFor(/Permission request: Bash[\s\S]*Choose \[[^\]]*\]: *$/, at)
      cli.type("1\r")
      at = await waitFor(/● Bash\(echo hello > out\.txt\)/, at)
      // the running call, drawn in place with a spinner frame
      at = await waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Sleep\(60000 ms\)/, at)
      await new Promise((r) => setTimeout(r, 200))
      cli.type("\x03")
      at = await waitFor(/interrupted · 2 turns/, at)
      at = await waitFor(/› *$/, at)
      cli.type("are you there?\r")
      await waitFor(/Yes, still here\.[\s\S]*done · 1 turn[\s\S]*› *$/, at)
      cli.type("/exit\r")
      expect(await cli.exited).toBe(0)
    } finally {
      cli.close()
    }
    const screen = cli.screen()
    expect(screen).toContain("Sleep(60000 ms)")
    expect(screen).toContain("The user doesn't want to proceed with this tool use.")
    expect(fs.readFileSync(path.join(project, "out.txt"), "utf8")).toBe("hello\n")
    // the transcript has the answer and the interrupted call
    const lines = fs.readFileSync(path.join(sessionDir, "transcript.jsonl"), "utf8").trim().split("\n").map((l) =>
      JSON.parse(l)
    )
    expect(lines.find((l) => l.type === "approval")).toMatchObject({
      tool_use_id: "toolu_i1",
      answer: { behavior: "allow", scope: "once" }
    })
    expect(lines.find((l) => l.type === "tool_call" && l.name === "Sleep")).toMatchObject({
      outcome: "interrupted",
      is_error: true
    })
    expect(lines.filter((l) => l.type === "prompt_end").map((l) => l.stop)).toEqual(["interrupted", "end_turn"])
  })
})
