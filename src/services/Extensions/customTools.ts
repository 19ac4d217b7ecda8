/**
 * Custom tools written by users as modules, loaded at start:
 *   - `<project>/.toolgate/tools/*.{js,mjs,cjs}` — only when the project is trusted
 *     (`--trust-project`), since loading a module runs its code;
 *   - `~/.toolgate/tools/*.{js,mjs,cjs}` — the user's own;
 *   - a skill folder whose SKILL.md names a module in `toolgate-tool: index.js` (project skills
 *     only when trusted, like the project's tool folder).
 * File names starting with `_` or `.` are helpers and are not loaded. A module default-exports a
 * factory called with the toolgate API (api.ts), or plain definitions (plainTool.ts), or a list
 * of either. A module that fails to load is skipped with a warning naming the file; so is each
 * tool that fails validation, or whose name is taken by a built-in or an earlier custom tool.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { buildTool, type AnyTool, type ToolDefinition } from "../../Tool.js"
import { isWithin } from "../../internal/expandPath.js"
import { toolgateApi } from "./api.js"
import { isPlainDefinition, plainTool } from "./plainTool.js"
import { makeJsonSchemaInput, type JsonSchemaInput } from "./jsonSchemaInput.js"
import type { ExtensionSource, Skill } from "./skills.js"
import { toolProblems } from "./validateTool.js"

export interface ToolModuleRef {
  readonly file: string
  readonly source: ExtensionSource
  /** The skill that named the module, if any. */
  readonly skill?: string
}

export interface CustomToolScan {
  readonly tools: ReadonlyArray<AnyTool>
  /** Which file each tool came from, by tool name. */
  readonly origins: ReadonlyMap<string, string>
  readonly warnings: ReadonlyArray<string>
}

const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".cjs"])

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The modules of one tools folder, sorted by name. */
export const toolModulesIn = (dir: string, source: ExtensionSource): ReadonlyArray<ToolModuleRef> => {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) =>
        (e.isFile() || e.isSymbolicLink()) && MODULE_EXTENSIONS.has(path.extname(e.name)) && !/^[_.]/.test(e.name)
      )
      .map((e) => e.name)
      .sort()
      .map((name) => ({ file: path.join(dir, name), source }))
  } catch {
    return []
  }
}

/** The module a skill names, if it stays inside the skill's folder. */
export const skillToolModule = (skill: Skill): ToolModuleRef | string | undefined => {
  if (skill.toolModule === undefined) return undefined
  const file = path.resolve(skill.dir, skill.toolModule)
  if (!isWithin(file, skill.dir)) {
    return `skill ${skill.name}: toolgate-tool ${
      JSON.stringify(skill.toolModule)
    } points outside the skill folder ${skill.dir}; not loaded`
  }
  return { file, source: skill.source, skill: skill.name }
}

// A native dynamic import, so .mjs, .js and .cjs all load: the CLI launcher's (the bundle's own
// import() is compiled to require(), see scripts/build.mjs), or this module's under tsx/vitest.
type NativeImport = (url: string) => Promise<Record<string, unknown>>
const importModule = (file: string): Promise<Record<string, unknown>> => {
  const viaLauncher = (globalThis as { __toolgateImport?: NativeImport }).__toolgateImport
  const url = pathToFileURL(file).href
  return viaLauncher !== undefined ? viaLauncher(url) : import(url)
}

/** Turns what a module exports into tools; throws when the export is unusable. */
const toolsFromExport = async (
  value: unknown,
  jsonSchemaInput: JsonSchemaInput,
  depth = 0
): Promise<ReadonlyArray<AnyTool>> => {
  if (typeof value === "function") {
    if (depth > 0) {
      throw new Error(
        "the factory returned another function; it must return a tool, a list of tools, or plain definitions"
      )
    }
    return toolsFromExport(
      await (value as (api: typeof toolgateApi) => unknown)(toolgateApi),
      jsonSchemaInput,
      depth + 1
    )
  }
  if (Array.isArray(value)) {
    return (await Promise.all(value.map((v) => toolsFromExport(v, jsonSchemaInput, Math.max(depth, 1))))).flat()
  }
  if (isPlainDefinition(value)) return [await plainTool(value, jsonSchemaInput)]
  if (typeof value === "object" && value !== null && typeof (value as { call?: unknown }).call === "function") {
    return [buildTool(value as ToolDefinition<unknown, unknown>)]
  }
  throw new Error(
    "its default export is not a tool: export a factory `(toolgate) => toolgate.buildTool({...})`, a plain definition `{ name, description, inputSchema, run }`, or a list of them"
  )
}

/** Loads the modules in order; `taken` are names already in use (the built-ins). */
export const loadCustomTools = async (
  modules: ReadonlyArray<ToolModuleRef>,
  taken: ReadonlySet<string>
): Promise<CustomToolScan> => {
  const tools: Array<AnyTool> = []
  const origins = new Map<string, string>()
  const warnings: Array<string> = []
  // Plain tools' JSON Schemas: ajv is loaded with the first one, and lives as long as these tools.
  const jsonSchemaInput = makeJsonSchemaInput()
  for (const ref of modules) {
    let loaded: ReadonlyArray<AnyTool>
    try {
      const module = await importModule(ref.file)
      const exported = "default" in module ? module.default : undefined
      if (exported === undefined) {
        throw new Error("it has no default export (use `export default` or `module.exports =`)")
      }
      loaded = await toolsFromExport(exported, jsonSchemaInput)
    } catch (error) {
      warnings.push(`custom tool module ${ref.file} was skipped: it failed to load: ${errorText(error)}`)
      continue
    }
    if (loaded.length === 0) warnings.push(`custom tool module ${ref.file} exports no tools`)
    for (const tool of loaded) {
      const problems = toolProblems(tool)
      const label = typeof tool.name === "string" ? tool.name : "(unnamed)"
      if (problems.length > 0) {
        warnings.push(`custom tool ${label} from ${ref.file} was skipped: ${problems.join("; ")}`)
        continue
      }
      if (taken.has(tool.name)) {
        warnings.push(
          `custom tool ${tool.name} from ${ref.file} was skipped: a built-in tool has this name (built-ins cannot be replaced)`
        )
        continue
      }
      const earlier = origins.get(tool.name)
      if (earlier !== undefined) {
        warnings.push(
          `custom tool ${tool.name} from ${ref.file} was skipped: ${earlier} already defines a tool with this name`
        )
        continue
      }
      origins.set(tool.name, ref.file)
      tools.push(tool)
    }
  }
  return { tools, origins, warnings }
}
