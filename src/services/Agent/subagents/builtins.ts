/**
 * The built-in subagent types: Claude Code's three core ones. `general-purpose` has every tool of
 * the pool; `Explore` and `Plan` lose the editing tools (Edit, Write, NotebookEdit) as in Claude
 * Code, and toolgate also holds every one of their calls to the tool's own `isReadOnly(input)`
 * (so a Bash command that writes is refused rather than left to the prompt). Claude Code runs
 * Explore on Haiku: on Claude, toolgate's `haiku` is `ANTHROPIC_DEFAULT_HAIKU_MODEL` when set,
 * else the parent's model (SubagentModels). The prompts are toolgate's own words.
 */
import type { AgentDefinition } from "./definitions.js"

export const DEFAULT_AGENT_TYPE = "general-purpose"

const EDITING_TOOLS = ["Edit", "Write", "NotebookEdit", "ExitPlanMode"]

const REPORT =
  `When you are done, answer with a short report: what you found or did, with file paths (absolute) and the facts the caller needs. The caller sees only this last message, not your tool calls.`

export const BUILTIN_AGENTS: ReadonlyArray<AgentDefinition> = [
  {
    name: DEFAULT_AGENT_TYPE,
    description:
      "A general agent for research and multi-step tasks: searching code, reading many files, running commands and making changes. Use it when a task needs several steps and you do not want their details in your own context.",
    tools: undefined,
    disallowedTools: [],
    model: "inherit",
    maxTurns: undefined,
    systemPrompt:
      `You are a subagent working for another agent, whose tool calls are run by toolgate (permission rules, hooks and scheduling apply to every call). Do the task you are given with the tools you have, completely but without going beyond it. Search broadly when you do not know where something is; read files before you change them; do not create files that the task does not need.

${REPORT}`,
    readOnly: false,
    source: "built-in"
  },
  {
    name: "Explore",
    description:
      "A fast, read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, answering questions about how the code works. Say how thorough it should be (\"quick\", \"medium\" or \"very thorough\").",
    tools: undefined,
    disallowedTools: EDITING_TOOLS,
    model: "haiku",
    maxTurns: undefined,
    systemPrompt:
      `You are a read-only exploration subagent. Find and read what answers the question you are given, using search and read tools; run only commands that change nothing (every call that would write is refused). Make independent searches in one message so they run in parallel, and stop as soon as you can answer.

${REPORT}`,
    readOnly: true,
    source: "built-in"
  },
  {
    name: "Plan",
    description:
      "A read-only agent for planning an implementation: it studies the code and returns a step-by-step plan, the files that matter, and the trade-offs.",
    tools: undefined,
    disallowedTools: EDITING_TOOLS,
    model: "inherit",
    maxTurns: undefined,
    systemPrompt:
      `You are a read-only planning subagent. Study the code that the task touches (every call that would write is refused), then return a plan: the steps in order, the files to change (absolute paths) and why, the risks and the trade-offs you weighed.

${REPORT}`,
    readOnly: true,
    source: "built-in"
  }
]
