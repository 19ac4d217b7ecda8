import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import { newSession } from "../../src/Session.js"
import { readTodos, renderTodos, TODOS_MODIFIED_MESSAGE, TodoWriteTool, todosFile } from "../../src/tools/TodoWrite.js"
import { tempDir, testRuntime, toolUse } from "../support/runtime.js"

describe("TodoWrite", () => {
  const cwd = tempDir("toolgate-todo-")
  afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))
  const session = newSession({ cwd, permissionMode: "default", sessionDir: `${cwd}/.session`, sessionId: "s1" })
  const other = newSession({ cwd, permissionMode: "default", sessionDir: `${cwd}/.other`, sessionId: "s2" })

  const call = (input: unknown, s = session) =>
    Effect.gen(function* () {
      const pipeline = yield* CallPipeline
      return yield* pipeline.run(yield* pipeline.prepare(toolUse("toolu_t", "TodoWrite", input), 0), { session: s })
    })

  const todo = (content: string, status: string, activeForm = `${content}ing`) => ({ content, status, activeForm })

  it.layer(testRuntime({ tools: [TodoWriteTool], cwd }))((it) => {
    it.effect("writes the session's list without asking, and answers with Claude Code's text", () =>
      Effect.gen(function* () {
        const outcome = yield* call({ todos: [todo("Run tests", "in_progress", "Running tests"), todo("Fix lint", "pending")] })
        expect(outcome.result).toEqual({ type: "tool_result", tool_use_id: "toolu_t", content: TODOS_MODIFIED_MESSAGE })
        expect(outcome.decision?.behavior).toBe("allow")
        expect((yield* readTodos(session)).map((t) => t.content)).toEqual(["Run tests", "Fix lint"])
        expect(JSON.parse(fs.readFileSync(todosFile(session), "utf8"))).toHaveLength(2)
        // another session has its own list
        expect(yield* readTodos(other)).toEqual([])
      }))

    it.effect("reports the previous list, and clears the list once every task is completed", () =>
      Effect.gen(function* () {
        yield* call({ todos: [todo("A", "pending")] })
        const done = yield* call({ todos: [todo("A", "completed")] })
        expect(done.result.is_error).toBeUndefined()
        expect(yield* readTodos(session)).toEqual([])
      }))

    it.effect("refuses two tasks in progress", () =>
      Effect.gen(function* () {
        const outcome = yield* call({ todos: [todo("A", "in_progress"), todo("B", "in_progress")] })
        expect(outcome.error?._tag).toBe("InputRejected")
        expect(outcome.result.content).toBe(
          '<tool_use_error>Only one task can be in_progress at a time, but 2 are: "A", "B". Keep one in_progress and mark the others pending or completed.</tool_use_error>'
        )
      }))

    it.effect("refuses empty content, unknown statuses, missing and unexpected fields", () =>
      Effect.gen(function* () {
        const empty = yield* call({ todos: [todo("  ", "pending", "x")] })
        expect(empty.result.content).toBe(
          "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe parameter `todos[0].content` is invalid: content must not be empty</tool_use_error>"
        )
        const status = yield* call({ todos: [todo("A", "doing")] })
        expect(status.result.content).toContain(
          "The parameter `todos[0].status` is invalid: Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', received 'doing'"
        )
        const missing = yield* call({ todos: [{ content: "A", status: "pending" }] })
        expect(missing.result.content).toContain("The required parameter `todos[0].activeForm` is missing")
        const extra = yield* call({ todos: [], priority: "high" })
        expect(extra.result.content).toContain("An unexpected parameter `priority` was provided")
        const notArray = yield* call({ todos: "A" })
        expect(notArray.result.content).toContain("The parameter `todos` type is expected as `array` but provided as `string`")
      }))
  })

  it("draws the list for the terminal", () => {
    expect(
      TodoWriteTool.renderResult({
        oldTodos: [],
        newTodos: [
          { content: "Write code", status: "completed", activeForm: "Writing code" },
          { content: "Run tests", status: "in_progress", activeForm: "Running tests" },
          { content: "Ship", status: "pending", activeForm: "Shipping" }
        ]
      })
    ).toBe("☑ Write code\n◐ Running tests\n☐ Ship")
    expect(renderTodos([])).toBe("(no todos)")
    expect(TodoWriteTool.isConcurrencySafe({ todos: [] })).toBe(false)
    expect(TodoWriteTool.isReadOnly({ todos: [] })).toBe(false)
  })
})
