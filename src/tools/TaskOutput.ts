/**
 * TaskOutput `{task_id, block, timeout}` (was BashOutput): the output
 * a background task wrote since the last read, and its status; with `block` (the default) it first
 * waits for the task to end, up to `timeout` ms (default 30000, max 600000). Read-only,
 * concurrency-safe, needs no permission, deferred under tool search.
 *
 * The legacy BashOutput input (`bash_id`, `filter`) is not accepted: Claude Code replaced it with
 * this schema (2.0.64) and kept only the name as an alias, so a legacy call gets a clear
 * "`task_id` is missing" error rather than a guess.
 */
import { Effect, Schema } from "effect"
import { ToolError } from "../Errors.js"
import { buildTool, reject } from "../Tool.js"
import { allow } from "../Permission.js"
import type { BackgroundTasksService, TaskReading } from "./background/BackgroundTasks.js"
import { taskOutputWaitMs } from "./background/settings.js"
import { statusLine, TASK_TYPE, taskOutputText } from "./background/taskText.js"
import { bashSettings } from "./bash/settings.js"
import { BooleanLike, described, NumberLike, optional } from "./schemas.js"

export const TaskOutputInput = Schema.Struct({
  task_id: Schema.String.annotations({
    description: "The ID of the background task (from Bash with run_in_background)"
  }),
  block: optional(described(BooleanLike, "Wait for the task to end before returning (default true)")),
  timeout: optional(
    described(NumberLike, "How long to wait when block is true, in milliseconds (default 30000, max 600000)")
  )
})
export type TaskOutputInput = typeof TaskOutputInput.Type

export interface TaskOutputResult {
  readonly reading: TaskReading
  readonly waitedMs: number
}

const PROMPT = `Reads a background task started with Bash run_in_background.

- Returns the output the task wrote since your last TaskOutput call for it (the first call returns everything so far), its status (running, completed or failed with the exit code, or killed) and the path of its full output file.
- block (default true) waits until the task ends, for at most timeout milliseconds (default 30000, max 600000); if it is still running then, you get the output so far and retrieval_status timeout. Use block: false to look without waiting.
- At most 30000 bytes of new output are returned per call (the newest part; BASH_MAX_OUTPUT_LENGTH changes it); the whole output stays in the output file.`

export const makeTaskOutputTool = (tasks: BackgroundTasksService) =>
  buildTool<TaskOutputInput, TaskOutputResult>({
    name: "TaskOutput",
    aliases: ["BashOutput"],
    inputSchema: TaskOutputInput,
    description: "Reads the new output and the status of a background task, optionally waiting for it to end.",
    prompt: PROMPT,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    interruptBehavior: () => "cancel",
    shouldDefer: true,
    checkPermissions: () => Effect.succeed(allow("TaskOutput needs no permission")),
    validateInput: (input) =>
      Effect.flatMap(tasks.get(input.task_id), (task) =>
        task._tag === "None" ? reject("TaskOutput", `No task found with ID: ${input.task_id}`) : Effect.void),
    call: (input) =>
      Effect.gen(function*() {
        const settings = yield* bashSettings
        const block = input.block ?? true
        const waitMs = taskOutputWaitMs(input.timeout)
        const reading = yield* tasks
          .read(input.task_id, { block, waitMs, maxBytes: settings.maxOutputChars })
          .pipe(Effect.mapError((e) =>
            new ToolError({ reason: e.message })
          ))
        return { data: { reading, waitedMs: block ? waitMs : 0 } }
      }),
    mapResult: (output) => taskOutputText(output.reading, output.waitedMs),
    hookResponse: ({ reading }) => ({
      retrieval_status: reading.retrieval,
      task: {
        task_id: reading.task.id,
        task_type: TASK_TYPE,
        status: reading.task.status,
        description: reading.task.description ?? reading.task.command,
        output: reading.output.text,
        ...(reading.task.exitCode !== undefined ? { exitCode: reading.task.exitCode } : {})
      }
    }),
    renderUse: (input) => `${input.task_id}${input.block === false ? " (no wait)" : ""}`,
    renderResult: ({ reading }) => `${reading.task.id}: ${statusLine(reading.task)}`
  })
