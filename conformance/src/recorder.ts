/**
 * Recording goldens from Claude Code: find it (it is a tool on the developer's machine, never a
 * dependency), check its version, run the chosen scenarios through it, and write one golden per
 * scenario plus the shared tool definitions (from the baseline scenario).
 */
import { Console, Effect, Option, Schema } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { decodeDocument, writeDocument, type DocumentError } from "./documents.js"
import {
  BASELINE_SCENARIO,
  CLAUDE_CODE_VERSION,
  Golden,
  goldenFile,
  TOOL_DEFINITIONS_FILE,
  ToolDefinitions,
  type ToolDefinition
} from "./Golden.js"
import { canonical, withoutDescriptions } from "./compare.js"
import type { LayoutError } from "./layout.js"
import { observe, type Observation } from "./runScenario.js"
import { modelOf, DEFAULT_MODEL, type Scenario } from "./Scenario.js"

export class ClaudeCodeMissing extends Schema.TaggedError<ClaudeCodeMissing>()("ClaudeCodeMissing", {
  message: Schema.String
}) {}

/** Where Claude Code may be: $CONFORMANCE_CLAUDE_BIN, the oracle's install, then `claude` on PATH. */
const candidates = (): ReadonlyArray<string> => {
  const fromEnv = process.env.CONFORMANCE_CLAUDE_BIN
  const onPath = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d !== "").map((d) =>
    path.join(d, "claude")
  )
  return [
    ...(fromEnv ? [fromEnv] : []),
    path.join(os.homedir(), ".cache", "claude-code", "node_modules", ".bin", "claude"),
    ...onPath
  ]
}

/** The Claude Code binary of the version the goldens are for. */
export const findClaudeCode: Effect.Effect<string, ClaudeCodeMissing> = Effect.suspend(() => {
  const seen: Array<string> = []
  for (const bin of candidates()) {
    if (!fs.existsSync(bin)) continue
    const ran = spawnSync(bin, ["--version"], {
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: os.tmpdir() }
    })
    const version = /^(\d+\.\d+\.\d+)/.exec(ran.stdout?.trim() ?? "")?.[1]
    if (version === CLAUDE_CODE_VERSION) return Effect.succeed(bin)
    seen.push(`${bin} (${version ?? "no version"})`)
  }
  return Effect.fail(
    new ClaudeCodeMissing({
      message:
        `Claude Code ${CLAUDE_CODE_VERSION} was not found${
          seen.length > 0 ? ` (found ${seen.join(", ")})` : ""
        }; nothing recorded. ` +
        `Install it outside the repo: npm install --prefix ~/.cache/claude-code @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} ` +
        `(or point CONFORMANCE_CLAUDE_BIN at it).`
    })
  )
})

const definitionsOf = (tools: ReadonlyArray<ToolDefinition>): ReadonlyArray<ToolDefinition> =>
  tools.map((t) => ({ name: t.name, input_schema: withoutDescriptions(t.input_schema) }))

export const loadDefinitions: Effect.Effect<Option.Option<ToolDefinitions>, DocumentError> = Effect.suspend(() =>
  fs.existsSync(TOOL_DEFINITIONS_FILE)
    ? Effect.map(decodeDocument(TOOL_DEFINITIONS_FILE, ToolDefinitions), Option.some)
    : Effect.succeed(Option.none())
)

export const loadGolden = (name: string): Effect.Effect<Option.Option<Golden>, DocumentError> =>
  Effect.suspend(() => (fs.existsSync(goldenFile(name))
    ? Effect.map(decodeDocument(goldenFile(name), Golden), Option.some)
    : Effect.succeed(Option.none()))
  )

export const goldenOf = (
  scenario: Scenario,
  observed: Observation,
  definitions: ToolDefinitions | undefined
): Golden => {
  const shared = new Map((definitions?.tools ?? []).map((t) => [t.name, canonical(t.input_schema)]))
  const own = definitionsOf(observed.tools).filter((t) => shared.get(t.name) !== canonical(t.input_schema))
  return {
    name: scenario.name,
    claude_code: CLAUDE_CODE_VERSION,
    model: modelOf(scenario),
    tools: observed.tools.map((t) => t.name),
    tool_schemas: Object.fromEntries(own.map((t) => [t.name, t.input_schema])),
    outcome: observed.noRequest ? "no_request" : observed.stopped ? "stopped" : "results",
    steps: observed.steps,
    files: observed.files
  }
}

