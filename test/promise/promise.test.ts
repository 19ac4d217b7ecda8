/**
 * The Promise face (`toolgate/promise`) as a program without Effect uses it: async callbacks in
 * the Agent SDK's shapes, `for await` over Claude Code's stream-json messages, an AbortSignal
 * that interrupts, errors thrown as classes with `_tag`.
 */
import { afterAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Testing } from "../../src/index.js"
import { createRuntime, query, type Message } from "../../src/promise/index.js"

const dirs: Array<string> = []
const workspace = (files: Readonly<Record<string, string>> = {}) => {
  const dir = Testing.makeWorkspace(files, "toolgate-promise-")
  dirs.push(dir)
  return dir
}
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const collect = async (messages: AsyncIterable<Message>): Promise<Array<Message>> => {
  const all: Array<Message> = []
  for await (const message of messages) all.push(message)
  return all
}

/** The tool_result blocks the model was sent, in order. */
const toolResultsOf = (messages: ReadonlyArray<Message>) =>
  messages
    .filter((m) => m.type === "user")
    .flatMap((m) =>
      ((m.message as { content: ReadonlyArray<Record<string, unknown>> }).content ?? []).filter((b) =>
        b.type === "tool_result"
      )
    )

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("toolgate/promise", () => {
  it("an async canUseTool's deny message reaches the model, and nothing runs", async () => {
    const cwd = workspace()
    const asked: Array<string> = []
    const messages = await collect(
      query({
        prompt: "make a file",
        options: {
          cwd,
          script: [
            Testing.turn(Testing.toolUse("Bash", { command: "touch made.txt" })),
            Testing.turn(Testing.text("ok"))
          ],
          canUseTool: async (toolName, input) => {
            await sleep(5)
            asked.push(`${toolName} ${String(input.command)}`)
            return { behavior: "deny", message: "use the Write tool for files" }
          }
        }
      })
    )
    expect(asked).toEqual(["Bash touch made.txt"])
    expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(false)
    const [result] = toolResultsOf(messages)
    expect(result!.is_error).toBe(true)
    // as Claude Code answers its permission-prompt tool: the message alone
    expect(result!.content).toBe("use the Write tool for files")
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", cwd })
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "ok", is_error: false })
  })

  it("an async PreToolUse hook callback blocks a call, and an allowing canUseTool lets another run", async () => {
    const cwd = workspace({ "a.txt": "alpha\n" })
    const seen: Array<string> = []
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          cwd,
          script: [
            Testing.turn(
              Testing.toolUse("Bash", { command: "rm a.txt" }),
              Testing.toolUse("Bash", { command: "touch b.txt" })
            ),
            Testing.turn(Testing.text("done"))
          ],
          canUseTool: async () => ({ behavior: "allow" }),
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input) => {
                    const command = String((input as { tool_input: { command: string } }).tool_input.command)
                    seen.push(command)
                    return command.startsWith("rm") ? { decision: "block", reason: "never remove files" } : {}
                  }
                ]
              }
            ]
          }
        }
      })
    )
    expect(seen).toEqual(["rm a.txt", "touch b.txt"])
    expect(fs.existsSync(path.join(cwd, "a.txt"))).toBe(true)
    expect(fs.existsSync(path.join(cwd, "b.txt"))).toBe(true)
    const [blocked, ran] = toolResultsOf(messages)
    expect(String(blocked!.content)).toContain("never remove files")
    expect(ran!.is_error).not.toBe(true)
  })

  it(
    "an AbortSignal interrupts the run: the call stops, it gets a result, the run ends with a result message",
    async () => {
      const cwd = workspace()
      const abortController = new AbortController()
      const seen: Array<string> = []
      for await (
        const message of query({
          prompt: "wait",
          options: {
            cwd,
            permissionMode: "bypassPermissions",
            abortController,
            script: [
              Testing.turn(Testing.toolUse("Bash", { command: "sleep 60 && touch late.txt" })),
              Testing.turn(Testing.text("never"))
            ]
          }
        })
      ) {
        seen.push(message.type)
        if (message.type === "assistant") setTimeout(() => abortController.abort(), 200)
        // as Claude Code reports a run stopped while its calls ran
        if (message.type === "result") {
          expect(message).toMatchObject({
            subtype: "error_during_execution",
            is_error: true,
            terminal_reason: "aborted_tools"
          })
        }
      }
      expect(seen[0]).toBe("system")
      expect(seen.at(-1)).toBe("result")
      expect(fs.existsSync(path.join(cwd, "late.txt"))).toBe(false)
    },
    30_000
  )

  it("a runtime runs one call and a message's calls; the session's cd carries over", async () => {
    const cwd = workspace({ "notes.txt": "hello\n", "sub/inner.txt": "inner\n" })
    const runtime = await createRuntime({ cwd, allowedTools: ["Bash(cd:*)", "Bash(cat:*)"] })
    try {
      const read = await runtime.call("Read", { file_path: path.join(cwd, "notes.txt") })
      expect(String(read.content)).toContain("hello")
      const results = await runtime.runMessage([
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "cd sub" } },
        { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "touch x" } }
      ])
      expect(results.content.map((b) => (b.type === "tool_result" ? b.is_error === true : undefined))).toEqual([
        false,
        true
      ])
      const cat = await runtime.call("Bash", { command: "cat inner.txt" })
      expect(String(cat.content)).toContain("inner")
    } finally {
      await runtime.dispose()
    }
  })

  it("settings that cannot be used reject createRuntime with a typed error class", async () => {
    const cwd = workspace()
    const error = await createRuntime({ cwd, settings: ["{ not json"] }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as { _tag?: string })._tag).toMatch(/^(BadRequest|BrokenSettings)$/)
  })
})
