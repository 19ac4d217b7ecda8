/**
 * The system prompt: a short frame, the environment, and each tool's `prompt` in the pool's
 * stable order (so it is the same from turn to turn and caches).
 */
import * as os from "node:os"
import type { SessionContext } from "../../Session.js"
import type { AnyTool } from "../../Tool.js"

export interface SystemPromptOptions {
  /** Replaces the frame and environment (the tools' prompts are still appended). */
  readonly replace?: string
  readonly append?: string
  /** Defaults to today (UTC date). */
  readonly date?: string
}

const FRAME =
  `You are an agent whose tool calls are run by toolgate, a runtime that applies Claude Code's permission rules, hooks and scheduling to every call.
Do the user's task with the tools below. Read files before you edit them. When several read-only calls are independent, make them in one message: they run in parallel. When a call is denied, do not try to work around the denial; explain what you needed instead. Keep your answers short and say what you did.`

/** The environment part of a system prompt (also under a subagent's own prompt). */
export const environmentSection = (
  session: SessionContext,
  date: string = new Date().toISOString().slice(0, 10)
): string =>
  [
    "# Environment",
    `Working directory: ${session.cwd}`,
    ...(session.additionalDirectories.length > 0
      ? [`Additional working directories: ${session.additionalDirectories.join(", ")}`]
      : []),
    `Platform: ${os.platform()}`,
    `Today's date: ${date}`
  ].join("\n")

export const buildSystemPrompt = (
  tools: ReadonlyArray<AnyTool>,
  session: SessionContext,
  options: SystemPromptOptions = {}
): string => {
  const date = options.date ?? new Date().toISOString().slice(0, 10)
  const head = options.replace ?? [FRAME, "", environmentSection(session, date)].join("\n")
  const toolSections = tools.map((tool) => `## ${tool.name}\n${tool.prompt.trim()}`)
  return [
    head,
    ...(toolSections.length > 0 ? ["", "# Tools", "", toolSections.join("\n\n")] : []),
    ...(options.append === undefined ? [] : ["", options.append])
  ].join("\n")
}
