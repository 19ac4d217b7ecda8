/**
 * Which model client runs a subagent. `layerInherit` gives every subagent the parent's
 * ModelClient; `layerScripted` routes subagents to the `subagent_turn` lines of a scripted
 * session by their description (or prompt) — see scriptedSubagents.ts — and, when the script
 * has no such lines at all, to the parent's client (its turns then go to whichever request comes
 * next, which is deterministic only for one subagent at a time).
 *
 * The requested model (`model` of the call, else the type's) is passed along; the layers here
 * cannot switch models (the ModelClient stage has one model), so they use the parent's. A layer
 * of your own can honour it.
 */
import { Context, Effect, Layer } from "effect"
import { ScriptError } from "../model/errors.js"
import { ModelClient, type ModelClientService } from "../model/ModelClient.js"
import type { RetryPolicy } from "../model/retry.js"
import type { Script } from "../model/script.js"
import { makeScripted } from "../model/scripted.js"
import { loadSubagentScripts } from "./scriptedSubagents.js"

export interface SubagentModelRequest {
  readonly agentId: string
  readonly agentType: string
  readonly description: string
  readonly prompt: string
  /** `inherit`, or the alias / name the call or the type asked for. */
  readonly model: string
}

export interface SubagentModelsService {
  readonly clientFor: (request: SubagentModelRequest) => Effect.Effect<ModelClientService, ScriptError>
}

export class SubagentModels extends Context.Tag("toolgate/SubagentModels")<SubagentModels, SubagentModelsService>() {}

/** Every subagent runs on the parent's model client. */
export const layerInherit: Layer.Layer<SubagentModels, never, ModelClient> = Layer.effect(
  SubagentModels,
  Effect.map(ModelClient, (parent) => SubagentModels.of({ clientFor: () => Effect.succeed(parent) }))
)

export interface ScriptedSubagentOptions {
  /** The session's working directory (for `{{cwd}}`). */
  readonly cwd: string
  readonly timeScale?: number
  readonly retry?: RetryPolicy
}

/** Routes subagents to their own scripted turns (by description, then prompt). */
export const makeScriptedFrom = (scripts: ReadonlyMap<string, Script>, options: ScriptedSubagentOptions) =>
  Effect.gen(function* () {
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
    const file = scripts.values().next().value?.file.replace(/#.*$/, "") ?? "script"
    return SubagentModels.of({
      clientFor: (request) => {
        if (clients.size === 0) return Effect.succeed(parent)
        const client = clients.get(request.description) ?? clients.get(request.prompt)
        if (client !== undefined) return Effect.succeed(client)
        return Effect.fail(
          new ScriptError({
            file,
            reason: `no subagent_turn lines for the subagent ${JSON.stringify(request.description)} (lines have "agent" set to the Agent call's description or prompt; this script has: ${[...clients.keys()].map((k) => JSON.stringify(k)).join(", ")})`
          })
        )
      }
    })
  })

export const layerScriptedFrom = (scripts: ReadonlyMap<string, Script>, options: ScriptedSubagentOptions): Layer.Layer<SubagentModels, ScriptError, ModelClient> =>
  Layer.effect(SubagentModels, makeScriptedFrom(scripts, options))

/** The subagent turns of a scripted session or transcript file. */
export const layerScripted = (file: string, options: ScriptedSubagentOptions): Layer.Layer<SubagentModels, ScriptError, ModelClient> =>
  Layer.effect(SubagentModels, Effect.flatMap(loadSubagentScripts(file), (scripts) => makeScriptedFrom(scripts, options)))
