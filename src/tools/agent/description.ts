/**
 * What the model is told about the Agent tool: the description (with the available agent types,
 * each with its tools) and the usage notes for the system prompt. Toolgate's own words.
 */
import type { AgentDefinition } from "../../services/Agent.js"

const toolsOf = (d: AgentDefinition): string => {
  const base = d.tools === undefined ? "all tools" : d.tools.join(", ")
  const minus = d.disallowedTools.length === 0 ? "" : ` except ${d.disallowedTools.join(", ")}`
  return `${base}${minus}${d.readOnly ? "; read-only calls only" : ""}`
}

export const agentToolDescription = (types: ReadonlyArray<AgentDefinition>): string =>
  [
    "Launch a subagent: a separate agent that works on one task with its own tools and context, and returns a single report when it is done.",
    "",
    "Available agent types (pass one as subagent_type; general-purpose by default):",
    ...types.map((d) => `- ${d.name}: ${d.description} (Tools: ${toolsOf(d)})`)
  ].join("\n")

export const AGENT_TOOL_PROMPT =
  `Agent starts a subagent for a task that takes several steps or a lot of searching, so that its details stay out of your context.
- The subagent does not see this conversation: put everything it needs in \`prompt\`, and say what it should report back.
- Several Agent calls in one message run in parallel: start independent subagents together.
- The result is the subagent's last message, which the user does not see: summarise what matters from it.
- A subagent's tool calls are checked by the same permission rules and hooks as yours; it cannot start subagents itself.`
