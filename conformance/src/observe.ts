/**
 * What a program sent the model, read from the fake API's request log: the tool definitions of
 * the first main-agent request, and for each later step the tool_result blocks and the other
 * text of the user message that answers the scripted turn. Texts are normalised: only what must
 * differ between two runs (the run's folders, ids, where a program keeps its own files) is
 * replaced by a placeholder.
 */
import { createHash } from "node:crypto"
import type { LoggedRequest } from "./FakeMessagesApi.js"
import type { ResultEntry, Step, ToolDefinition } from "./Golden.js"
import * as path from "node:path"
import type { Layout } from "./layout.js"

/** The checkout the suite runs from and the node running it: both differ between machines. */
const REPOSITORY = path.resolve(import.meta.dirname, "..", "..")

export interface Conversation {
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly steps: ReadonlyArray<Step>
  /** The program never sent the results of the first step back. */
  readonly stopped: boolean
  /** The program never asked the model anything (a UserPromptSubmit hook blocked the prompt). */
  readonly noRequest: boolean
  /** The log is unusable (no main-agent request, a step missing after the first). */
  readonly problem: string | undefined
}

const isRecord = (u: unknown): u is Record<string, any> => u !== null && typeof u === "object" && !Array.isArray(u)

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

export const normaliser = (layout: Layout) => (text: string): string =>
  text
    .replaceAll(layout.proj, "<PROJ>")
    .replaceAll(layout.home, "<HOME>")
    .replaceAll(layout.root, "<ROOT>")
    .replaceAll(REPOSITORY, "<REPO>")
    .replaceAll(process.execPath, "<NODE>")
    .replace(UUID, "<UUID>")
    // each program keeps spilled and background output in its own session folder
    .replace(/(Full output saved to:) \S+/g, "$1 <SAVED>")
    .replace(/(Output is being written to:) \S+/g, "$1 <SAVED>")
    .replace(/(earlier output omitted; full output:) [^\]\s]+\]/g, "$1 <SAVED>]")
    // NotebookEdit gives a new cell a random id
    .replace(/(Inserted cell) [0-9a-f]{8} (with)/g, "$1 <CELL> $2")
    .replace(/"id": "[0-9a-f]{8}"/g, "\"id\": \"<CELL>\"")
    .replace(/<task-id>[\w-]+<\/task-id>/g, "<task-id><ID></task-id>")
    .replace(/<output-file>[^<]+<\/output-file>/g, "<output-file><SAVED></output-file>")
    .replace(/(with ID:) [\w-]+/g, "$1 <ID>")
    .replace(/\(ID: \w+\)/g, "(ID: <ID>)")

/** The text of a content value; images and other blocks become a stable one-line description. */
export const contentText = (content: unknown): string => {
  if (content === undefined || content === null) return ""
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return String(content)
  return content
    .map((block) => {
      if (!isRecord(block)) return String(block)
      if (block.type === "text") return String(block.text ?? "")
      if (block.type === "image") {
        const source = isRecord(block.source) ? block.source : {}
        const data = String(source.data ?? "")
        const digest = createHash("sha1").update(data).digest("hex").slice(0, 12)
        return `[image ${String(source.media_type)} ${String(source.type)} ${data.length} chars sha1:${digest}]`
      }
      return `[${String(block.type)} block]`
    })
    .join("\n")
}

const toolsOf = (body: unknown): ReadonlyArray<ToolDefinition> =>
  isRecord(body) && Array.isArray(body.tools)
    ? body.tools.filter(isRecord).map((t) => ({ name: String(t.name), input_schema: t.input_schema ?? null }))
    : []

const stepOf = (body: unknown, normalise: (text: string) => string): Step => {
  const messages: ReadonlyArray<Record<string, any>> = isRecord(body) && Array.isArray(body.messages)
    ? body.messages.filter(isRecord)
    : []
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant")
  const results: Array<ResultEntry> = []
  const extras: Array<string> = []
  for (const message of messages.slice(lastAssistant + 1)) {
    if (message.role !== "user" || !Array.isArray(message.content)) {
      extras.push(
        normalise(
          message.role === "user"
            ? contentText(message.content)
            : `[${String(message.role)}] ${contentText(message.content)}`
        )
      )
      continue
    }
    for (const block of message.content) {
      if (isRecord(block) && block.type === "tool_result") {
        results.push({
          tool_use_id: String(block.tool_use_id),
          is_error: block.is_error === true,
          text: normalise(contentText(block.content))
        })
      } else extras.push(normalise(contentText([block])))
    }
  }
  return { results, extras }
}

/** Reads the conversation of `steps` result-carrying requests out of the log. */
export const readConversation = (log: ReadonlyArray<LoggedRequest>, steps: number, layout: Layout): Conversation => {
  const normalise = normaliser(layout)
  const byTurn = new Map<number, LoggedRequest>()
  for (const request of log) {
    // a retry repeats a turn: the first one counts
    if (request.main && request.turn !== undefined && !byTurn.has(request.turn)) byTurn.set(request.turn, request)
  }
  const first = byTurn.get(0)
  if (first === undefined) {
    return { tools: [], steps: [], stopped: false, noRequest: true, problem: "no main-agent request" }
  }
  const tools = toolsOf(first.body)
  if (!byTurn.has(1)) return { tools, steps: [], stopped: true, noRequest: false, problem: undefined }
  const observed: Array<Step> = []
  for (let k = 1; k <= steps; k++) {
    const request = byTurn.get(k)
    if (request === undefined) {
      return {
        tools,
        steps: observed,
        stopped: false,
        noRequest: false,
        problem: `the results of step ${k} were never sent`
      }
    }
    observed.push(stepOf(request.body, normalise))
  }
  return { tools, steps: observed, stopped: false, noRequest: false, problem: undefined }
}
