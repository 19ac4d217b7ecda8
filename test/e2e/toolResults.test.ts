/**
 * What the model reads from the file tools and Bash, through the whole pipeline of `toolgate exec`
 * (in the test process; the spilled-output case through the built CLI): the texts Claude Code
 * 2.1.332 sends, where they depend on more than the tool (result spilling, error truncation, the
 * tool_use_error wrapper).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cleanEnv, runCli, runCliInProcess } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

let project: string
let sessionDir: string

beforeAll(() => {
  project = fs.realpathSync(tempDir("toolgate-results-"))
  sessionDir = path.join(project, ".session")
  fs.mkdirSync(path.join(project, "src", "deep"), { recursive: true })
  fs.writeFileSync(path.join(project, "src", "app.ts"), "const foo = 1\n")
  fs.writeFileSync(path.join(project, "src", "deep", "nested.js"), "var foo = 2\n")
  fs.utimesSync(path.join(project, "src", "app.ts"), 1_600_000_000, 1_600_000_000)
  fs.utimesSync(path.join(project, "src", "deep", "nested.js"), 1_700_000_000, 1_700_000_000)
})
afterAll(() => fs.rmSync(project, { recursive: true, force: true }))

const exec = async (
  blocks: ReadonlyArray<Record<string, unknown>>,
  run: typeof runCli = runCliInProcess
): Promise<Array<{ content: string; is_error?: boolean }>> => {
  const ran = await run([
    "exec",
    "-",
    "--cwd",
    project,
    "--session-dir",
    sessionDir,
    "--json",
    "--permission-mode",
    "bypassPermissions"
  ], {
    cwd: project,
    input: JSON.stringify(blocks),
    env: cleanEnv({ CLAUDE_CONFIG_DIR: path.join(project, ".no-user-config") }),
    timeoutMs: 60_000
  })
  const content: Array<{ content: string; is_error?: boolean }> = ran.code === 0 || ran.code === 1
    ? JSON.parse(ran.stdout).message.content
    : []
  // exit 1 exactly when a call failed
  const expected = content.some((b) => b.is_error === true) ? 1 : 0
  if (ran.code !== expected) throw new Error(`exit ${ran.code}: ${ran.stderr}`)
  return content
}

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name, input })

describe("tool results through the pipeline", () => {
  it("Bash over 30,000 characters: the persisted-output preview, and the file holds everything (built CLI)", async () => {
    const [big] = await exec([use("big", "Bash", { command: "seq 1 20000" })], runCli)
    const saved = /Full output saved to: (\S+)/.exec(big!.content)?.[1]
    expect(big!.content.startsWith("<persisted-output>\nOutput too large (106.3KB). Full output saved to: ")).toBe(true)
    expect(big!.content.endsWith("\n527\n...\n</persisted-output>")).toBe(true)
    expect(fs.readFileSync(saved!, "utf8")).toBe(Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(""))
  })

  it("a failing Bash with large output: Exit code, the first 30,000 characters, cut to 10,000 in the middle", async () => {
    const [failed] = await exec([use("fail", "Bash", { command: "seq 1 10000 >&2; exit 4" })])
    expect(failed!.is_error).toBe(true)
    expect(failed!.content.startsWith("Exit code 4\n1\n2\n3\n")).toBe(true)
    expect(failed!.content).toContain("\n\n... [20012 characters truncated] ...\n\n")
    expect(failed!.content.endsWith("\n6221\n62")).toBe(true)
  })

  it("Glob and Grep: paths relative to the working directory; a missing path is an unwrapped error", async () => {
    const [glob, grep, missing] = await exec([
      use("g", "Glob", { pattern: "**/*.{ts,js}" }),
      use("r", "Grep", { pattern: "foo" }),
      use("m", "Glob", { pattern: "*", path: "nope" })
    ])
    expect(glob!.content).toBe("src/app.ts\nsrc/deep/nested.js")
    expect(grep!.content).toBe("Found 2 files\nsrc/deep/nested.js\nsrc/app.ts")
    expect(missing).toEqual({
      type: "tool_result",
      tool_use_id: "m",
      is_error: true,
      content: `Directory does not exist: nope. Note: your current working directory is ${project}.`
    })
  })

  it("Write at a relative path: created from the working directory, shown as given, with the file-state note", async () => {
    const [written] = await exec([use("w", "Write", { file_path: "out/new.txt", content: "hi\n" })])
    expect(written!.content).toBe(
      "File created successfully at: out/new.txt (file state is current in your context \u2014 no need to Read it back)"
    )
    expect(fs.readFileSync(path.join(project, "out", "new.txt"), "utf8")).toBe("hi\n")
  })
})
