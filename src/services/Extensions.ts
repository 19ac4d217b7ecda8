/**
 * Skills and custom tools, loaded once when the runtime starts: scans the skill folders
 * (skills.ts), loads custom tool modules (customTools.ts), and adds them to the tool pool through
 * `ToolRegistry.setSource` — `"custom"` for custom tools, `"skills"` for the Skill tool (only
 * when there is at least one skill). Built-ins always win a name clash. Warnings (a module that
 * throws, an invalid tool, an untrusted project's modules) are kept on the service and, unless
 * `reportWarnings: false`, printed to stderr.
 *
 * @since 0.1.0
 */
import { AGENT_TOOL_NAME } from "./Agent.js"
import { Console, Context, Effect, Layer } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import type { AnyTool } from "../Tool.js"
import { BuiltinTools, ToolRegistry } from "./ToolRegistry.js"
import { Settings } from "./Settings.js"
import { loadCustomTools, skillToolModule, toolModulesIn, type ToolModuleRef } from "./Extensions/customTools.js"
import { scanSkills, skillRoots, type Skill } from "./Extensions/skills.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ExtensionsOptions {
  /** The project whose `.claude/skills` and `.toolgate/tools` load; the settings' cwd by default. */
  readonly projectDir?: string
  /** `~/.claude` (user skills); the settings' user config dir by default. */
  readonly userConfigDir?: string
  /** `~/.toolgate` (user tools). */
  readonly toolgateDir?: string
  /** Load the project's tool modules; the settings' workspace trust by default. */
  readonly trustProject?: boolean
  /** Print warnings to stderr (default true). */
  readonly reportWarnings?: boolean
  /** Load nothing (the service then reports no skills and no tools). */
  readonly disabled?: boolean
  /** Makes the tool that runs skills; without it skills are scanned but offer no tool. */
  readonly skillTool?: SkillToolFactory
}

/**
 * @since 0.1.0
 * @category models
 */
export type SkillToolFactory = (skills: ReadonlyArray<Skill>) => AnyTool

/**
 * @since 0.1.0
 * @category models
 */
export interface LoadedExtensions {
  readonly skills: ReadonlyArray<Skill>
  /** The custom tools added to the pool (the Skill tool is not among them). */
  readonly tools: ReadonlyArray<AnyTool>
  /** The Skill tool, when there are skills. */
  readonly skillTool: AnyTool | undefined
  /** Where each custom tool came from, by name. */
  readonly origins: ReadonlyMap<string, string>
  readonly warnings: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ExtensionsService {
  readonly loaded: LoadedExtensions
}

/**
 * @since 0.1.0
 * @category services
 */
export class Extensions extends Context.Tag("toolgate/Extensions")<Extensions, ExtensionsService>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResolvedExtensionsOptions {
  readonly projectDir: string
  readonly userConfigDir: string
  readonly toolgateDir: string
  readonly trustProject: boolean
  readonly skillTool?: SkillToolFactory
}

/**
 * Finds and loads skills and custom tools; `builtinNames` are the names custom tools may not take.
 *
 * @since 0.1.0
 * @category utils
 */
export const loadExtensions = (
  options: ResolvedExtensionsOptions,
  builtinNames: ReadonlySet<string>
): Effect.Effect<LoadedExtensions> =>
  Effect.gen(function*() {
    const scan = scanSkills(skillRoots(options.projectDir, options.userConfigDir))
    const warnings: Array<string> = [...scan.warnings]
    const modules: Array<ToolModuleRef> = [
      ...toolModulesIn(path.join(options.toolgateDir, "tools"), "user"),
      ...toolModulesIn(path.join(options.projectDir, ".toolgate", "tools"), "project")
    ]
    for (const skill of scan.skills) {
      const ref = skillToolModule(skill)
      if (typeof ref === "string") warnings.push(ref)
      else if (ref !== undefined) modules.push(ref)
    }
    const untrusted = options.trustProject ? [] : modules.filter((m) => m.source === "project")
    if (untrusted.length > 0) {
      warnings.push(
        `${untrusted.length} custom tool module(s) of the project were not loaded because the project is not trusted (use --trust-project): ${
          untrusted.map((m) => m.file).join(", ")
        }`
      )
    }
    const allowed = modules.filter((m) => options.trustProject || m.source !== "project")
    // The Agent tool joins the pool later (when a model is configured): its name is taken too.
    const taken = new Set([...builtinNames, AGENT_TOOL_NAME])
    const skillTool = scan.skills.length > 0 ? options.skillTool?.(scan.skills) : undefined
    if (skillTool !== undefined) taken.add(skillTool.name)
    const custom = allowed.length === 0
      ? { tools: [], origins: new Map<string, string>(), warnings: [] }
      : yield* Effect.promise(() => loadCustomTools(allowed, taken))
    warnings.push(...custom.warnings)
    return {
      skills: scan.skills,
      tools: custom.tools,
      skillTool,
      origins: custom.origins,
      warnings
    } satisfies LoadedExtensions
  })

const EMPTY: LoadedExtensions = { skills: [], tools: [], skillTool: undefined, origins: new Map(), warnings: [] }

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: ExtensionsOptions = {}) =>
  Effect.gen(function*() {
    if (options.disabled === true) return Extensions.of({ loaded: EMPTY })
    const settings = yield* Settings
    const registry = yield* ToolRegistry
    const builtins = yield* BuiltinTools
    const current = yield* settings.current
    const home = current.home ?? os.homedir()
    const loaded = yield* loadExtensions(
      {
        projectDir: options.projectDir ?? current.cwd,
        userConfigDir: options.userConfigDir ?? current.userConfigDir,
        toolgateDir: options.toolgateDir ?? path.join(home, ".toolgate"),
        trustProject: options.trustProject ?? current.trusted === true,
        ...(options.skillTool === undefined ? {} : { skillTool: options.skillTool })
      },
      new Set(builtins.map((t) => t.name))
    )
    yield* registry.setSource("custom", loaded.tools)
    yield* registry.setSource("skills", loaded.skillTool === undefined ? [] : [loaded.skillTool])
    if (options.reportWarnings !== false) {
      for (const warning of loaded.warnings) yield* Console.error(`toolgate: warning: ${warning}`)
    }
    return Extensions.of({ loaded })
  })

/**
 * Loads skills and custom tools into the registry when built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ExtensionsOptions = {}
): Layer.Layer<Extensions, never, Settings | ToolRegistry | BuiltinTools> => Layer.effect(Extensions, make(options))

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  Skill
} from "./Extensions/skills.js"
