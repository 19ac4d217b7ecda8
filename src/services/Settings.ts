/**
 * Claude Code's settings, from every source, merged: managed
 * settings (+ `managed-settings.d/`), `--settings`, `.claude/settings.local.json` at the git
 * root, `.claude/settings.json`, and the user's `settings.json`. Rule arrays merge across
 * sources, each rule keeping its source and file; scalars come from the highest source that sets
 * them. A file that exists but cannot be read whole (bad JSON, a field of the wrong shape) is
 * never skipped: loading fails with BrokenSettings naming the file and the place inside it, and
 * the CLI refuses to run (exit 78), since the file could hold deny rules or hooks.
 *
 * The files are read again when they change while a session runs (checked at most once a
 * millisecond, by size, inode and times): a deny rule or hook added mid-run applies to the next
 * call. A file that becomes unreadable mid-run keeps the last good settings and marks them
 * `broken`, which denies every call until the file is fixed.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { BrokenSettings } from "../Errors.js"
import { BadRequest, SettingsError } from "../Errors.js"
import { findGitRoot } from "../internal/gitRoot.js"
import { isRecord } from "../internal/json.js"
import { parseSettingsText, readSettingsFile, type DocumentRead, type SettingsDocument } from "./Settings/document.js"
import { makeRule, partitionRules } from "../PermissionRules.js"
import type { PermissionMode, PermissionRule, RuleBehavior, RuleSource } from "../Permission.js"
import { parsePermissionMode } from "../Permission.js"
import { expandPath } from "../internal/expandPath.js"
import { updateFileLocked } from "../internal/fileLock.js"
import { mergeSandboxSettings, type SandboxSettings } from "./Settings/sandbox.js"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  SandboxSettings
} from "./Settings/sandbox.js"
export {
  /**
   * @since 0.1.0
   * @category constants
   */
  CLAUDE_CODE_HOOK_EVENTS
} from "./Settings/hooks.js"
export {
  /**
   * @since 0.1.0
   * @category constants
   */
  DEFAULT_SANDBOX_SETTINGS
} from "./Settings/sandbox.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SettingsOptions {
  /** The directory the session starts in. */
  readonly cwd: string
  /** `--settings`: paths to JSON files or inline JSON objects. */
  readonly settings?: ReadonlyArray<string>
  readonly allowedTools?: ReadonlyArray<string>
  readonly disallowedTools?: ReadonlyArray<string>
  readonly permissionMode?: PermissionMode
  readonly addDirs?: ReadonlyArray<string>
  /** Treat the project as trusted (its allow rules and additional directories apply). */
  readonly trustProject?: boolean
  /** Overrides `~/.claude` (also `CLAUDE_CONFIG_DIR`). */
  readonly userConfigDir?: string
  /** Overrides the managed settings directory (`/etc/claude-code`; also `TOOLGATE_MANAGED_SETTINGS_DIR`). */
  readonly managedDir?: string
  /** Overrides the home directory used for `~/` rules and paths (tests). */
  readonly home?: string
}

/**
 * One settings source as loaded.
 *
 * @since 0.1.0
 * @category models
 */
