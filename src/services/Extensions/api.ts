/**
 * What a custom tool module gets from toolgate. The CLI is one bundled CommonJS file, so a user's
 * module cannot import toolgate's `buildTool` (nor the `effect` instance it runs on). Instead a
 * module default-exports a factory, and the loader calls it with this object:
 *
 *   // .toolgate/tools/greet.mjs
 *   export default ({ buildTool, Effect, Permission, Schema }) =>
 *     buildTool({
 *       name: "Greet",
 *       description: "Greets someone",
 *       inputSchema: Schema.Struct({ name: Schema.String }),
 *       isReadOnly: () => true,
 *       isConcurrencySafe: () => true,
 *       checkPermissions: () => Effect.succeed(Permission.allow()),
 *       call: (input) => Effect.succeed({ data: `Hello, ${input.name}!` })
 *     })
 *
 * A factory may return one tool, an array of tools, or a Promise of either. A module may instead
 * export plain definitions with no Effect at all (see plainTool.ts).
 */
import { Config, Duration, Effect, Either, Option, Schema, Stream } from "effect"
import { ToolError } from "../../Errors.js"
import { allow, ask, deny, passthrough } from "../../Permission.js"
import { buildTool, reject } from "../../Tool.js"

/** 2: `checkPermissions` answers with `Permission.allow()`, `ask(…)`, `deny(…)` or `passthrough`. */
export const TOOLGATE_API_VERSION = 2

/** What a tool's own check answers (anything else asks, forced). */
const Permission = Object.freeze({ allow, ask, deny, passthrough })

export interface ToolgateApi {
  readonly apiVersion: number
  readonly buildTool: typeof buildTool
  readonly reject: typeof reject
  readonly ToolError: typeof ToolError
  readonly Effect: typeof Effect
  readonly Schema: typeof Schema
  readonly Option: typeof Option
  readonly Either: typeof Either
  readonly Duration: typeof Duration
  readonly Stream: typeof Stream
  readonly Config: typeof Config
  readonly Permission: typeof Permission
}

export const toolgateApi: ToolgateApi = Object.freeze({
  apiVersion: TOOLGATE_API_VERSION,
  buildTool,
  reject,
  ToolError,
  Effect,
  Schema,
  Option,
  Either,
  Duration,
  Stream,
  Config,
  Permission
})
