/**
 * The Agent tool's input: `description` (3–5 words), `prompt`,
 * `subagent_type?`, `model?`, `effort?`, `run_in_background?`, `isolation?` — the JSON Schema the
 * model sees is Claude Code's. Decoding is not strict, as in Claude Code: unknown keys are
 * dropped, not errors. `run_in_background` and `isolation` are decoded so that a call asking for
 * them is refused (validateInput) instead of silently run in the foreground or in place;
 * `effort`, `name`, `team_name` and the deprecated `mode` are accepted and ignored (a subagent
 * never gets a looser permission mode than its parent).
 */
import { Schema } from "effect"
import { BooleanLike, optional } from "../schemas.js"

export const MODEL_ALIASES = ["sonnet", "opus", "haiku", "fable"] as const
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const

const JSON_SCHEMA = {
  type: "object",
  properties: {
    description: { type: "string", description: "A short (3-5 word) description of the task" },
    prompt: {
      type: "string",
      description:
        "The task for the agent to perform: everything it needs to know, since it does not see this conversation"
    },
    subagent_type: { type: "string", description: "The type of agent to use (default: general-purpose)" },
    model: {
      type: "string",
      enum: [...MODEL_ALIASES],
      description: "Optional model for this agent; by default the agent type's model (or this conversation's)"
    },
    effort: {
      type: "string",
      enum: [...EFFORT_LEVELS],
      description: "How much reasoning effort the agent should spend"
    },
    run_in_background: {
      type: "boolean",
      description: "Run the agent in the background (toolgate refuses this: call Agent in the foreground)"
    },
    isolation: {
      type: "string",
      enum: ["worktree", "remote"],
      description: "Run the agent in an isolated copy of the repository (toolgate refuses this: call Agent without it)"
    }
  },
  required: ["description", "prompt"],
  additionalProperties: false
}

export const AgentInput = Schema.Struct({
  description: Schema.String,
  prompt: Schema.String,
  subagent_type: optional(Schema.String),
  model: optional(Schema.Literal(...MODEL_ALIASES)),
  effort: optional(Schema.Literal(...EFFORT_LEVELS)),
  run_in_background: optional(BooleanLike),
  name: optional(Schema.String),
  team_name: optional(Schema.String),
  mode: optional(Schema.String),
  isolation: optional(Schema.Literal("worktree", "remote"))
}).annotations({ parseOptions: { onExcessProperty: "ignore" }, jsonSchema: JSON_SCHEMA })

export type AgentInput = typeof AgentInput.Type

/** What the model sees when background tasks are disabled: no `run_in_background` (a call that sends it is still refused). */
const { run_in_background: _background, ...FOREGROUND_PROPERTIES } = JSON_SCHEMA.properties
export const ForegroundAgentInput = AgentInput.annotations({
  jsonSchema: { ...JSON_SCHEMA, properties: FOREGROUND_PROPERTIES }
})