export interface SettingsSource {
  readonly source: RuleSource
  /** The file, or undefined for inline JSON and flags. */
  readonly file: string | undefined
  /** Anchor of `/path` rules from this source. */
  readonly root: string
  readonly settings: Readonly<Record<string, unknown>>
  /** Local settings that are really the project's (tracked by git, or behind a symlinked `.claude`). */
  readonly untrustedLocal?: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LoadedSettings {
  readonly cwd: string
  /** Highest precedence first. */
  readonly sources: ReadonlyArray<SettingsSource>
  /** Usable rules of every source (invalid ones were warned about and left out). */
  readonly rules: ReadonlyArray<PermissionRule>
  readonly mode: PermissionMode
  readonly additionalDirectories: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  /** The value of a top-level key from the highest source that sets it. */
  readonly value: (key: string) => unknown
  /** Where `always allow` rules are saved. */
  readonly localSettingsFile: string
  readonly userConfigDir: string
  /** A source sets `permissions.disableBypassPermissionsMode`: bypassPermissions is refused. */
  readonly bypassDisabled?: boolean
  /** Whether the project's allow rules and additional directories apply (workspace trust). */
  readonly trusted?: boolean
  /** The home directory for `~/` rules; the OS's when unset. */
  readonly home?: string
  /** The `sandbox` block of every source, merged (absent: the defaults, sandbox off). */
  readonly sandbox?: SandboxSettings
  /**
   * A settings file became unreadable while the session ran: these are the last good settings,
   * and nothing may run until the file is fixed (it could hold deny rules or hooks).
   */
  readonly broken?: BrokenSettings | BadRequest
}

/**
 * @since 0.1.0
 * @category models
 */
export type RuleDestination = "session" | "localSettings" | "projectSettings" | "userSettings"

/**
 * @since 0.1.0
 * @category models
 */
export interface SettingsService {
  readonly current: Effect.Effect<LoadedSettings>
  /** Adds rules for this session, and saves them when the destination is a file. */
  readonly addRules: (
    rules: ReadonlyArray<string>,
    behavior: RuleBehavior,
    destination: RuleDestination
  ) => Effect.Effect<void, SettingsError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Settings extends Context.Tag("toolgate/Settings")<Settings, SettingsService>() {}

const RULE_KEYS: ReadonlyArray<RuleBehavior> = ["deny", "ask", "allow"]

/**
 * Splits `--allowed-tools "Bash(git log:*) Edit,Read"` on spaces and commas outside parentheses.
 *
 * @since 0.1.0
 * @category utils
 */
export const splitToolList = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  values.flatMap((value) => {
    const out: Array<string> = []
    let depth = 0
    let current = ""
    for (const ch of value) {
      if (ch === "(") depth++
      if (ch === ")") depth = Math.max(0, depth - 1)
      if (depth === 0 && (ch === "," || ch === " ")) {
        if (current.trim() !== "") out.push(current.trim())
        current = ""
      } else current += ch
    }
    if (current.trim() !== "") out.push(current.trim())
    return out
  })

/**
 * Is `file` tracked by git in `repo`? Unknown (git missing or failing) counts as tracked. The
 * repository is not trusted yet: its config must not name a program git runs (`core.fsmonitor`
 * runs on ls-files), so that is switched off on the command line, which outranks the repository.
 */
const isTrackedByGit = (repo: string, file: string): boolean => {
  try {
    const result = spawnSync("git", [
      "-c",
      "core.fsmonitor=false",
      "-C",
      repo,
      "ls-files",
      "--error-unmatch",
      "--",
      path.relative(repo, file)
    ], {
      stdio: "ignore",
      timeout: 5_000
    })
    if (result.error !== undefined) return true
    return result.status !== 1
  } catch {
    return true
  }
}

const isSymlink = (p: string): boolean => {
  try {
    return fs.lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}

const defaultManagedDir = (): string =>
  process.platform === "darwin"
    ? "/Library/Application Support/ClaudeCode"
    : process.platform === "win32"
    ? "C:\\Program Files\\ClaudeCode"
    : "/etc/claude-code"

interface Paths {
  readonly userConfigDir: string
  readonly managedDir: string
  readonly home: string
}

interface LoadedSource extends SettingsSource {
  readonly document: SettingsDocument
  /** Local settings that count as project settings for workspace trust. */
  readonly untrustedLocal: boolean
}

const load = (options: SettingsOptions, paths: Paths): Effect.Effect<LoadedSettings, BadRequest | BrokenSettings> =>
  Effect.gen(function*() {
    const cwd = path.resolve(options.cwd)
    const broken: Array<BrokenSettings> = []
    const warnings: Array<string> = []
    const sources: Array<LoadedSource> = []
    const trusted = options.trustProject === true
    const addDocument = (
      read: DocumentRead,
      source: RuleSource,
      file: string | undefined,
      root: string,
      untrustedLocal = false
    ) => {
      if (read._tag === "Broken") broken.push(read.error)
      if (read._tag === "Loaded") {
        sources.push({ source, file, root, settings: read.document.raw, document: read.document, untrustedLocal })
      }
    }
    const addFile = (source: RuleSource, file: string, root: string, extra: { untrustedLocal?: boolean } = {}) =>
      addDocument(readSettingsFile(file), source, file, root, extra.untrustedLocal)

    // 1. managed settings: drop-ins (later names win) above the base file
    const dropIn = path.join(paths.managedDir, "managed-settings.d")
    let dropInFiles: Array<string> = []
    try {
      dropInFiles = fs.readdirSync(dropIn).filter((f) => f.endsWith(".json") && !f.startsWith(".")).sort().reverse()
    } catch {
      dropInFiles = []
    }
    for (const f of dropInFiles) addFile("policySettings", path.join(dropIn, f), paths.managedDir)
    addFile("policySettings", path.join(paths.managedDir, "managed-settings.json"), paths.managedDir)

    // 2. --settings: a file or inline JSON
    for (const arg of options.settings ?? []) {
      const inline = arg.trim().startsWith("{")
      const file = inline ? undefined : path.resolve(cwd, arg)
      const read = inline ? parseSettingsText(arg, "--settings") : readSettingsFile(file!)
      if (read._tag === "Missing") return yield* new BadRequest({ reason: `--settings: file not found: ${file}` })
      addDocument(read, "flagSettings", file, file === undefined ? cwd : path.dirname(file))
    }

    // 3. local settings at the git root (or the start directory outside git)
    const gitRoot = findGitRoot(cwd)
    const localRoot = gitRoot ?? cwd
    const localSettingsFile = path.join(localRoot, ".claude", "settings.local.json")
    const projectFile = path.join(cwd, ".claude", "settings.json")
    const userFile = path.join(paths.userConfigDir, "settings.json")
    if (fs.existsSync(localSettingsFile)) {
      // tracked by git, or behind a symlinked `.claude`: it is really project settings
      const untrustedLocal = !trusted &&
        (isSymlink(path.dirname(localSettingsFile)) ||
          (gitRoot !== undefined && isTrackedByGit(gitRoot, localSettingsFile)))
      addFile("localSettings", localSettingsFile, cwd, { untrustedLocal })
    }
    // 4. shared project settings (start directory only); not when it is the user's own file
    if (path.resolve(projectFile) !== path.resolve(userFile)) addFile("projectSettings", projectFile, cwd)
    // 5. user settings
    addFile("userSettings", userFile, paths.userConfigDir)

    // A file that exists but cannot be read whole could hold deny rules or hooks: never run without them.
    if (broken.length > 0) return yield* broken[0]!

    const managedOnly = sources.some((s) => s.source === "policySettings" && s.document.allowManagedPermissionRulesOnly)
    const untrustedProject = (s: LoadedSource) => !trusted && (s.source === "projectSettings" || s.untrustedLocal)
    const collected: Array<PermissionRule> = []
    for (const s of sources) {
      for (const behavior of RULE_KEYS) {
        const raws = s.document.permissions[behavior] ?? []
        if (raws.length === 0) continue
        if (managedOnly && s.source !== "policySettings") {
          warnings.push(
            `${
              s.file ?? s.source
            }: ${raws.length} ${behavior} rule(s) ignored because managed settings set allowManagedPermissionRulesOnly`
          )
          continue
        }
        if (behavior === "allow" && untrustedProject(s)) {
          warnings.push(
            `${s.file}: ${raws.length} allow rule(s) ignored because the project is not trusted (use --trust-project)`
          )
          continue
        }
        for (const raw of raws) collected.push(makeRule(raw, behavior, s.source, s.root, s.file))
      }
    }
    for (const raw of splitToolList(options.disallowedTools ?? [])) collected.push(makeRule(raw, "deny", "cliArg", cwd))
    if (managedOnly && (options.allowedTools ?? []).length > 0) {
      warnings.push("--allowedTools ignored because managed settings set allowManagedPermissionRulesOnly")
    } else {
      for (const raw of splitToolList(options.allowedTools ?? [])) collected.push(makeRule(raw, "allow", "cliArg", cwd))
    }
    const { usable, warnings: ruleWarnings } = partitionRules(collected)
    warnings.push(...ruleWarnings)

    const value = (key: string): unknown => {
      for (const s of sources) if (s.settings[key] !== undefined) return s.settings[key]
      return undefined
    }

    // a top-level disableBypassPermissionsMode (a common misplacement) still forbids bypass
    const bypassDisabled = sources.some((s) =>
      s.document.permissions.disableBypassPermissionsMode !== undefined ||
      s.settings.disableBypassPermissionsMode !== undefined
    )

    // defaultMode: highest source that sets a usable one
    let configuredMode: PermissionMode | undefined
    for (const s of sources) {
      const raw = s.document.permissions.defaultMode
      if (raw === undefined) continue
      const parsed = parsePermissionMode(raw)
      if (parsed === undefined) continue
      if (parsed === "auto" && (s.source === "projectSettings" || s.source === "localSettings")) {
        warnings.push(`${s.file}: defaultMode "auto" is ignored in project and local settings`)
        continue
      }
      configuredMode = parsed
      break
    }
    if (options.permissionMode === "bypassPermissions" && bypassDisabled) {
      return yield* new BadRequest({
        reason:
          "--permission-mode bypassPermissions is disabled by permissions.disableBypassPermissionsMode in the settings"
      })
    }
    let mode = options.permissionMode ?? configuredMode ?? "default"
    if (mode === "bypassPermissions" && bypassDisabled) {
      warnings.push(
        "defaultMode \"bypassPermissions\" ignored because permissions.disableBypassPermissionsMode is set; using default"
      )
      mode = "default"
    }

    const additionalDirectories: Array<string> = []
    const addDirectory = (dir: string, origin: string): void => {
      let resolved: string
      try {
        resolved = expandPath(dir, cwd, paths.home)
      } catch (e) {
        warnings.push(`${origin}: additional directory ${JSON.stringify(dir)} ignored: ${(e as Error).message}`)
        return
      }
      if (!additionalDirectories.includes(resolved)) additionalDirectories.push(resolved)
    }
    for (const s of sources) {
      const dirs = s.document.permissions.additionalDirectories ?? []
      if (dirs.length === 0) continue
      if (untrustedProject(s)) {
        warnings.push(
          `${s.file}: additionalDirectories ignored because the project is not trusted (use --trust-project)`
        )
        continue
      }
      for (const dir of dirs) addDirectory(dir, s.file ?? s.source)
    }
    for (const dir of options.addDirs ?? []) {
      let resolved: string
      try {
        resolved = expandPath(dir, cwd, paths.home)
      } catch (e) {
        return yield* new BadRequest({ reason: `--add-dir: ${(e as Error).message}` })
      }
      if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory()) {
        return yield* new BadRequest({ reason: `--add-dir: not a directory: ${resolved}` })
      }
      if (!additionalDirectories.includes(resolved)) additionalDirectories.push(resolved)
    }

    const sandbox = mergeSandboxSettings(
      sources.flatMap((
        s
      ) => (s.document.sandbox === undefined
        ? []
        : [{ source: s.source, block: s.document.sandbox, trusted: !untrustedProject(s) }])
      )
    )

    return {
      cwd,
      sources: sources.map(({ source, file, root, settings, untrustedLocal }) => ({
        source,
        file,
        root,
        settings,
        ...(untrustedLocal ? { untrustedLocal } : {})
      })),
      rules: usable,
      mode,
      additionalDirectories,
      warnings,
      value,
      localSettingsFile,
      userConfigDir: paths.userConfigDir,
      bypassDisabled,
      trusted,
      home: paths.home,
      sandbox
    }
  })

const destinationFile = (loaded: LoadedSettings, destination: RuleDestination): string =>
  destination === "localSettings"
    ? loaded.localSettingsFile
    : destination === "projectSettings"
    ? path.join(loaded.cwd, ".claude", "settings.json")
    : path.join(loaded.userConfigDir, "settings.json")

const destinationSource: Record<RuleDestination, RuleSource> = {
  session: "session",
  localSettings: "localSettings",
  projectSettings: "projectSettings",
  userSettings: "userSettings"
}

/**
 * Appends rules to a settings file, keeping its other content: under the file's lock, re-read,
 * then replaced atomically, so sessions saving at the same time keep every rule. No duplicates.
 */
const saveRules = (file: string, rules: ReadonlyArray<string>, behavior: RuleBehavior) =>
  Effect.tryPromise({
    try: () =>
      updateFileLocked(file, (text) => {
        const existing = text === undefined ? undefined : parseSettingsText(text, file)
        if (existing?._tag === "Broken") throw new Error(existing.error.problem)
        const settings = existing?._tag === "Loaded" ? existing.document.raw : {}
        const permissions = { ...(isRecord(settings.permissions) ? settings.permissions : {}) }
        const current = Array.isArray(permissions[behavior]) ? (permissions[behavior] as Array<unknown>) : []
        permissions[behavior] = [...current, ...rules.filter((r) => !current.includes(r))]
        return `${JSON.stringify({ ...settings, permissions }, null, 2)}\n`
      }),
    catch: (e) => new SettingsError({ path: file, reason: (e as Error).message })
  })

/** Rules added at run time (approvals), validated like the files' rules. */
const sessionRules = (
  loaded: LoadedSettings,
  raws: ReadonlyArray<string>,
  behavior: RuleBehavior,
  destination: RuleDestination
): { readonly rules: ReadonlyArray<PermissionRule>; readonly warnings: ReadonlyArray<string> } => {
  const file = destination === "session" ? undefined : destinationFile(loaded, destination)
  const { usable, warnings } = partitionRules(
    raws.map((raw) => makeRule(raw, behavior, destinationSource[destination], loaded.cwd, file))
  )
  return { rules: usable, warnings }
}

/** How often, at most, the settings files are looked at again. */
const RECHECK_MS = 1

/** Every file whose change can change the settings: those read, and those that could appear. */
const watchedFiles = (options: SettingsOptions, paths: Paths, loaded: LoadedSettings): ReadonlyArray<string> => [
  path.join(paths.managedDir, "managed-settings.d"),
  ...dropInFiles(path.join(paths.managedDir, "managed-settings.d")),
  path.join(paths.managedDir, "managed-settings.json"),
  ...(options.settings ?? []).filter((arg) => !arg.trim().startsWith("{")).map((arg) => path.resolve(loaded.cwd, arg)),
  loaded.localSettingsFile,
  path.join(loaded.cwd, ".claude", "settings.json"),
  path.join(paths.userConfigDir, "settings.json")
]

const dropInFiles = (dir: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => path.join(dir, f))
  } catch {
    return []
  }
}

