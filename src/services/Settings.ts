/**
 * Claude Code's settings, from every source, merged (claude-code-spec §1.1, §1.2): managed
 * settings (+ `managed-settings.d/`), `--settings`, `.claude/settings.local.json` at the git
 * root, `.claude/settings.json`, and the user's `settings.json`. Rule arrays merge across
 * sources, each rule keeping its source and file; scalars come from the highest source that sets
 * them. Broken files never widen anything: a file with a bad field is reported (file and field)
 * and its allow rules, additional directories and widening mode are dropped; other sources load.
 */
import { Config, Context, Effect, Layer, Option, Ref } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { BadRequest, SettingsError } from "../Errors.js"
import { findGitRoot } from "../internal/gitRoot.js"
import { isRecord, kindOf, parseJsonObject as parseJson, readJsonObjectFile, type JsonObjectRead } from "../internal/json.js"
import { makeRule } from "./Permissions/ruleGrammar.js"
import { partitionRules } from "./Permissions/ruleValidation.js"
import type { PermissionMode, PermissionRule, RuleBehavior, RuleSource } from "../Permission.js"
import { parsePermissionMode } from "../Permission.js"
import { expandPath } from "./Permissions/expandPath.js"
import { updateFileLocked } from "../internal/fileLock.js"

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

/** One settings source as loaded. */
export interface SettingsSource {
  readonly source: RuleSource
  /** The file, or undefined for inline JSON and flags. */
  readonly file: string | undefined
  /** Anchor of `/path` rules from this source (spec §1.7). */
  readonly root: string
  readonly settings: Readonly<Record<string, unknown>>
  /** Local settings that are really the project's (tracked by git, or behind a symlinked `.claude`). */
  readonly untrustedLocal?: boolean
}

export interface LoadedSettings {
  readonly cwd: string
  /** Highest precedence first. */
  readonly sources: ReadonlyArray<SettingsSource>
  /** Usable rules of every source (invalid ones were warned about and left out). */
  readonly rules: ReadonlyArray<PermissionRule>
  readonly mode: PermissionMode
  readonly additionalDirectories: ReadonlyArray<string>
  /** Files that could not be read or parsed, or have a bad field; the other sources still loaded. */
  readonly errors: ReadonlyArray<SettingsError>
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
}

export type RuleDestination = "session" | "localSettings" | "projectSettings" | "userSettings"

export interface SettingsService {
  readonly current: Effect.Effect<LoadedSettings>
  /** Adds rules for this session, and saves them when the destination is a file. */
  readonly addRules: (
    rules: ReadonlyArray<string>,
    behavior: RuleBehavior,
    destination: RuleDestination
  ) => Effect.Effect<void, SettingsError>
}

export class Settings extends Context.Tag("toolgate/Settings")<Settings, SettingsService>() {}

const RULE_KEYS: ReadonlyArray<RuleBehavior> = ["deny", "ask", "allow"]

/** Modes that never approve more than `default` does; kept even from a file with errors. */
const RESTRICTIVE_MODES: ReadonlyArray<PermissionMode> = ["default", "plan", "dontAsk"]

/** Splits `--allowed-tools "Bash(git log:*) Edit,Read"` on spaces and commas outside parentheses. */
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

type ReadResult =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Loaded"; readonly settings: Record<string, unknown> }
  | { readonly _tag: "Failed"; readonly error: SettingsError }

/** A settings object, with failures named after the file (or label) they came from. */
const asSettings = (read: JsonObjectRead, label: string): ReadResult =>
  read._tag === "Loaded"
    ? { _tag: "Loaded", settings: read.json }
    : read._tag === "Missing"
      ? read
      : { _tag: "Failed", error: new SettingsError({ path: label, reason: read.reason.startsWith("must be") ? `settings ${read.reason}` : read.reason }) }

const readJsonObject = (file: string): ReadResult => asSettings(readJsonObjectFile(file), file)

const parseJsonObject = (text: string, label: string): ReadResult => asSettings(parseJson(text), label)

interface Checked {
  readonly settings: Record<string, unknown>
  /** The file had a bad field: it may not widen anything. */
  readonly broken: boolean
}

/**
 * Checks the fields this stage reads. A bad field is an error naming the file and the field;
 * the field is dropped (array entries that are not strings are dropped one by one).
 */
