/**
 * The kernel sandbox: where a Bash command runs, so that what was judged is what the kernel holds.
 *
 * Two profiles (src/services/Sandbox/):
 *   - read-only, for every command nothing but the shell analyzer's read-only judgement approved
 *     (no allow rule, no answer, no mode, no hook): no write anywhere but a private scratch
 *     TMPDIR, no network, the paths Read deny rules cover hidden. An analyzer mistake then cannot
 *     write, leak or persist. Beyond Claude Code; on wherever a sandbox can start.
 *   - settings, Claude Code's sandbox (`sandbox.enabled`), through @anthropic-ai/sandbox-runtime:
 *     writes in the working directories, hosts from `allowedDomains` and WebFetch rules.
 * Anything else runs as it always did. Where no sandbox can start, this is said once on stderr
 * (and by `toolgate doctor`) and commands run as before; with `sandbox.failIfUnavailable` a call
 * that should have been sandboxed fails instead.
 *
 * Detection happens once, when first needed (at once when the settings turn the sandbox on); the
 * library loads only when a command needs the settings profile.
 *
 * @since 0.1.0
 */
import { Config, Console, Context, Effect, Layer, Option, Ref, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { DecisionReason } from "../Permission.js"
import type { SessionContext } from "../Session.js"
import { workingDirectories } from "../Session.js"
import { Settings, DEFAULT_SANDBOX_SETTINGS, type LoadedSettings, type SandboxSettings } from "./Settings.js"
import { ShellAnalyzer } from "./ShellAnalyzer.js"
import { detectSandbox } from "./Sandbox/detect.js"
import { SandboxError } from "./Sandbox/errors.js"
import { isExcludedCommand } from "./Sandbox/excluded.js"
import { hiddenPaths } from "./Sandbox/hiddenPaths.js"
import type { ShellInvocation } from "./Sandbox/invocation.js"
import type { SandboxPermissions } from "./Sandbox/permissions.js"
import { readOnlyInvocation } from "./Sandbox/readOnly.js"
import { servedInvocation, type ServedProfile } from "./Sandbox/served.js"
import { filesystemPolicy, networkPolicy, type PolicyContext } from "./Sandbox/settingsPolicy.js"
import { acquireManager, type ManagerHandle } from "./Sandbox/settingsRuntime.js"
import { settingsProfileMissing, type SandboxStatus } from "./Sandbox/status.js"
import { commandArgs } from "../internal/shellScript.js"

export {
  /**
   * @since 0.1.0
   * @category errors
   */
  SandboxError
} from "./Sandbox/errors.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ShellInvocation
} from "./Sandbox/invocation.js"
export {
  /**
   * @since 0.1.0
   * @category constants
   */
  AUTO_ALLOWED_IN_SANDBOX,
  /**
   * @since 0.1.0
   * @category constants
   */
  RUN_OUTSIDE_SANDBOX,
  /**
   * @since 0.1.0
   * @category utils
   */
  withSandbox,
  /**
   * @since 0.1.0
   * @category models
   */
  type SandboxPermissions
} from "./Sandbox/permissions.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  settingsProfileMissing,
  /**
   * @since 0.1.0
   * @category models
   */
  type SandboxAvailable,
  /**
   * @since 0.1.0
   * @category models
   */
  type SandboxStatus,
  /**
   * @since 0.1.0
   * @category models
   */
  type SandboxUnavailable
} from "./Sandbox/status.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  filesystemPolicy,
  /**
   * @since 0.1.0
   * @category utils
   */
  networkPolicy,
  /**
   * @since 0.1.0
   * @category models
   */
  type PolicyContext
} from "./Sandbox/settingsPolicy.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  runtimePackageVersion
} from "./Sandbox/runtimePackage.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  servedInvocation,
  /**
   * @since 0.1.0
   * @category models
   */
  type ServedProfile
} from "./Sandbox/served.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  servedSandbox
} from "./Sandbox/servedCheck.js"

/**
 * @since 0.1.0
 * @category models
 */
export type SandboxProfile = "readOnly" | "settings" | "served"

/**
 * @since 0.1.0
 * @category models
 */
export interface SandboxRequest {
  /** The command exactly as the innermost shell runs it. */
  readonly command: string
  readonly cwd: string
  readonly session: SessionContext
  /** Why the call may run (`ToolContext.approvedBecause`). */
  readonly approvedBecause: DecisionReason | undefined
  /** The call asks to run outside the sandbox (Bash `dangerouslyDisableSandbox`). */
  readonly disableSandbox: boolean
  /** The session's answer to "is reading this path denied?" (`PathRules.denials`). */
  readonly isReadDenied: ((absolutePath: string) => boolean) | undefined
  readonly shell: string
  /** The environment the shell would get unsandboxed, minus `innerEnv`. */
  readonly env: Readonly<Record<string, string>>
  /** Variables only the innermost shell may see (BASH_ENV: a wrapper shell must not read it). */
  readonly innerEnv: Readonly<Record<string, string>>
  /** Files the shell plumbing writes (the report of the final directory). */
  readonly writableFiles: ReadonlyArray<string>
}

