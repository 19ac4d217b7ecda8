/**
 * The scripted model of a served session: it answers the session's model turn N with the
 * script's turn N, whatever happened before — so a run resumed on another runner, whose earlier
 * turns come from storage, continues at the right place in the script.
 */
import { Effect, Stream } from "effect"
import { makeScripted, type ModelClientService, type Script } from "../ModelClient.js"
import { CurrentModelTurn } from "./durableModel.js"

export interface PositionedScriptOptions {
  readonly script: Script
  readonly cwd: string
  /** 1 = as recorded, 0 = no delays. */
  readonly timeScale?: number
}

export const makePositionedScripted = (options: PositionedScriptOptions): ModelClientService => ({
  model: `scripted:${options.script.file}`,
  stream: (request) =>
    Stream.unwrap(
      Effect.gen(function*() {
        const turn = yield* CurrentModelTurn
        const client = yield* makeScripted({
          script: { ...options.script, turns: options.script.turns.slice(Math.max(0, turn - 1)) },
          cwd: options.cwd,
          ...(options.timeScale === undefined ? {} : { timeScale: options.timeScale })
        })
        return client.stream(request)
      })
    )
})