const checkFields = (settings: Record<string, unknown>, label: string, errors: Array<SettingsError>): Checked => {
  let broken = false
  const fail = (field: string, reason: string) => {
    broken = true
    errors.push(new SettingsError({ path: label, reason: `field "${field}" ${reason}; this file's allow rules, additionalDirectories and defaultMode are ignored` }))
  }
  const out: Record<string, unknown> = { ...settings }
  if (out.allowManagedPermissionRulesOnly !== undefined && typeof out.allowManagedPermissionRulesOnly !== "boolean") {
    fail("allowManagedPermissionRulesOnly", `must be a boolean, got ${kindOf(out.allowManagedPermissionRulesOnly)}`)
    delete out.allowManagedPermissionRulesOnly
  }
  const permissions = out.permissions
  if (permissions === undefined) return { settings: out, broken }
  if (!isRecord(permissions)) {
    fail("permissions", `must be an object, got ${kindOf(permissions)}`)
    delete out.permissions
    return { settings: out, broken }
  }
  const cleaned: Record<string, unknown> = { ...permissions }
  for (const key of [...RULE_KEYS, "additionalDirectories"]) {
    const value = cleaned[key]
    if (value === undefined) continue
    if (!Array.isArray(value)) {
      fail(`permissions.${key}`, `must be an array of strings, got ${kindOf(value)}`)
      delete cleaned[key]
      continue
    }
    const strings: Array<string> = []
    value.forEach((entry, i) => {
      if (typeof entry === "string") strings.push(entry)
      else fail(`permissions.${key}[${i}]`, `must be a string, got ${kindOf(entry)}`)
    })
    cleaned[key] = strings
  }
  if (cleaned.defaultMode !== undefined) {
    if (typeof cleaned.defaultMode !== "string" || parsePermissionMode(cleaned.defaultMode) === undefined) {
      fail("permissions.defaultMode", `must be one of default, manual, acceptEdits, plan, auto, dontAsk, bypassPermissions, got ${JSON.stringify(cleaned.defaultMode)}`)
      delete cleaned.defaultMode
    }
  }
  if (cleaned.disableBypassPermissionsMode !== undefined && cleaned.disableBypassPermissionsMode !== "disable") {
    // still honoured: whoever wrote it meant to forbid bypass
    errors.push(new SettingsError({ path: label, reason: `field "permissions.disableBypassPermissionsMode" must be "disable", got ${JSON.stringify(cleaned.disableBypassPermissionsMode)}; treated as "disable"` }))
  }
  out.permissions = cleaned
  return { settings: out, broken }
}

