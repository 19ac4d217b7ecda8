/** The failures of the BackgroundTasks service; the tools turn them into error results. */
import { Schema } from "effect"

export class UnknownTask extends Schema.TaggedError<UnknownTask>()("UnknownTask", {
  taskId: Schema.String
}) {
  override get message() {
    return `No task found with ID: ${this.taskId}`
  }
}

export class TaskNotRunning extends Schema.TaggedError<TaskNotRunning>()("TaskNotRunning", {
  taskId: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `Task ${this.taskId} is not running (status: ${this.status})`
  }
}
