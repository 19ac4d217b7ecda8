/**
 * A conformance scenario: a scripted model session and the folder it runs in. The format is the
 * oracle's case format (`scenarios/*.json` hold arrays of them), so a case written for one runs
 * in the other. Placeholders in any string: {{PROJ}} {{HOME}} {{ROOT}} {{OUTSIDE}} (the run's
 * folders), {{FIXTURES}} (conformance/fixtures) and {{NODE}} (the node binary).
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { decodeDocument, DocumentError } from "./documents.js"

const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A file to create: its text, or how to make its bytes. A key ending in `/` is a folder (value null). */
export const FileSpec = Schema.Union(
  Schema.String,
  Schema.Null,
  Schema.Struct({
    content: optional(Schema.String),
    base64: optional(Schema.String),
    hex: optional(Schema.String),
    repeat: optional(Schema.String),
    times: optional(Schema.Number),
    prefix: optional(Schema.String),
    suffix: optional(Schema.String),
    lines: optional(Schema.Number),
    format: optional(Schema.String),
    mode: optional(Schema.String),
    /** Seconds added to the file's mtime (negative: older). */
    mtime_offset: optional(Schema.Number)
  })
)
export type FileSpec = typeof FileSpec.Type

export const ScriptBlock = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("tool_use"), id: Schema.String, name: Schema.String, input: Schema.Unknown })
)
export type ScriptBlock = typeof ScriptBlock.Type

export const Turn = Schema.Struct({
  blocks: Schema.Array(ScriptBlock),
  stop_reason: optional(Schema.String)
})
export type Turn = typeof Turn.Type

const PerProgram = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.Struct({ cc: optional(schema), tg: optional(schema) })

const Json = Schema.Unknown

export const Scenario = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9._-]*$/)),
  area: Schema.String,
  description: Schema.String,
  prompt: optional(Schema.String),
  files: optional(Schema.Record({ key: Schema.String, value: FileSpec })),
  settings: optional(Json),
  local_settings: optional(Json),
  home_settings: optional(Json),
  settings_flag: optional(Json),
  mcp: optional(Json),
  mode: optional(Schema.Literal("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")),
  allowed_tools: optional(Schema.Array(Schema.String)),
  disallowed_tools: optional(Schema.Array(Schema.String)),
  add_dirs: optional(Schema.Array(Schema.String)),
  env: optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  env_by_program: optional(PerProgram(Schema.Record({ key: Schema.String, value: Schema.String }))),
  extra_args: optional(PerProgram(Schema.Array(Schema.String))),
  setup_commands: optional(Schema.Array(Schema.String)),
  /** The model both programs are told to use (default: the suite's default model). */
  model: optional(Schema.String),
  turns: Schema.NonEmptyArray(Turn),
  /**
   * Claude Code may end the session without sending tool results back (e.g. a hook stops it), or
   * without asking the model at all (a UserPromptSubmit hook blocks the prompt).
   */
  stop_ok: optional(Schema.Boolean),
  /** The scenario keeps its MCP servers from starting on purpose: no MCP tool is offered. */
  mcp_tools_absent: optional(Schema.Boolean),
  /** Also compare the text blocks sent beside the results (hook context, reminders). */
  compare_extras: optional(Schema.Boolean)
})
export type Scenario = typeof Scenario.Type

export const ScenarioFile = Schema.Array(Scenario)

/** The model the suite runs scenarios with unless one says otherwise (the oracle's default). */
export const DEFAULT_MODEL = "claude-sonnet-4-5-20250929"

export const modelOf = (scenario: Scenario): string => scenario.model ?? DEFAULT_MODEL

/** The script the fake Messages API plays: the scenario's turns, ending with a text turn. */
export const scriptOf = (scenario: Scenario): ReadonlyArray<Turn> =>
  scenario.turns.length === 1 ? [...scenario.turns, { blocks: [{ type: "text", text: "Done." }] }] : scenario.turns

/** How many requests carry tool results back (every turn but the last). */
export const resultSteps = (scenario: Scenario): number => scriptOf(scenario).length - 1

export const SCENARIOS_DIR = path.resolve(import.meta.dirname, "..", "scenarios")

/** Every scenario of every file in `dir`, in file then document order; names must be unique. */
export const loadScenarios = (dir: string = SCENARIOS_DIR): Effect.Effect<ReadonlyArray<Scenario>, DocumentError> =>
  Effect.gen(function*() {
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
    const all: Array<Scenario> = []
    const seen = new Map<string, string>()
    for (const file of files) {
      const scenarios = yield* decodeDocument(path.join(dir, file), ScenarioFile)
      for (const [index, scenario] of scenarios.entries()) {
        const earlier = seen.get(scenario.name)
        if (earlier !== undefined) {
          return yield* new DocumentError({
            file: path.join(dir, file),
            path: `[${index}].name`,
            message: `scenario name ${scenario.name} is already used in ${earlier}`
          })
        }
        seen.set(scenario.name, file)
        all.push(scenario)
      }
    }
    return all
  })

/** Scenarios picked by name (`only`) and area (`areas`); an unknown name, or a filter nothing matches, is an error. */
export const select = (
  scenarios: ReadonlyArray<Scenario>,
  filter: { readonly only?: ReadonlyArray<string>; readonly areas?: ReadonlyArray<string> }
): Effect.Effect<ReadonlyArray<Scenario>, DocumentError> => {
  const unknown = (filter.only ?? []).filter((name) => !scenarios.some((s) => s.name === name))
  if (unknown.length > 0) {
    return Effect.fail(
      new DocumentError({ file: SCENARIOS_DIR, path: "", message: `no scenario named ${unknown.join(", ")}` })
    )
  }
  const only = filter.only ?? []
  const areas = filter.areas ?? []
  const chosen = scenarios.filter((s) =>
    (only.length === 0 || only.includes(s.name)) && (areas.length === 0 || areas.includes(s.area))
  )
  if (chosen.length === 0 && (only.length > 0 || areas.length > 0)) {
    const named = [
      only.length > 0 ? `--only ${only.join(",")}` : "",
      areas.length > 0 ? `--area ${areas.join(",")}` : ""
    ].filter((s) => s !== "")
    return Effect.fail(
      new DocumentError({ file: SCENARIOS_DIR, path: "", message: `no scenario matches ${named.join(" ")}` })
    )
  }
  return Effect.succeed(chosen)
}
