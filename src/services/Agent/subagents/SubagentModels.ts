/**
 * Which model client runs a subagent.
 * - `layerInherit`: every subagent runs on the parent's ModelClient.
 * - `layerAnthropicConfig` (live Claude): the model is `TOOLGATE_SUBAGENT_MODEL` (else
 *   `CLAUDE_CODE_SUBAGENT_MODEL`) when set; otherwise the call's `model`, else the type's:
 *   `inherit` is the parent's; an alias (`sonnet`, `opus`, `haiku`, `fable`) is
 *   `ANTHROPIC_DEFAULT_<ALIAS>_MODEL` when set and the parent's model otherwise (toolgate does not
 *   guess model ids); any other name is used as the model id. Clients are made once per model.
 * - `layerScripted`: routes subagents to the `subagent_turn` lines of a scripted session by their
 *   description (or prompt) — see scriptedSubagents.ts — and, when the script has no such lines
 *   at all, to the parent's client (its turns then go to whichever request comes next, which is
 *   deterministic only for one subagent at a time).
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import {
  ScriptError,
  anthropicFromConfig,
  ModelClient,
  makeScripted,
  type ModelError,
  type ModelClientService,
  type RetryPolicy,
  type Script
} from "../../ModelClient.js"
import { loadSubagentScripts } from "./scriptedSubagents.js"

export interface SubagentModelRequest {
  readonly agentId: string
  readonly agentType: string
  readonly description: string
  readonly prompt: string
  /** `inherit`, or the alias / model name the call (else the type) asked for. */
  readonly model: string
}

export interface SubagentModelsService {
  readonly clientFor: (request: SubagentModelRequest) => Effect.Effect<ModelClientService, ModelError>
}

export class SubagentModels extends Context.Tag("toolgate/SubagentModels")<SubagentModels, SubagentModelsService>() {}

/** Every subagent runs on the parent's model client. */
export const layerInherit: Layer.Layer<SubagentModels, never, ModelClient> = Layer.effect(
  SubagentModels,
  Effect.map(ModelClient, (parent) => SubagentModels.of({ clientFor: () => Effect.succeed(parent) }))
)

const optionalString = (name: string) =>
  Config.option(Config.nonEmptyString(name)).pipe(
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.map(Option.getOrUndefined)
  )

const ALIASES = new Set(["sonnet", "opus", "haiku", "fable"])

/** Claude for subagents, configured like the parent (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, …). */
export const makeAnthropicConfig = Effect.gen(function*() {
  const parent = yield* ModelClient
  const fixed = (yield* optionalString("TOOLGATE_SUBAGENT_MODEL")) ??
    (yield* optionalString("CLAUDE_CODE_SUBAGENT_MODEL"))
  const aliases = new Map<string, string>()
  for (const alias of ALIASES) {
    const id = yield* optionalString(`ANTHROPIC_DEFAULT_${alias.toUpperCase()}_MODEL`)
    if (id !== undefined) aliases.set(alias, id)
  }
  const clients = new Map<string, ModelClientService>([[parent.model, parent]])
  const modelFor = (requested: string): string => {
    if (fixed !== undefined) return fixed
    if (requested === "inherit" || requested === "") return parent.model
    if (ALIASES.has(requested)) return aliases.get(requested) ?? parent.model
    return requested
  }
  return SubagentModels.of({
    clientFor: (request) =>
      Effect.suspend(() => {
        const model = modelFor(request.model)
        const known = clients.get(model)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(anthropicFromConfig(model), (client) => Effect.sync(() => void clients.set(model, client)))
      })
  })
})

export const layerAnthropicConfig: Layer.Layer<SubagentModels, never, ModelClient> = Layer.effect(
  SubagentModels,
  makeAnthropicConfig
)

export interface ScriptedSubagentOptions {
  /** The session's working directory (for `{{cwd}}`). */
  readonly cwd: string
  readonly timeScale?: number
  readonly retry?: RetryPolicy
}

/** Routes subagents to their own scripted turns (by description, then prompt). */
export const makeScriptedFrom = (scripts: ReadonlyMap<string, Script>, options: ScriptedSubagentOptions) =>
  Effect.gen(function*() {
    const parent = yield* ModelClient
    const clients = new Map<string, ModelClientService>()
    for (const [key, script] of scripts) {
      clients.set(
        key,
        yield* makeScripted({
          script,
          cwd: options.cwd,
          ...(options.timeScale === undefined ? {} : { timeScale: options.timeScale }),
          ...(options.retry === undefined ? {} : { retry: options.retry })
        })
      )
    }
    const first = scripts.entries().next().value
    // each script is named `<file>#<key>`
    const file = first === undefined ? "script" : first[1].file.slice(0, first[1].file.length - first[0].length - 1)
    return SubagentModels.of({
      clientFor: (request) => {
        if (clients.size === 0) return Effect.succeed(parent)
        const client = clients.get(request.description) ?? clients.get(request.prompt)
        if (client !== undefined) return Effect.succeed(client)
        return Effect.fail(
          new ScriptError({
            file,
            reason: `no subagent_turn lines for the subagent ${
              JSON.stringify(request.description)
            } (lines have "agent" set to the Agent call's description or prompt; this script has: ${
              [...clients.keys()].map((k) => JSON.stringify(k)).join(", ")
            })`
          })
        )
      }
    })
  })

export const layerScriptedFrom = (
  scripts: ReadonlyMap<string, Script>,
  options: ScriptedSubagentOptions
): Layer.Layer<SubagentModels, ScriptError, ModelClient> =>
  Layer.effect(SubagentModels, makeScriptedFrom(scripts, options))

/** The subagent turns of a scripted session or transcript file. */
export const layerScripted = (
  file: string,
  options: ScriptedSubagentOptions
): Layer.Layer<SubagentModels, ScriptError, ModelClient> =>
  Layer.effect(
    SubagentModels,
    Effect.flatMap(loadSubagentScripts(file), (scripts) => makeScriptedFrom(scripts, options))
  )
