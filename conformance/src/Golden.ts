/**
 * What Claude Code did on a scenario, recorded by `npm run conformance:record`: the tools it
 * offered in the first request (names; input schemas only where they differ from the shared
 * tool definitions), every tool_result it sent back per step (normalised text, is_error, in the
 * order it sent them), the text sent beside them, and the project files left behind.
 * Descriptions are never kept.
 */
import { Schema } from "effect"
import * as path from "node:path"
import { FileEntry } from "./layout.js"

export const ResultEntry = Schema.Struct({
  tool_use_id: Schema.String,
  is_error: Schema.Boolean,
  text: Schema.String
})
export type ResultEntry = typeof ResultEntry.Type

export const Step = Schema.Struct({
  results: Schema.Array(ResultEntry),
  /** Text blocks of the same user message, beside the results (normalised). */
  extras: Schema.Array(Schema.String)
})
export type Step = typeof Step.Type

export const Golden = Schema.Struct({
  name: Schema.String,
  claude_code: Schema.String,
  model: Schema.String,
  tools: Schema.Array(Schema.String),
  /** Input schemas of the offered tools that the shared tool definitions do not have (or have otherwise). */
  tool_schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /**
   * `stopped`: the session ended without sending tool results back; `no_request`: it never asked
   * the model at all (a UserPromptSubmit hook blocked the prompt).
   */
  outcome: Schema.Literal("results", "stopped", "no_request"),
  steps: Schema.Array(Step),
  files: Schema.Record({ key: Schema.String, value: FileEntry })
})
export type Golden = typeof Golden.Type

export const ToolDefinition = Schema.Struct({ name: Schema.String, input_schema: Schema.Unknown })
export type ToolDefinition = typeof ToolDefinition.Type

/** The tool definitions of Claude Code's first request on the baseline scenario. */
export const ToolDefinitions = Schema.Struct({
  claude_code: Schema.String,
  model: Schema.String,
  scenario: Schema.String,
  tools: Schema.Array(ToolDefinition)
})
export type ToolDefinitions = typeof ToolDefinitions.Type

export const GOLDENS_DIR = path.resolve(import.meta.dirname, "..", "goldens")
export const TOOL_DEFINITIONS_FILE = path.join(GOLDENS_DIR, "_tool-definitions.json")
export const BASELINE_SCENARIO = "baseline-read"

export const goldenFile = (name: string): string => path.join(GOLDENS_DIR, `${name}.json`)

/** Claude Code version the goldens are recorded from. */
export const CLAUDE_CODE_VERSION = "2.1.332"