/**
 * A process other than a Bash command (a hook, an MCP server) about to start.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProcessRequest {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

/**
 * How to start such a process: inside a sandbox, or undefined to start it as always.
 *
 * @since 0.1.0
 * @category models
 */
export type ProcessWrapper = (
  request: ProcessRequest
) => Effect.Effect<ShellInvocation | undefined, SandboxError, Scope.Scope>

/**
 * @since 0.1.0
 * @category models
 */
export interface SandboxedShell {
  readonly profile: SandboxProfile
  readonly invocation: ShellInvocation
  /** What the sandbox refused the command (a `<sandbox_violations>` block), read once it has ended. */
  readonly violations: () => string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SandboxService {
  /** What can sandbox commands on this machine (detected once). */
  readonly status: Effect.Effect<SandboxStatus>
  /** The merged `sandbox` settings. */
  readonly settings: Effect.Effect<SandboxSettings>
  /** Claude Code's sandbox is switched on and can run (Bash then offers `allowed_domains`). */
  readonly settingsProfileActive: Effect.Effect<boolean>
  /** For the Permissions stage: the settings sandbox while it is in force, else undefined. */
  readonly permissions: Effect.Effect<SandboxPermissions | undefined>
  /**
   * How to start a Bash command: inside the sandbox its approval calls for, or undefined to start
   * it as always. What the sandbox needs (scratch folders, mount points, the command's network
   * list) lives until the scope closes.
   */
  readonly prepare: (request: SandboxRequest) => Effect.Effect<SandboxedShell | undefined, SandboxError, Scope.Scope>
  /** Hooks and MCP servers: only a served session's sandbox confines them (elsewhere they run as always). */
  readonly wrapProcess: ProcessWrapper
}

/**
 * @since 0.1.0
 * @category services
 */
export class Sandbox extends Context.Tag("toolgate/Sandbox")<Sandbox, SandboxService>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface SandboxOptions {
  /** Where the one line about a missing sandbox goes (default: stderr). */
  readonly notify?: (line: string) => Effect.Effect<void>
  /** Replaces detection (tests; embedders who know better). */
  readonly detect?: Effect.Effect<SandboxStatus>
  /** Use this bwrap (also `TOOLGATE_BWRAP_PATH`). */
  readonly bwrapPath?: string
}

/** The working directories of a session: where it was launched, its project, the additional ones. */
const sessionDirectories = (loaded: LoadedSettings, session: SessionContext): ReadonlyArray<string> => [
  ...new Set([loaded.cwd, ...workingDirectories(session), ...loaded.additionalDirectories])
]

const makeScratch = (prefix: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => fs.mkdtempSync(path.join(os.tmpdir(), prefix)),
      catch: (cause) => new SandboxError({ stage: "scratch folder", reason: String(cause) })
    }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: SandboxOptions = {}
): Effect.Effect<SandboxService, never, Settings | ShellAnalyzer | Scope.Scope> =>
  Effect.gen(function*() {
    const settingsService = yield* Settings
    const analyzer = yield* ShellAnalyzer
    const layerScope = yield* Effect.scope
    const bwrapPath = options.bwrapPath ??
      Option.getOrUndefined(
        yield* Config.option(Config.string("TOOLGATE_BWRAP_PATH")).pipe(
          Effect.orElseSucceed(() => Option.none<string>())
        )
      )
    const searchPath = yield* Config.string("PATH").pipe(
      Config.withDefault("/usr/local/bin:/usr/bin:/bin"),
      Effect.orElseSucceed(() => "/usr/local/bin:/usr/bin:/bin")
    )
    const notify = options.notify ?? ((line: string) => Console.error(line))
    const warned = yield* Ref.make(false)

    const status = yield* Effect.cached(
      options.detect ?? detectSandbox({ searchPath, ...(bwrapPath === undefined ? {} : { bwrapPath }) })
    )
    /** Says once that commands run without the sandbox they should have had. */
    const warnOnce = (reason: string) =>
      Effect.flatMap(Ref.getAndSet(warned, true), (done) =>
        done
          ? Effect.void
          : notify(
            `toolgate: warning: no sandbox: ${reason}; Bash commands run without one (toolgate doctor shows what protects this machine)`
          ))

    const settings = Effect.map(settingsService.current, (loaded) => loaded.sandbox ?? DEFAULT_SANDBOX_SETTINGS)

    const settingsMissing = Effect.map(status, settingsProfileMissing)
    const settingsProfileActive = Effect.flatMap(settings, (s) => (s.enabled
      ? Effect.map(settingsMissing, (missing) => missing === undefined)
      : Effect.succeed(false)))

    // Claude Code says so at start when its settings ask for a sandbox that cannot run.
    const initial = yield* settings
    if (initial.enabled) {
      const missing = yield* settingsMissing
      if (missing !== undefined) {
        yield* warnOnce(missing)
      }
    }

    const permissions: Effect.Effect<SandboxPermissions | undefined> = Effect.flatMap(settings, (s) =>
      !s.enabled
        ? Effect.succeed(undefined)
        : Effect.map(settingsMissing, (missing) =>
          missing !== undefined
            ? undefined
            : {
              autoAllowBashIfSandboxed: s.autoAllowBashIfSandboxed,
              unsandboxedCommandsAllowed: s.allowUnsandboxedCommands,
              isExcluded: (command: string) => isExcludedCommand(analyzer, command, s.excludedCommands)
            }))

    // The settings profile's process-wide manager and TMPDIR, made on first use and kept for the layer's life.
    const runtimeScratch = yield* Effect.cached(Scope.extend(makeScratch("toolgate-sandbox-tmp-"), layerScope))
    const managerRef = yield* Ref.make<ManagerHandle | undefined>(undefined)
    const managerLock = yield* Effect.makeSemaphore(1)
    const managerFor = (s: SandboxSettings, deniedDomains: ReadonlyArray<string>) =>
      managerLock.withPermits(1)(Effect.gen(function*() {
        const needs = {
          deniedDomains,
          allowAllUnixSockets: s.network.allowAllUnixSockets,
          allowLocalBinding: s.network.allowLocalBinding,
          enableWeakerNestedSandbox: s.enableWeakerNestedSandbox
        }
        const existing = yield* Ref.get(managerRef)
        if (existing !== undefined) {
          yield* existing.update(needs)
          return existing
        }
        const handle = yield* Scope.extend(acquireManager(needs), layerScope)
        yield* Ref.set(managerRef, handle)
        return handle
      }))

    const readOnly = (request: SandboxRequest, available: Extract<SandboxStatus, { _tag: "Available" }>) =>
      Effect.gen(function*() {
        const loaded = yield* settingsService.current
        const rules = loaded.rules.filter((r) =>
          r.behavior === "deny" && r.toolName === "Read" && r.content !== undefined
        )
        const hidden = rules.length === 0
          ? { directories: [], files: [] }
          : yield* hiddenPaths({
            rules,
            home: loaded.home ?? os.homedir(),
            cwds: [...new Set([loaded.cwd, request.session.projectDir, request.session.cwd])],
            ripgrep: available.ripgrepPath,
            ...(request.isReadDenied === undefined ? {} : { isDenied: request.isReadDenied })
          })
        const scratch = yield* makeScratch("toolgate-readonly-tmp-")
        const invocation = readOnlyInvocation({
          bwrapPath: available.bwrapPath,
          seccompHelper: available.seccompHelper,
          cwd: request.cwd,
          writable: [scratch, ...request.writableFiles],
          hidden,
          env: { ...request.env, ...request.innerEnv, TMPDIR: scratch },
          argv: [request.shell, ...commandArgs(request.command)]
        })
        return { profile: "readOnly", invocation, violations: () => undefined } satisfies SandboxedShell
      })

    const settingsProfile = (request: SandboxRequest, s: SandboxSettings) =>
      Effect.gen(function*() {
        const loaded = yield* settingsService.current
        const home = loaded.home ?? os.homedir()
        const scratch = yield* runtimeScratch
        const context: PolicyContext = {
          settings: s,
          rules: loaded.rules,
          home,
          cwd: request.session.cwd,
          workingDirectories: sessionDirectories(loaded, request.session)
        }
        const files = filesystemPolicy(context)
        const network = networkPolicy(context)
        const manager = yield* managerFor(s, network.deniedDomains)
        const wrapped = yield* manager.wrap({
          command: request.command,
          shell: request.shell,
          cwd: request.cwd,
          // the runtime sets TMPDIR for the sandbox to a path of its own; the command gets this runtime's
          innerEnv: { ...request.innerEnv, TMPDIR: scratch },
          env: request.env,
          filesystem: { ...files, allowWrite: [...files.allowWrite, scratch, ...request.writableFiles] },
          allowedDomains: network.allowedDomains
        })
        return {
          profile: "settings",
          invocation: wrapped.invocation,
          violations: wrapped.violations
        } satisfies SandboxedShell
      })

    const prepare = (request: SandboxRequest): Effect.Effect<SandboxedShell | undefined, SandboxError, Scope.Scope> =>
      Effect.gen(function*() {
        const s = yield* settings
        const onlyJudgedReadOnly = request.approvedBecause?.type === "readOnly"
        if (!onlyJudgedReadOnly && !s.enabled) {
          if (request.approvedBecause?.type !== "sandbox") return undefined
          return yield* new SandboxError({
            stage: "settings profile",
            reason: "the call was approved to run in the sandbox, which is off"
          })
        }
        const current = yield* status
        const unavailable = (reason: string) =>
          s.failIfUnavailable
            ? Effect.fail(
              new SandboxError({
                stage: "start",
                reason: `sandbox.failIfUnavailable is set and no sandbox can start: ${reason}`
              })
            )
            : Effect.as(warnOnce(reason), undefined)
        if (onlyJudgedReadOnly) {
          return current._tag === "Available"
            ? yield* readOnly(request, current)
            : yield* unavailable(current.reason)
        }
        // approved because it would run sandboxed: it runs sandboxed, or not at all
        const approvedForSandbox = request.approvedBecause?.type === "sandbox"
        const outside = (why: string) =>
          approvedForSandbox
            ? Effect.fail(
              new SandboxError({
                stage: "settings profile",
                reason: `the call was approved to run in the sandbox, but ${why}`
              })
            )
            : Effect.succeed(undefined)
        if (request.disableSandbox && s.allowUnsandboxedCommands) return yield* outside("it asks to run outside it")
        const missing = settingsProfileMissing(current)
        if (missing !== undefined) return approvedForSandbox ? yield* outside(missing) : yield* unavailable(missing)
        if (yield* isExcludedCommand(analyzer, request.command, s.excludedCommands)) {
          return yield* outside("it is one of excludedCommands")
        }
        return yield* settingsProfile(request, s)
      })

    return Sandbox.of({ status, settings, settingsProfileActive, permissions, prepare, wrapProcess: notWrapped })
  })

