/**
 * TaskStop `{task_id?, shell_id?}` (was KillShell, whose `shell_id`
 * is still accepted): stops a running background task, whole process group. Not read-only but
 * concurrency-safe, needs no permission, deferred under tool search.
 */
import { Effect, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { buildTool, reject } from "../Tool.js"
import { allow } from "../Permission.js"
import type { BackgroundTask, BackgroundTasksService } from "./background/BackgroundTasks.js"
import { TASK_TYPE, taskStoppedText } from "./background/taskText.js"
import { optional } from "./schemas.js"

export const TaskStopInput = Schema.Struct({
  task_id: optional(Schema.String.annotations({ description: "The ID of the background task to stop" })),
  shell_id: optional(Schema.String.annotations({ description: "Deprecated: use task_id" }))
})
export type TaskStopInput = typeof TaskStopInput.Type

const taskIdOf = (input: TaskStopInput): string | undefined => input.task_id ?? input.shell_id

export const MISSING_TASK_ID = "Missing required parameter: task_id"

const PROMPT =
  `Stops a background task started with Bash run_in_background, together with every process it started. Give its task_id. Use TaskOutput first if you still need its output.`

export const makeTaskStopTool = (tasks: BackgroundTasksService) =>
  buildTool<TaskStopInput, BackgroundTask>({
    name: "TaskStop",
    aliases: ["KillShell"],
    inputSchema: TaskStopInput,
    description: "Stops a running background task and every process it started.",
    prompt: PROMPT,
    isReadOnly: () => false,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    shouldDefer: true,
    checkPermissions: () => Effect.succeed(allow("TaskStop needs no permission")),
    validateInput: (input) => {
      const id = taskIdOf(input)
      if (id === undefined) return reject("TaskStop", MISSING_TASK_ID)
      return Effect.flatMap(tasks.get(id), (task) =>
        task._tag === "None"
          ? reject("TaskStop", `No task found with ID: ${id}`)
          : task.value.status !== "running"
          ? reject("TaskStop", `Task ${id} is not running (status: ${task.value.status})`)
          : Effect.void)
    },
    call: (input) => {
      const id = taskIdOf(input)
      if (id === undefined) return Effect.fail(new ToolError({ reason: MISSING_TASK_ID }))
      return tasks.stop(id).pipe(
        Effect.map((task) => ({ data: task })),
        Effect.mapError((e) => new ToolError({ reason: e.message }))
      )
    },
    mapResult: taskStoppedText,
    hookResponse: (task) => ({
      message: taskStoppedText(task),
      task_id: task.id,
      task_type: TASK_TYPE,
      command: task.command
    }),
    renderUse: (input) => taskIdOf(input) ?? "",
    renderResult: (task) => `stopped ${task.id}`
  })
