/**
 * The permission stage: decides allow / deny / ask for one call from the rules of every source,
 * the mode, the working directories, safety checks, and the tool's own check
 * (the rules in src/services/Permissions/decide.ts). Resolving an
 * "ask" (dontAsk, hooks, the Approver) is the pipeline's job.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { AnyTool } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import { allow, deny, type Decision, type PathRules } from "../Permission.js"
import { decideCall, pathRulesOf, readsWithoutAsking, type DecideEnvironment } from "./Permissions/decide.js"
import { Settings, type LoadedSettings } from "./Settings.js"
import { FileState, type FileStateService } from "./FileState.js"
import { ShellAnalyzer, type ShellAnalyzerService } from "./ShellAnalyzer.js"
import { analyzeBashWith } from "./Permissions/bashAnalyzer.js"
import { Sandbox } from "./Sandbox.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionRequest {
  readonly tool: AnyTool
  /** The input as checked: decoded, with paths made absolute. */
  readonly input: unknown
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionsService {
  readonly decide: (request: PermissionRequest) => Effect.Effect<Decision>
  /** The session's path deny rules, for the tools' own checks (absent: tools rely on `decide`). */
  readonly pathRules?: (session: SessionContext) => Effect.Effect<PathRules>
  /**
   * Whether `tool` could read `file` in this session without asking (see decide.ts). Optional, so
   * a replacement service may leave it out: then no read counts as free (fail closed).
   */
  readonly readsWithoutAsking?: (tool: AnyTool, file: string, session: SessionContext) => Effect.Effect<boolean>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Permissions extends Context.Tag("toolgate/Permissions")<Permissions, PermissionsService>() {}

/**
 * What the decision needs from the merged settings.
 *
 * @since 0.1.0
 * @category utils
 */
export const environmentOf = (
  loaded: LoadedSettings,
  fileState: FileStateService,
  shell: ShellAnalyzerService
): DecideEnvironment => ({
  rules: loaded.rules,
  launchCwd: loaded.cwd,
  additionalDirectories: loaded.additionalDirectories,
  bypassDisabled: loaded.bypassDisabled === true,
  fileState,
  analyzeBash: analyzeBashWith(shell),
  ...(loaded.home === undefined ? {} : { home: loaded.home })
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const settings = yield* Settings
  const fileState = yield* FileState
  const shell = yield* ShellAnalyzer
  // Optional: without a Sandbox stage, the settings' sandbox changes no decision.
  const sandbox = yield* Effect.serviceOption(Sandbox)
  const sandboxPermissions = Option.match(sandbox, {
    onNone: () => Effect.succeed(undefined),
    onSome: (s) => s.permissions
  })

  // Untraced, as every per-call stage: a span per stage per call cost as much as the rest of the
  // call (bench/overhead.ts); the message keeps its span (Scheduler.runMessage / runStream).
  const decide = (request: PermissionRequest) =>
    Effect.flatMap(settings.current, (loaded) =>
      loaded.broken !== undefined
        ? Effect.succeed(brokenSettingsDenial(loaded.broken.message))
        : Effect.flatMap(sandboxPermissions, (inForce) =>
          decideCall(
            request,
            inForce === undefined
              ? environmentOf(loaded, fileState, shell)
              : { ...environmentOf(loaded, fileState, shell), sandbox: inForce }
          )))

  const pathRules = (session: SessionContext) =>
    Effect.map(settings.current, (loaded) => pathRulesOf(environmentOf(loaded, fileState, shell), session))

  return Permissions.of({
    decide,
    pathRules,
    readsWithoutAsking: (tool, file, session) =>
      Effect.map(
        settings.current,
        (loaded) => readsWithoutAsking(file, session, tool.name, environmentOf(loaded, fileState, shell))
      )
  })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Permissions, never, Settings | FileState | ShellAnalyzer> = Layer.effect(
  Permissions,
  make
)

/** While a settings file that changed mid-run cannot be read, nothing runs: it could hold deny rules. */
const brokenSettingsDenial = (problem: string): Decision =>
  deny(`Permission denied: ${problem}`, {
    reason: { type: "safetyCheck", detail: "the settings changed and cannot be read" }
  })

/**
 * Allows everything: for tests of other stages.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAllowAll: Layer.Layer<Permissions> = Layer.succeed(Permissions, {
  decide: () => Effect.succeed(allow({ type: "default", detail: "allow-all layer" })),
  readsWithoutAsking: () => Effect.succeed(true)
})

/**
 * Why a decision came out as it did, rule by rule (`toolgate permissions check`).
 *
 * @since 0.1.0
 * @category modules
 */
export * as Explain from "./Permissions/explain.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ExplainContext,
  /**
   * @since 0.1.0
   * @category models
   */
  ExplainedRule,
  /**
   * @since 0.1.0
   * @category models
   */
  ExplanationJson
} from "./Permissions/explain.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  askToUse,
  /**
   * @since 0.1.0
   * @category utils
   */
  dontAskDenied
} from "./Permissions/messages.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  agentRuleMatches
} from "./Permissions/contentRules.js"
