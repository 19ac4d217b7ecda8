/**
 * Testing your own tools and stages the way toolgate tests its own: a temporary workspace, settings
 * held in memory (no file read), a scripted model written inline, an approver that records what it
 * was asked, and a runtime made of these with any stage replaceable.
 *
 *   const ws = Testing.workspace({ "a.txt": "hello" })
 *   const approver = Testing.recordedApprover()
 *   const runtime = Testing.layer({ cwd: ws, allow: ["Read"], approver: approver.layer,
 *     model: Testing.scriptedModel(ws, [Testing.turn(Testing.toolUse("Read", { file_path: "a.txt" })), Testing.turn(Testing.text("done"))]) })
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ToolUseBlock } from "../Messages.js"
import type { PermissionMode, RuleBehavior } from "../Permission.js"
import { makeRule } from "../PermissionRules.js"
import { newSession, type SessionContext } from "../Session.js"
import * as Approver from "../services/Approver.js"
import * as McpClients from "../services/McpClients.js"
import * as ModelClient from "../services/ModelClient.js"
import * as Sandbox from "../services/Sandbox.js"
import * as Settings from "../services/Settings.js"
import * as Runtime from "./Runtime.js"

// ---------------------------------------------------------------------------------------------
// A temporary workspace

/**
 * Makes a folder under the OS temp dir holding `files` (relative path → text); you remove it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWorkspace = (files: Readonly<Record<string, string>> = {}, prefix = "toolgate-test-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
  }
  return dir
}

/**
 * A workspace removed when the scope closes.
 *
 * @since 0.1.0
 * @category utils
 */
export const workspace = (files: Readonly<Record<string, string>> = {}): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => makeWorkspace(files)),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * A session in `cwd` (its session folder inside it).
 *
 * @since 0.1.0
 * @category utils
 */
export const session = (cwd: string, permissionMode: PermissionMode = "default"): SessionContext =>
  newSession({ cwd, permissionMode, sessionDir: path.join(cwd, ".session") })

/**
 * A `tool_use` block, as a model would send it.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolUseBlock = (id: string, name: string, input: unknown = {}): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input
})

// ---------------------------------------------------------------------------------------------
// Settings in memory

/**
 * @since 0.1.0
 * @category models
 */
export interface SettingsInMemory {
  readonly cwd: string
  /** Rules as written in settings.json, e.g. `Bash(npm test)`. */
  readonly allow?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  readonly permissionMode?: PermissionMode
  readonly additionalDirectories?: ReadonlyArray<string>
  /** Any other settings key (e.g. `cleanupPeriodDays`). */
  readonly values?: Readonly<Record<string, unknown>>
}

const rulesOf = (options: SettingsInMemory) =>
  (["deny", "ask", "allow"] as const satisfies ReadonlyArray<RuleBehavior>).flatMap((behavior) =>
    (options[behavior] ?? []).map((raw) => makeRule(raw, behavior, "session", options.cwd))
  )

/**
 * Settings held in memory: no settings file is read; rules added by "always allow" stay in memory.
 *
 * @since 0.1.0
 * @category utils
 */
export const settings = (options: SettingsInMemory): Layer.Layer<Settings.Settings> =>
  Settings.layerStatic({
    cwd: options.cwd,
    rules: rulesOf(options),
    mode: options.permissionMode ?? "default",
    additionalDirectories: options.additionalDirectories ?? [],
    value: (key) => options.values?.[key]
  })

// ---------------------------------------------------------------------------------------------
// A scripted model

/**
 * A block of a scripted turn.
 *
 * @since 0.1.0
 * @category models
 */
export type ScriptBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly name: string; readonly input: unknown; readonly id?: string }

/**
 * @since 0.1.0
 * @category models
 */
export interface ScriptTurn {
  readonly type: "turn"
  readonly content: ReadonlyArray<ScriptBlock>
  readonly stop_reason?: string
}

/**
 * @since 0.1.0
 * @category utils
 */
export const text = (value: string): ScriptBlock => ({ type: "text", text: value })
/**
 * @since 0.1.0
 * @category utils
 */
export const toolUse = (name: string, input: unknown, id?: string): ScriptBlock =>
  id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id }
/**
 * One model turn: its blocks; the stop reason is `tool_use` when it asks for tools, else `end_turn`.
 *
 * @since 0.1.0
 * @category utils
 */
export const turn = (...content: ReadonlyArray<ScriptBlock>): ScriptTurn => ({ type: "turn", content })

/**
 * A model that answers each request with the next turn, at once (`timeScale` 1 replays the
 * streaming timing of a real model). `{{cwd}}` in texts and inputs becomes `cwd`.
 *
 * @since 0.1.0
 * @category utils
 */
export const scriptedModel = (
  cwd: string,
  turns: ReadonlyArray<ScriptTurn | Readonly<Record<string, unknown>>>,
  options: { readonly timeScale?: number } = {}
): Layer.Layer<ModelClient.ModelClient, ModelClient.ModelError> => {
  const parsed = ModelClient.parseScript("inline-script.jsonl", turns.map((t) => JSON.stringify(t)).join("\n"))
  return parsed._tag === "Left"
    ? Layer.fail(parsed.left)
    : ModelClient.layerScripted({ script: parsed.right, cwd, timeScale: options.timeScale ?? 0 })
}

// ---------------------------------------------------------------------------------------------
// A recorded approver

/**
 * @since 0.1.0
 * @category models
 */
export interface RecordedApprover {
  readonly layer: Layer.Layer<Approver.Approver>
  /** Every question asked so far, in order. */
  readonly requests: ReadonlyArray<Approver.ApprovalRequest>
}

/**
 * An approver that records each question and answers it (default: allow once).
 *
 * @since 0.1.0
 * @category utils
 */
export const recordedApprover = (
  answer: (request: Approver.ApprovalRequest) => Approver.ApprovalAnswer | Effect.Effect<Approver.ApprovalAnswer> =
    () => ({
      behavior: "allow",
      scope: "once"
    })
): RecordedApprover => {
  const requests: Array<Approver.ApprovalRequest> = []
  return {
    requests,
    layer: Approver.layerCallback((request) =>
      Effect.suspend(() => {
        requests.push(request)
        const given = answer(request)
        return Effect.isEffect(given) ? given : Effect.succeed(given)
      })
    )
  }
}

// ---------------------------------------------------------------------------------------------
// A test runtime

/**
 * @since 0.1.0
 * @category models
 */
export interface TestingOptions<R = never>
  extends Omit<Runtime.RuntimeOptions<R>, keyof Settings.SettingsOptions>, Omit<SettingsInMemory, "cwd">
{
  readonly cwd: string
}

/**
 * The runtime with real stages, except: settings in memory, no MCP server, no skills or custom
 * tool modules, no kernel sandbox, and (unless given) an approver that denies every question.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = never>(options: TestingOptions<R>) =>
  Runtime.layer<R>({
    mcp: false,
    extensions: { disabled: true },
    sandbox: Sandbox.layerNone,
    ...options,
    layers: { Settings: settings(options), McpClients: McpClients.layerNone, ...options.layers }
  })

/**
 * The test runtime and the agent loop on the given model (e.g. `scriptedModel`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithAgent = <R = never, E = never>(
  options: TestingOptions<R> & Pick<Runtime.AgentRuntimeOptions<R, E>, "model" | "agents" | "agent">
) =>
  Runtime.layerWithAgent<R, E>({
    mcp: false,
    extensions: { disabled: true },
    sandbox: Sandbox.layerNone,
    ...options,
    layers: { Settings: settings(options), McpClients: McpClients.layerNone, ...options.layers }
  })
