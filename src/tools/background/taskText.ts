/**
 * The texts the model reads from TaskOutput and TaskStop. TaskOutput uses the tag layout of
 * Claude Code's TaskOutput result (`<retrieval_status>`, `<task_id>`, `<status>`, `<exit_code>`,
 * `<output>`), so a model that knows one reads the other.
 */
import { formatBytes, formatDuration } from "../bash/resultText.js"
import type { BackgroundTask, TaskReading } from "./BackgroundTasks.js"
import { outputLimitNotice } from "./settings.js"

export const TASK_TYPE = "local_bash"

const stopCauseText = (task: BackgroundTask): string | undefined => {
  switch (task.stoppedBy) {
    case "TaskStop":
      return "stopped with TaskStop"
    case "timeout":
      return `stopped at its timeout of ${formatDuration(task.timeoutMs)}`
    case "session end":
      return "stopped because the session ended"
    case "output limit":
      return outputLimitNotice(task.maxOutputBytes)
    default:
      return undefined
  }
}

/** `completed (exit code 0)`, `failed (exit code 2)`, `killed (stopped with TaskStop)`, `running`. */
export const statusLine = (task: BackgroundTask): string =>
  task.status === "running"
    ? "running"
    : task.status === "killed"
    ? `killed (${stopCauseText(task) ?? "stopped"})`
    : `${task.status} (exit code ${task.exitCode ?? "unknown"})`

export const taskOutputText = (reading: TaskReading, waitedMs: number): string => {
  const { task, output } = reading
  const lines = [
    `<retrieval_status>${reading.retrieval}</retrieval_status>`,
    `<task_id>${task.id}</task_id>`,
    `<task_type>${TASK_TYPE}</task_type>`,
    `<status>${task.status}</status>`
  ]
  if (task.status === "killed") lines.push(`<stopped>${stopCauseText(task) ?? "stopped"}</stopped>`)
  else if (task.exitCode !== undefined) lines.push(`<exit_code>${task.exitCode}</exit_code>`)
  lines.push(`<output_file>${task.outputFile}</output_file>`)
  const body = output.text.replace(/\s+$/, "")
  const notes = [
    ...(output.omittedBytes > 0
      ? [
        `[${formatBytes(output.omittedBytes)} of earlier new output not shown; the whole output is in the output file]`
      ]
      : []),
    ...(output.error !== undefined ? [`[the output file could not be read: ${output.error}]`] : [])
  ]
  if (body === "" && notes.length === 0) lines.push("(no new output since the last read)")
  else lines.push("<output>", ...notes, ...(body === "" ? [] : [body]), "</output>")
  if (reading.retrieval === "timeout") {
    lines.push(
      `Still running after waiting ${
        formatDuration(waitedMs)
      }. Call TaskOutput again to keep waiting, or TaskStop to stop it.`
    )
  }
  return lines.join("\n")
}

export const taskStoppedText = (task: BackgroundTask): string =>
  `Successfully stopped task: ${task.id} (${task.command})`
