/**
 * stdout carries results only: with a hook setting that draws a warning present, every command
 * that prints JSON prints nothing else on stdout, and the warning reaches stderr.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli, type Ran } from "../services/Agent/cliSupport.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const project = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-stdout-")))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, ".claude"))
  // a valid file with a hook event name that does not exist: ignored, with a warning (a malformed
  // hook entry stops toolgate instead)
  fs.writeFileSync(path.join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { pretooluse: [] } }))
  fs.writeFileSync(path.join(dir, "a.txt"), "alpha\n")
  const script = [
    { type: "user", text: "read a.txt" },
    {
      type: "turn",
      content: [{ type: "tool_use", id: "toolu_s1", name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
      stop_reason: "tool_use"
    },
    { type: "turn", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" }
  ]
  fs.writeFileSync(path.join(dir, "script.jsonl"), script.map((l) => JSON.stringify(l)).join("\n"))
  fs.writeFileSync(
    path.join(dir, "message.json"),
    JSON.stringify([{ type: "tool_use", id: "toolu_m1", name: "Read", input: { file_path: path.join(dir, "a.txt") } }])
  )
  return dir
}

const parseEach = (ran: Ran, lines: boolean) => {
  const text = ran.stdout.trim()
  try {
    return lines ? text.split("\n").map((l) => JSON.parse(l)) : [JSON.parse(text)]
  } catch {
    throw new Error(
      `stdout is not ${lines ? "JSON lines" : "JSON"} (exit ${ran.code}):\n${ran.stdout}\nstderr:\n${ran.stderr}`
    )
  }
}

describe("stdout carries results only", () => {
  it("every JSON-printing command, with a hook setting that draws a warning present", async () => {
    const dir = project()
    const env = cleanEnv()
    dirs.push(env.HOME!)
    const session = (name: string) => ["--session-dir", path.join(dir, `.s-${name}`)]
    const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>, boolean]> = [
      ["run json", [
        "run",
        "-p",
        "go",
        "--replay",
        "script.jsonl",
        "--replay-speed",
        "0",
        "--output-format",
        "json",
        ...session("json")
      ], false],
      ["run stream-json", [
        "run",
        "-p",
        "go",
        "--replay",
        "script.jsonl",
        "--replay-speed",
        "0",
        "--output-format",
        "stream-json",
        ...session("stream")
      ], true],
      ["exec", ["exec", "message.json", "--json", ...session("exec")], false],
      [
        "call",
        ["call", "Read", JSON.stringify({ file_path: path.join(dir, "a.txt") }), "--json", ...session("call")],
        false
      ],
      ["tools", ["tools", "--json"], false],
      ["tools schema", ["tools", "schema"], false],
      ["permissions check", ["permissions", "check", "Bash", "{\"command\":\"ls\"}", "--json"], false],
      ["mcp list", ["mcp", "list", "--json"], false]
    ]
    const ran = await Promise.all(commands.map(([, args]) => runCli(args, { cwd: dir, env, timeoutMs: 120_000 })))
    for (const [i, [name, , lines]] of commands.entries()) {
      const r = ran[i]!
      expect({ name, code: r.code }).toEqual({ name, code: 0 })
      expect(parseEach(r, lines).length).toBeGreaterThan(0)
    }
    // the warning went to stderr
    for (const i of [0, 1, 2, 3]) expect(ran[i]!.stderr).toMatch(/hooks\.pretooluse/)

    // replay of the recorded session, as JSON
    const replayed = await runCli([
      "replay",
      path.join(dir, ".s-json", "transcript.jsonl"),
      "--output-format",
      "json",
      "--replay-speed",
      "0",
      "--session-dir",
      path.join(dir, ".s-replay")
    ], {
      cwd: dir,
      env,
      timeoutMs: 120_000
    })
    expect(replayed.code).toBe(0)
    expect(parseEach(replayed, false)[0].replay).toMatchObject({ calls: 1 })
    expect(replayed.stderr).toMatch(/hooks\.pretooluse/)
  }, 300_000)
})
