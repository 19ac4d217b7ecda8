import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import { newSession } from "../../src/Session.js"
import { readTodos, renderTodos, TODOS_MODIFIED_MESSAGE, TodoWriteTool, todosFile } from "../../src/tools/TodoWrite.js"
import { tempDir, testRuntime, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

describe("TodoWrite", () => {
  const cwd = tempDir("toolgate-todo-")
  afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))
  const session = newSession({ cwd, permissionMode: "default", sessionDir: `${cwd}/.session`, sessionId: "s1" })
  const other = newSession({ cwd, permissionMode: "default", sessionDir: `${cwd}/.other`, sessionId: "s2" })

  const call = (input: unknown, s = session) =>
    Effect.gen(function*() {
      const pipeline = yield* CallPipeline
      return yield* pipeline.run(yield* pipeline.prepare(toolUse("toolu_t", "TodoWrite", input), 0), { session: s })
    })

  const todo = (content: string, status: string, activeForm = `${content}ing`) => ({ content, status, activeForm })

  it.layer(testRuntime({ tools: [TodoWriteTool], cwd }))((it) => {
    it.effect("writes the session's list without asking, and answers with Claude Code's text", () =>
      Effect.gen(function*() {
        const outcome = yield* call({
          todos: [todo("Run tests", "in_progress", "Running tests"), todo("Fix lint", "pending")]
        })
        expect(outcome.result).toEqual({ type: "tool_result", tool_use_id: "toolu_t", content: TODOS_MODIFIED_MESSAGE })
        expect(Permission.behaviorOf(outcome.decision!)).toBe("allow")
        expect((yield* readTodos(session)).map((t) => t.content)).toEqual(["Run tests", "Fix lint"])
        expect(JSON.parse(fs.readFileSync(todosFile(session), "utf8"))).toHaveLength(2)
        // another session has its own list
        expect(yield* readTodos(other)).toEqual([])
      }))

    it.effect("reports the previous list, and clears the list once every task is completed", () =>
      Effect.gen(function*() {
        yield* call({ todos: [todo("A", "pending")] })
        const done = yield* call({ todos: [todo("A", "completed")] })
        expect(done.result.is_error).toBeUndefined()
        expect(yield* readTodos(session)).toEqual([])
      }))

    it.effect("takes two tasks in progress, as Claude Code does (its prompt asks for one at a time; nothing enforces it)", () =>
      Effect.gen(function*() {
        const outcome = yield* call({ todos: [todo("A", "in_progress"), todo("B", "in_progress")] })
        expect(outcome.result.is_error).toBeUndefined()
        expect(outcome.result.content).toBe(TODOS_MODIFIED_MESSAGE)
      }))

    it.effect("refuses empty content, unknown statuses, missing and unexpected fields, with Claude Code's texts", () =>
      Effect.gen(function*() {
        const empty = yield* call({ todos: [todo("", "pending", "x")] })
        // nothing missing, unexpected or mistyped: zod's own issue list, as Claude Code sends it
        expect(empty.result.content).toBe(
          `<tool_use_error>InputValidationError: ${
            JSON.stringify(
              [{
                origin: "string",
                code: "too_small",
                minimum: 1,
                inclusive: true,
                path: ["todos", 0, "content"],
                message: "Content cannot be empty"
              }],
              null,
              2
            )
          }</tool_use_error>`
        )
        const status = yield* call({ todos: [todo("A", "doing")] })
        expect(status.result.content).toBe(
          `<tool_use_error>InputValidationError: ${
            JSON.stringify(
              [
                {
                  code: "invalid_value",
                  values: ["pending", "in_progress", "completed"],
                  path: ["todos", 0, "status"],
                  message: "Invalid option: expected one of \"pending\"|\"in_progress\"|\"completed\""
                }
              ],
              null,
              2
            )
          }</tool_use_error>`
        )
        const missing = yield* call({ todos: [{ content: "A", status: "pending" }] })
        expect(missing.result.content).toContain("The required parameter `todos[0].activeForm` is missing")
        const extra = yield* call({ todos: [], priority: "high" })
        expect(extra.result.content).toContain("An unexpected parameter `priority` was provided")
        const notArray = yield* call({ todos: "A" })
        expect(notArray.result.content).toContain(
          "The parameter `todos` type is expected as `array` but provided as `string`"
        )
      }))

    it.effect("takes a list sent as JSON text, and drops unknown keys of an item, as Claude Code does", () =>
      Effect.gen(function*() {
        const asText = yield* call({ todos: JSON.stringify([todo("A", "pending")]) })
        expect(asText.result.is_error).toBeUndefined()
        expect(yield* readTodos(session)).toEqual([todo("A", "pending")])
        const extraKey = yield* call({ todos: [{ ...todo("B", "pending"), priority: "high" }] })
        expect(extraKey.result.is_error).toBeUndefined()
        expect(yield* readTodos(session)).toEqual([todo("B", "pending")])
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