export interface RecordOptions {
  readonly concurrency: number
  readonly timeoutMs?: number
}

export type Recorded =
  | { readonly _tag: "Written"; readonly name: string; readonly results: number; readonly wallMs: number }
  | { readonly _tag: "Unusable"; readonly name: string; readonly reason: string }

/**
 * Claude Code does not wait long for MCP servers before its first request: on a busy machine the
 * servers' tools are missing from it. Such a run is repeated (a scenario that denies MCP tools on
 * purpose is taken as it is).
 */
const mcpToolsMissing = (scenario: Scenario, observed: Observation) =>
  scenario.mcp !== undefined &&
  scenario.mcp_tools_absent !== true &&
  !(scenario.disallowed_tools ?? []).some((r) => r.startsWith("mcp__")) &&
  observed.problem === undefined &&
  !observed.tools.some((t) => t.name.startsWith("mcp__"))

const observeWith = (
  bin: string,
  scenario: Scenario,
  options: RecordOptions
): Effect.Effect<Observation, LayoutError> =>
  Effect.gen(function*() {
    const once = observe(
      { kind: "cc", bin },
      scenario,
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }
    )
    let observed = yield* once
    for (let attempt = 1; attempt < 3 && mcpToolsMissing(scenario, observed); attempt++) observed = yield* once
    return observed
  })

const unusable = (scenario: Scenario, observed: Observation): string | undefined => {
  if (mcpToolsMissing(scenario, observed)) {
    return "the MCP servers' tools were not in the first request (still connecting); try again on a quieter machine"
  }
  return observed.problem === undefined || (scenario.stop_ok === true && (observed.stopped || observed.noRequest))
    ? undefined
    : `${observed.problem} (exit ${observed.exitCode}${observed.timedOut ? ", timed out" : ""}): ${
      observed.stderr.slice(-400)
    }`
}

/** Records the scenarios; the baseline first when the shared tool definitions are missing or chosen. */
export const record = (
  bin: string,
  scenarios: ReadonlyArray<Scenario>,
  all: ReadonlyArray<Scenario>,
  options: RecordOptions
): Effect.Effect<ReadonlyArray<Recorded>, DocumentError | LayoutError> =>
  Effect.gen(function*() {
    let definitions = Option.getOrUndefined(yield* loadDefinitions)
    const baseline = all.find((s) => s.name === BASELINE_SCENARIO && modelOf(s) === DEFAULT_MODEL)
    const out: Array<Recorded> = []
    const writeOne = (scenario: Scenario, observed: Observation) =>
      Effect.gen(function*() {
        const reason = unusable(scenario, observed)
        if (reason !== undefined) return { _tag: "Unusable", name: scenario.name, reason } as const
        const golden = goldenOf(scenario, observed, definitions)
        yield* writeDocument(goldenFile(scenario.name), Golden, golden)
        return {
          _tag: "Written",
          name: scenario.name,
          results: golden.steps.reduce((n, s) => n + s.results.length, 0),
          wallMs: observed.wallMs
        } as const
      })
    const rest = [...scenarios]
    if (baseline !== undefined && (definitions === undefined || scenarios.some((s) => s.name === BASELINE_SCENARIO))) {
      const observed = yield* observeWith(bin, baseline, options)
      if (observed.problem === undefined) {
        definitions = {
          claude_code: CLAUDE_CODE_VERSION,
          model: DEFAULT_MODEL,
          scenario: BASELINE_SCENARIO,
          tools: definitionsOf(observed.tools)
        }
        yield* writeDocument(TOOL_DEFINITIONS_FILE, ToolDefinitions, definitions)
        yield* Console.error(`tool definitions: ${definitions.tools.map((t) => t.name).join(", ")}`)
      }
      out.push(yield* writeOne(baseline, observed))
      const at = rest.findIndex((s) => s.name === BASELINE_SCENARIO)
      if (at >= 0) rest.splice(at, 1)
    }
    const recorded = yield* Effect.forEach(
      rest,
      (scenario) =>
        observeWith(bin, scenario, options).pipe(
          Effect.flatMap((observed) => writeOne(scenario, observed)),
          Effect.tap((r) =>
            Console.error(
              r._tag === "Written"
                ? `recorded ${r.name} (${r.results} results, ${(r.wallMs / 1000).toFixed(1)} s)`
                : `UNUSABLE ${r.name}: ${r.reason}`
            )
          )
        ),
      { concurrency: options.concurrency }
    )
    return [...out, ...recorded]
  })