/**
 * The sandbox of this machine and the session's settings; needs Settings and the ShellAnalyzer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: SandboxOptions = {}): Layer.Layer<Sandbox, never, Settings | ShellAnalyzer> =>
  Layer.scoped(Sandbox, make(options))

const notWrapped: ProcessWrapper = () => Effect.succeed(undefined)

/**
 * No sandbox: every command runs as it always did.
 *
 * @since 0.1.0
 * @category utils
 */
export const none: SandboxService = Sandbox.of({
  status: Effect.succeed({ _tag: "Unavailable", reason: "no sandbox in this runtime" }),
  settings: Effect.succeed(DEFAULT_SANDBOX_SETTINGS),
  settingsProfileActive: Effect.succeed(false),
  permissions: Effect.succeed(undefined),
  prepare: () => Effect.succeed(undefined),
  wrapProcess: notWrapped
})

/**
 * A served session's sandbox: every Bash command (whatever approved it), hook and MCP server runs
 * in the served profile, with a private scratch folder as TMPDIR and HOME. The settings' own
 * sandbox does not apply (the server's profile is stricter). Without a profile (`serve
 * --unsandboxed`) processes run on the host, with the session's environment only.
 *
 * @since 0.1.0
 * @category utils
 */
export const served = (profile: ServedProfile | undefined, status: SandboxStatus): SandboxService => {
  const run = (argv: ReadonlyArray<string>, cwd: string, env: Readonly<Record<string, string>>, extra: {
    readonly writable: boolean
    readonly readableFiles?: ReadonlyArray<string>
    readonly writableFiles?: ReadonlyArray<string>
  }) =>
    Effect.map(
      makeScratch("toolgate-served-"),
      (scratch) =>
        servedInvocation(profile!, { argv, cwd, env: { ...env, TMPDIR: scratch, HOME: scratch }, scratch, ...extra })
    )
  return Sandbox.of({
    status: Effect.succeed(status),
    settings: Effect.succeed(DEFAULT_SANDBOX_SETTINGS),
    settingsProfileActive: Effect.succeed(false),
    permissions: Effect.succeed(undefined),
    prepare: (request) =>
      profile === undefined
        ? Effect.succeed(undefined)
        : Effect.map(
          run([request.shell, ...commandArgs(request.command)], request.cwd, {
            ...request.env,
            ...request.innerEnv
          }, {
            writable: request.approvedBecause?.type !== "readOnly",
            readableFiles: Object.values(request.innerEnv).filter((value) =>
              path.isAbsolute(value) && fs.existsSync(value)
            ),
            writableFiles: request.writableFiles
          }),
          (invocation): SandboxedShell => ({ profile: "served", invocation, violations: () => undefined })
        ),
    wrapProcess: (
      request
    ) => (profile === undefined
      ? Effect.succeed(undefined)
      : run(request.argv, request.cwd, request.env, { writable: true }))
  })
}

/**
 * No sandbox (for embedders and tests of other stages).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Sandbox> = Layer.succeed(Sandbox, none)