const permissionsOf = (settings: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  isRecord(settings.permissions) ? settings.permissions : {}

const stringsOf = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** Is `file` tracked by git in `repo`? Unknown (git missing or failing) counts as tracked. */
const isTrackedByGit = (repo: string, file: string): boolean => {
  try {
    const result = spawnSync("git", ["-C", repo, "ls-files", "--error-unmatch", "--", path.relative(repo, file)], {
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
  readonly broken: boolean
  /** Local settings that count as project settings for workspace trust. */
  readonly untrustedLocal: boolean
}

const load = (options: SettingsOptions, paths: Paths): Effect.Effect<LoadedSettings, BadRequest> =>
  Effect.gen(function* () {
    const cwd = path.resolve(options.cwd)
    const errors: Array<SettingsError> = []
    const warnings: Array<string> = []
    const sources: Array<LoadedSource> = []
    const trusted = options.trustProject === true
    const addFile = (source: RuleSource, file: string, root: string, extra: { untrustedLocal?: boolean } = {}) => {
      const result = readJsonObject(file)
      if (result._tag === "Failed") errors.push(result.error)
      if (result._tag === "Loaded") {
        const checked = checkFields(result.settings, file, errors)
        sources.push({ source, file, root, settings: checked.settings, broken: checked.broken, untrustedLocal: extra.untrustedLocal ?? false })
      }
    }

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

    // 2. --settings: a file or inline JSON; unusable input here is the caller's mistake
    for (const arg of options.settings ?? []) {
      const inline = arg.trim().startsWith("{")
      const file = inline ? undefined : path.resolve(cwd, arg)
      const result = inline ? parseJsonObject(arg, "--settings") : readJsonObject(file!)
      if (result._tag === "Missing") return yield* new BadRequest({ reason: `--settings: file not found: ${file}` })
      if (result._tag === "Failed") return yield* new BadRequest({ reason: `--settings: ${inline ? result.error.reason : result.error.message}` })
      const checked = checkFields(result.settings, file ?? "--settings", errors)
      sources.push({ source: "flagSettings", file, root: file === undefined ? cwd : path.dirname(file), settings: checked.settings, broken: checked.broken, untrustedLocal: false })
    }

    // 3. local settings at the git root (or the start directory outside git)
    const gitRoot = findGitRoot(cwd)
    const localRoot = gitRoot ?? cwd
    const localSettingsFile = path.join(localRoot, ".claude", "settings.local.json")
    const projectFile = path.join(cwd, ".claude", "settings.json")
    const userFile = path.join(paths.userConfigDir, "settings.json")
    if (fs.existsSync(localSettingsFile)) {
      // tracked by git, or behind a symlinked `.claude`: it is really project settings (spec §1.1)
      const untrustedLocal =
        !trusted && (isSymlink(path.dirname(localSettingsFile)) || (gitRoot !== undefined && isTrackedByGit(gitRoot, localSettingsFile)))
      addFile("localSettings", localSettingsFile, cwd, { untrustedLocal })
    }
    // 4. shared project settings (start directory only); not when it is the user's own file
    if (path.resolve(projectFile) !== path.resolve(userFile)) addFile("projectSettings", projectFile, cwd)
    // 5. user settings
    addFile("userSettings", userFile, paths.userConfigDir)

    const managedOnly = sources.some((s) => s.source === "policySettings" && s.settings.allowManagedPermissionRulesOnly === true)
    const untrustedProject = (s: LoadedSource) => !trusted && (s.source === "projectSettings" || s.untrustedLocal)
    const collected: Array<PermissionRule> = []
    for (const s of sources) {
      const perms = permissionsOf(s.settings)
      for (const behavior of RULE_KEYS) {
        const raws = stringsOf(perms[behavior])
        if (raws.length === 0) continue
        if (managedOnly && s.source !== "policySettings") {
          warnings.push(`${s.file ?? s.source}: ${raws.length} ${behavior} rule(s) ignored because managed settings set allowManagedPermissionRulesOnly`)
          continue
        }
        if (behavior === "allow" && s.broken) {
          warnings.push(`${s.file ?? s.source}: ${raws.length} allow rule(s) ignored because the file has errors`)
          continue
        }
        if (behavior === "allow" && untrustedProject(s)) {
          warnings.push(`${s.file}: ${raws.length} allow rule(s) ignored because the project is not trusted (use --trust-project)`)
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

    const bypassDisabled = sources.some((s) => permissionsOf(s.settings).disableBypassPermissionsMode !== undefined || s.settings.disableBypassPermissionsMode !== undefined)

    // defaultMode: highest source that sets a usable one
    let configuredMode: PermissionMode | undefined
    for (const s of sources) {
      const raw = permissionsOf(s.settings).defaultMode
      if (typeof raw !== "string") continue
      const parsed = parsePermissionMode(raw)
      if (parsed === undefined) continue
      if (parsed === "auto" && (s.source === "projectSettings" || s.source === "localSettings")) {
        warnings.push(`${s.file}: defaultMode "auto" is ignored in project and local settings`)
        continue
      }
      if (s.broken && !RESTRICTIVE_MODES.includes(parsed)) {
        warnings.push(`${s.file ?? s.source}: defaultMode "${raw}" ignored because the file has errors`)
        continue
      }
      configuredMode = parsed
      break
    }
    if (options.permissionMode === "bypassPermissions" && bypassDisabled) {
      return yield* new BadRequest({ reason: "--permission-mode bypassPermissions is disabled by permissions.disableBypassPermissionsMode in the settings" })
    }
    let mode = options.permissionMode ?? configuredMode ?? "default"
    if (mode === "bypassPermissions" && bypassDisabled) {
      warnings.push('defaultMode "bypassPermissions" ignored because permissions.disableBypassPermissionsMode is set; using default')
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
      const dirs = stringsOf(permissionsOf(s.settings).additionalDirectories)
      if (dirs.length === 0) continue
      if (s.broken) {
        warnings.push(`${s.file ?? s.source}: additionalDirectories ignored because the file has errors`)
        continue
      }
      if (untrustedProject(s)) {
        warnings.push(`${s.file}: additionalDirectories ignored because the project is not trusted (use --trust-project)`)
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

    return {
      cwd,
      sources: sources.map(({ source, file, root, settings, untrustedLocal }) => ({ source, file, root, settings, ...(untrustedLocal ? { untrustedLocal } : {}) })),
      rules: usable,
      mode,
      additionalDirectories,
      errors,
      warnings,
      value,
      localSettingsFile,
      userConfigDir: paths.userConfigDir,
      bypassDisabled,
      trusted,
      home: paths.home
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
        const existing = text === undefined ? { _tag: "Missing" as const } : asSettings(parseJson(text), file)
        if (existing._tag === "Failed") throw new Error(existing.error.reason)
        const settings = existing._tag === "Loaded" ? existing.settings : {}
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
  const { usable, warnings } = partitionRules(raws.map((raw) => makeRule(raw, behavior, destinationSource[destination], loaded.cwd, file)))
  return { rules: usable, warnings }
}

export const make = (options: SettingsOptions): Effect.Effect<SettingsService, BadRequest> =>
  Effect.gen(function* () {
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
    const cache = yield* Ref.make(yield* load(options, paths))

    const current = Ref.get(cache)
    const addRules = Effect.fn("Settings.addRules")(function* (
      rules: ReadonlyArray<string>,
      behavior: RuleBehavior,
      destination: RuleDestination
    ) {
      const loaded = yield* Ref.get(cache)
      if (destination !== "session") yield* saveRules(destinationFile(loaded, destination), rules, behavior)
      const added = sessionRules(loaded, rules, behavior, destination)
      yield* Ref.update(cache, (state) => ({ ...state, rules: [...state.rules, ...added.rules], warnings: [...state.warnings, ...added.warnings] }))
    })
    return Settings.of({ current, addRules })
  })

export const layer = (options: SettingsOptions): Layer.Layer<Settings, BadRequest> => Layer.effect(Settings, make(options))

/** Settings from values only, for tests and embedders: no files are read. */
export const layerStatic = (loaded: Partial<LoadedSettings> & { readonly cwd: string }): Layer.Layer<Settings> =>
  Layer.sync(Settings, () => {
    let state: LoadedSettings = {
      sources: [],
      rules: [],
      mode: "default",
      additionalDirectories: [],
      errors: [],
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
          state = { ...state, rules: [...state.rules, ...added.rules], warnings: [...state.warnings, ...added.warnings] }
        })
    })
  })