/** What the files look like now: a change of any of them (or of the drop-in folder's list) changes it. */
const fingerprintOf = (files: ReadonlyArray<string>): string => {
  let print = ""
  for (const file of files) {
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    print += stat === undefined ? "-|" : `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}|`
  }
  return print + dropInFiles(files[0]!).join(",")
}

const ruleKey = (rule: PermissionRule) => `${rule.behavior}\0${rule.raw}\0${rule.source}\0${rule.file ?? ""}`

/** The rules of a fresh load, plus those added at run time that it does not hold already. */
const withAdded = (
  rules: ReadonlyArray<PermissionRule>,
  added: ReadonlyArray<PermissionRule>
): ReadonlyArray<PermissionRule> => {
  const present = new Set(rules.map(ruleKey))
  return [...rules, ...added.filter((rule) => !present.has(ruleKey(rule)))]
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: SettingsOptions): Effect.Effect<SettingsService, BadRequest | BrokenSettings> =>
  Effect.gen(function*() {
    const configDir = yield* Config.option(Config.string("CLAUDE_CONFIG_DIR")).pipe(Effect.orDie)
    const managedEnv = yield* Config.option(Config.string("TOOLGATE_MANAGED_SETTINGS_DIR")).pipe(Effect.orDie)
    const home = options.home ?? os.homedir()
    const paths: Paths = {
      userConfigDir: options.userConfigDir ?? Option.getOrElse(configDir, () => path.join(home, ".claude")),
      managedDir: options.managedDir ?? Option.getOrElse(managedEnv, defaultManagedDir),
      home
    }
    if (!fs.existsSync(options.cwd) || !fs.statSync(options.cwd).isDirectory()) {
      return yield* new BadRequest({ reason: `--cwd: not a directory: ${path.resolve(options.cwd)}` })
    }
    const first = yield* load(options, paths)
    let files = watchedFiles(options, paths, first)
    /** Rules added while the session runs (answers to asks): they outlive every reload. */
    const added: Array<PermissionRule> = []
    let state = { loaded: first, fingerprint: fingerprintOf(files), checkedAt: Date.now() }

    const reload = (fingerprint: string) =>
      Effect.gen(function*() {
        const read = yield* Effect.either(load(options, paths))
        const previous = state.loaded
        if (read._tag === "Right") {
          const fresh = read.right
          files = watchedFiles(options, paths, fresh)
          // the print taken before reading: a change made meanwhile is seen at the next look
          state = { ...state, fingerprint, loaded: { ...fresh, rules: withAdded(fresh.rules, added) } }
          if (previous.broken !== undefined) {
            yield* Effect.logWarning(`settings: readable again; calls may run (${previous.broken.message})`)
          }
          for (const warning of fresh.warnings) {
            if (!previous.warnings.includes(warning)) yield* Effect.logWarning(`settings: ${warning}`)
          }
        } else {
          const { broken: _, ...lastGood } = previous
          state = { ...state, fingerprint, loaded: { ...lastGood, broken: read.left } }
          yield* Effect.logWarning(
            `settings changed and cannot be read; every call is denied until this is fixed: ${read.left.message}`
          )
        }
        return state.loaded
      })

    const current = Effect.suspend(() => {
      const now = Date.now()
      if (now - state.checkedAt < RECHECK_MS) return Effect.succeed(state.loaded)
      state.checkedAt = now
      const fingerprint = fingerprintOf(files)
      return fingerprint === state.fingerprint ? Effect.succeed(state.loaded) : reload(fingerprint)
    })
    const addRules = Effect.fn("Settings.addRules")(function*(
      rules: ReadonlyArray<string>,
      behavior: RuleBehavior,
      destination: RuleDestination
    ) {
      const loaded = yield* current
      if (destination !== "session") yield* saveRules(destinationFile(loaded, destination), rules, behavior)
      const fresh = sessionRules(loaded, rules, behavior, destination)
      added.push(...fresh.rules)
      state = {
        ...state,
        loaded: {
          ...state.loaded,
          rules: withAdded(state.loaded.rules, fresh.rules),
          warnings: [...state.loaded.warnings, ...fresh.warnings]
        }
      }
    })
    return Settings.of({ current, addRules })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: SettingsOptions): Layer.Layer<Settings, BadRequest | BrokenSettings> =>
  Layer.effect(Settings, make(options))

/**
 * Settings from values only, for tests and embedders: no files are read.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStatic = (loaded: Partial<LoadedSettings> & { readonly cwd: string }): Layer.Layer<Settings> =>
  Layer.sync(Settings, () => {
    let state: LoadedSettings = {
      sources: [],
      rules: [],
      mode: "default",
      additionalDirectories: [],
      warnings: [],
      value: () => undefined,
      localSettingsFile: path.join(loaded.cwd, ".claude", "settings.local.json"),
      userConfigDir: path.join(loaded.cwd, ".claude-user"),
      ...loaded
    }
    return Settings.of({
      current: Effect.sync(() => state),
      addRules: (rules, behavior, destination) =>
        Effect.sync(() => {
          const added = sessionRules(state, rules, behavior, destination)
          state = {
            ...state,
            rules: [...state.rules, ...added.rules],
            warnings: [...state.warnings, ...added.warnings]
          }
        })
    })
  })
