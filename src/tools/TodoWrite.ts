/**
 * TodoWrite: replaces the session's task list. The list is kept in
 * `<sessionDir>/todos.json` (written atomically), so it belongs to one session and survives
 * across processes that share the session directory. Needs no permission. As in Claude Code, a
 * list whose tasks are all completed is cleared once written.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { writeFileAtomic } from "../internal/atomicWrite.js"
import type { SessionContext } from "../Session.js"
import { buildTool, type ToolContext, type ToolResult } from "../Tool.js"
import { allow } from "../Permission.js"
import { described, nonEmptyString } from "./schemas.js"

export const TODO_WRITE_TOOL_NAME = "TodoWrite"

export const TodoStatus = Schema.Literal("pending", "in_progress", "completed")
export type TodoStatus = typeof TodoStatus.Type

export const TodoItem = Schema.Struct({
  content: described(nonEmptyString("Content cannot be empty"), "The task, in the imperative (e.g. \"Run the tests\")"),
  status: TodoStatus,
  activeForm: described(
    nonEmptyString("Active form cannot be empty"),
    "The task in the present continuous (e.g. \"Running the tests\")"
  )
}).annotations({ parseOptions: { onExcessProperty: "ignore" } })
export type TodoItem = typeof TodoItem.Type

export const TodoWriteInput = Schema.Struct({
  todos: Schema.Array(TodoItem).annotations({ description: "The updated todo list" })
})
export type TodoWriteInput = typeof TodoWriteInput.Type

export interface TodoWriteOutput {
  readonly oldTodos: ReadonlyArray<TodoItem>
  readonly newTodos: ReadonlyArray<TodoItem>
}

export const TODOS_MODIFIED_MESSAGE =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

const PROMPT = `Creates and updates the task list of this session, to plan multi-step work and show progress.

When to use it: a task with three or more distinct steps, a request with several parts, or when the user asks for a todo list. Skip it for a single, simple step.

How to use it:
- Each call replaces the whole list. Every task has content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and a status: pending, in_progress or completed.
- Keep one task in_progress at a time while you work; mark it in_progress before you start it.
- Mark a task completed as soon as it is done and fully works; if it is blocked or failing, keep it in_progress and add a task for what is left.`

/** Where the session's list lives. */
export const todosFile = (session: SessionContext): string => path.join(session.sessionDir, "todos.json")

const isTodoList = Schema.is(Schema.Array(TodoItem))

/** The session's current list; empty when none was written (or the file is unreadable). */
export const readTodos = (session: SessionContext): Effect.Effect<ReadonlyArray<TodoItem>> =>
  Effect.promise(async () => {
    try {
      const parsed = JSON.parse(await fs.promises.readFile(todosFile(session), "utf8")) as unknown
      return isTodoList(parsed) ? parsed : []
    } catch {
      return []
    }
  })

const writeTodos = (session: SessionContext, todos: ReadonlyArray<TodoItem>): Effect.Effect<void, ToolError> =>
  Effect.tryPromise({
    try: async () => {
      await fs.promises.mkdir(session.sessionDir, { recursive: true })
      await writeFileAtomic(todosFile(session), `${JSON.stringify(todos, null, 2)}\n`)
    },
    catch: (error) =>
      new ToolError({
        reason: `Could not save the todo list: ${error instanceof Error ? error.message : String(error)}`
      })
  })

const run = Effect.fn("TodoWrite.call")(function*(input: TodoWriteInput, ctx: ToolContext) {
  const oldTodos = yield* readTodos(ctx.session)
  const allDone = input.todos.length > 0 && input.todos.every((t) => t.status === "completed")
  yield* writeTodos(ctx.session, allDone ? [] : input.todos)
  return { data: { oldTodos, newTodos: input.todos } } satisfies ToolResult<TodoWriteOutput>
})

const MARK: Record<TodoStatus, string> = { pending: "☐", in_progress: "◐", completed: "☑" }

/** The list as the terminal shows it: one line per task, the running one in its active form. */
export const renderTodos = (todos: ReadonlyArray<TodoItem>): string =>
  todos.length === 0
    ? "(no todos)"
    : todos.map((t) => `${MARK[t.status]} ${t.status === "in_progress" ? t.activeForm : t.content}`).join("\n")

export const TodoWriteTool = buildTool<TodoWriteInput, TodoWriteOutput>({
  name: TODO_WRITE_TOOL_NAME,
  shouldDefer: true,
  inputSchema: TodoWriteInput,
  description: "Create and update the session's task list (plan multi-step work, track progress).",
  prompt: PROMPT,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  isDestructive: () => false,
  maxResultSizeChars: 100_000,
  // a list sent as JSON text is read as the list
  repairInput: (input) => {
    if (typeof input.todos !== "string") return undefined
    try {
      const parsed: unknown = JSON.parse(input.todos)
      return Array.isArray(parsed) ? { ...input, todos: parsed } : undefined
    } catch {
      return undefined
    }
  },
  checkPermissions: () => Effect.succeed(allow("the session's todo list needs no permission")),
  call: run,
  mapResult: () => TODOS_MODIFIED_MESSAGE,
  userFacingName: () => "Update Todos",
  renderUse: (input) => `${input.todos.length} ${input.todos.length === 1 ? "task" : "tasks"}`,
  renderResult: (output) => renderTodos(output.newTodos)
})
