/**
 * The rest of the tool belt in a scripted `toolgate run -p` (a process, the scripted model):
 * TodoWrite, ToolSearch, WebFetch (a local server, allowed by a domain rule), Read + NotebookEdit,
 * a background Bash with TaskStop, and a project skill — each through the real pipeline.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ROOT, cleanEnv, copyExample, runCli } from "../services/Agent/cliSupport.js"

let server: http.Server
let port = 0
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(
      "<html><head><title>Docs</title><script>evil()</script></head><body><h1>Release 2.0</h1><p>Now <b>faster</b>.</p></body></html>"
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Live (non-zombie) processes whose working directory is `dir`. */
const processesIn = (dir: string): Array<number> =>
  fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((pid) => {
    try {
      if (fs.readlinkSync(`/proc/${pid}/cwd`) !== dir) return []
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]
      return state === "Z" ? [] : [Number(pid)]
    } catch {
      return []
    }
  })

const turn = (...content: ReadonlyArray<Record<string, unknown>>) => ({ type: "turn", content })
const use = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input })

describe("the tool belt in a scripted run", () => {
  it("TodoWrite, ToolSearch, WebFetch, NotebookEdit, background Bash + TaskStop and a skill all answer through the pipeline", async () => {
    const { work, project } = copyExample()
    fs.copyFileSync(
      path.join(ROOT, "test", "fixtures", "notebooks", "analysis.ipynb"),
      path.join(project, "analysis.ipynb")
    )
    fs.cpSync(
      path.join(ROOT, "test", "fixtures", "skills", "project", ".claude", "skills", "release-notes"),
      path.join(project, ".claude", "skills", "release-notes"),
      { recursive: true }
    )
    const script = [
      { type: "user", text: "tidy up the project" },
      turn(
        use("todo", "TodoWrite", {
          todos: [{ content: "Check the docs", status: "in_progress", activeForm: "Checking the docs" }]
        }),
        use("search", "ToolSearch", { query: "select:NotebookEdit,WebFetch" })
      ),
      turn(
        use("fetch", "WebFetch", { url: `http://127.0.0.1:${port}/docs`, prompt: "What is new?" }),
        use("read", "Read", { file_path: "{{cwd}}/analysis.ipynb" })
      ),
      turn(
        use("nb", "NotebookEdit", {
          notebook_path: "{{cwd}}/analysis.ipynb",
          cell_id: "intro",
          new_source: "# Analysis, revised\n"
        })
      ),
      turn(use("bg", "Bash", { command: "sleep 30", run_in_background: true })),
      turn(
        use("stop", "TaskStop", { task_id: "no-such-task" }),
        use("skill", "Skill", { skill: "release-notes", args: "2.0" })
      ),
      turn({ type: "text", text: "Done." })
    ]
    const file = path.join(work, "belt.jsonl")
    fs.writeFileSync(file, script.map((l) => JSON.stringify(l)).join("\n"))
    const ran = await runCli(
      [
        "run",
        "-p",
        "--replay",
        file,
        "--replay-speed",
        "0",
        "--output-format",
        "json",
        "--toolgate-events",
        "--cwd",
        project,
        "--session-dir",
        path.join(work, "session"),
        "--permission-mode",
        "acceptEdits",
        "--allowed-tools",
        `WebFetch(domain:127.0.0.1) Bash(sleep 30) Skill(release-notes *)`
      ],
      { cwd: project, env: cleanEnv(), timeoutMs: 60_000 }
    )
    const result = JSON.parse(ran.stdout)
    expect(result).toMatchObject({ is_error: false, result: "Done." })
    const lines = fs.readFileSync(result.toolgate.transcript, "utf8").trim().split("\n").map((l: string) =>
      JSON.parse(l)
    )
    interface Call {
      readonly tool_use_id: string
      readonly result: unknown
      readonly is_error: boolean
    }
    const calls = new Map<string, Call>(
      lines.filter((l: { type: string }) => l.type === "tool_call").map((l: Call) => [l.tool_use_id, l])
    )
    const text = (id: string) => JSON.stringify(calls.get(id)!.result)
    const isError = (id: string) => calls.get(id)!.is_error
    expect([...calls.keys()]).toEqual(["todo", "search", "fetch", "read", "nb", "bg", "stop", "skill"])
    expect(isError("todo")).toBe(false)
    expect(JSON.parse(fs.readFileSync(path.join(work, "session", "todos.json"), "utf8"))).toMatchObject([{
      content: "Check the docs"
    }])
    expect(text("search")).toContain("NotebookEdit")
    expect(isError("fetch")).toBe(false)
    expect(text("fetch")).toContain("# Release 2.0")
    expect(text("fetch")).not.toContain("evil()")
    expect(isError("nb")).toBe(false)
    const notebook = JSON.parse(fs.readFileSync(path.join(project, "analysis.ipynb"), "utf8"))
    expect(notebook.cells[0].source).toBe("# Analysis, revised\n") // a replaced source is written as one string, as Claude Code does
    expect(notebook.cells[1].id).toBe("load")
    expect(text("bg")).toMatch(/Command running in background with ID: \S+\. Output is being written to: /)
    // the background command ended with the session: no process is left in the project folder
    expect(processesIn(project)).toEqual([])
    expect(isError("stop")).toBe(true)
    expect(text("stop")).toContain("no-such-task")
    expect(isError("skill")).toBe(false)
    expect(text("skill")).toContain("release-notes")
  })
})
