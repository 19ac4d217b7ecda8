/**
 * Subagent types: the built-in ones and those of `.claude/agents/*.md` (project) and
 * `~/.claude/agents/*.md` (user), read as Claude Code reads them: front matter `name` and
 * `description` (both required), `tools` (comma list or YAML list; omitted or `*` = every tool of
 * the pool), `disallowedTools`, `model` (`inherit` by default), `maxTurns`; the body is the
 * subagent's system prompt. A project type wins over a user type of the same name, and both
 * over a built-in one. Files that cannot be used are skipped with a warning, never fatal.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { listValue, parseFrontMatter, stringValue } from "../../../internal/frontMatter.js"
import { BUILTIN_AGENTS } from "./builtins.js"

export type AgentSource = "built-in" | "project" | "user" | "library"

export interface AgentDefinition {
  /** The `subagent_type` the model passes. */
  readonly name: string
  /** When to use it (shown to the model in the Agent tool's description). */
  readonly description: string
  /** Tool names (or globs) the type may use; undefined = every tool of the pool. */
  readonly tools: ReadonlyArray<string> | undefined
  /** Tool names (or globs) taken away from the type. */
  readonly disallowedTools: ReadonlyArray<string>
  /** `inherit`, or a model alias / name. */
  readonly model: string
  readonly maxTurns: number | undefined
  /** The subagent's system prompt. */
  readonly systemPrompt: string
  /**
   * Every call must be read-only by the tool's own `isReadOnly(input)` (Explore, Plan): beyond
   * Claude Code, which only takes the editing tools away and leaves Bash to the prompt.
   */
  readonly readOnly: boolean
  readonly source: AgentSource
  /** The file it came from. */
  readonly file?: string
}

export interface LoadedAgents {
  /** Sorted by name (a stable tool description). */
  readonly definitions: ReadonlyArray<AgentDefinition>
  readonly warnings: ReadonlyArray<string>
}

export interface AgentDirs {
  /** `<project>/.claude/agents` */
  readonly projectDir?: string
  /** `~/.claude/agents` */
  readonly userDir?: string
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/

/** Parses one agent file; a string is the reason it cannot be used. */
export const parseAgentFile = (file: string, text: string, source: AgentSource): AgentDefinition | string => {
  const { data, body } = parseFrontMatter(text)
  const name = stringValue(data.name)?.trim()
  const description = stringValue(data.description)?.trim()
  if (name === undefined || name === "") return `${file}: no \`name\` in the front matter; the agent type was skipped`
  if (!NAME.test(name)) {
    return `${file}: the name ${JSON.stringify(name)} is not a usable agent type (letters, digits, -, _, ., :); skipped`
  }
  if (description === undefined || description === "") {
    return `${file}: no \`description\` in the front matter; the agent type ${name} was skipped`
  }
  const toolsValue = data.tools
  const tools = toolsValue === undefined ? undefined : listValue(toolsValue)
  const everything = tools !== undefined && tools.includes("*")
  const model = stringValue(data.model)?.trim()
  const maxTurnsText = stringValue(data.maxTurns)?.trim()
  const maxTurns = maxTurnsText === undefined || maxTurnsText === "" ? undefined : Number(maxTurnsText)
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) {
    return `${file}: maxTurns must be a positive integer (got ${
      JSON.stringify(maxTurnsText)
    }); the agent type ${name} was skipped`
  }
  return {
    name,
    description,
    tools: tools === undefined || everything ? undefined : tools,
    disallowedTools: listValue(data.disallowedTools),
    model: model === undefined || model === "" ? "inherit" : model,
    maxTurns,
    systemPrompt: body.trim(),
    readOnly: false,
    source,
    file
  }
}

const readDir = (dir: string, source: AgentSource, warnings: Array<string>): Array<AgentDefinition> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".md")).sort()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      warnings.push(`${dir}: cannot read the agents folder (${(e as Error).message})`)
    }
    return []
  }
  const out: Array<AgentDefinition> = []
  for (const name of names) {
    const file = path.join(dir, name)
    let text: string
    try {
      if (!fs.statSync(file).isFile()) continue
      text = fs.readFileSync(file, "utf8")
    } catch (e) {
      warnings.push(`${file}: cannot read (${(e as Error).message}); skipped`)
      continue
    }
    const parsed = parseAgentFile(file, text, source)
    if (typeof parsed === "string") warnings.push(parsed)
    else out.push(parsed)
  }
  return out
}

/**
 * The agent types of a session: built-ins, then user, then project files (later wins a name),
 * then `extra` (library users' own definitions win over everything).
 */
export const loadAgents = (
  dirs: AgentDirs,
  extra: ReadonlyArray<AgentDefinition> = [],
  builtins: ReadonlyArray<AgentDefinition> = BUILTIN_AGENTS
): LoadedAgents => {
  const warnings: Array<string> = []
  const byName = new Map<string, AgentDefinition>()
  const add = (list: ReadonlyArray<AgentDefinition>) => {
    for (const d of list) byName.set(d.name, d)
  }
  add(builtins)
  if (dirs.userDir !== undefined) add(readDir(dirs.userDir, "user", warnings))
  if (dirs.projectDir !== undefined) {
    const project = readDir(dirs.projectDir, "project", warnings)
    const seen = new Set<string>()
    for (const d of project) {
      if (seen.has(d.name)) warnings.push(`${d.file}: a second project agent named ${d.name}; the later file wins`)
      seen.add(d.name)
    }
    add(project)
  }
  add(extra)
  const definitions = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { definitions, warnings }
}

/** `<dir>/.claude/agents` and `<userConfigDir>/agents`. */
export const agentDirs = (projectDir: string, userConfigDir: string): AgentDirs => ({
  projectDir: path.join(projectDir, ".claude", "agents"),
  userDir: path.join(userConfigDir, "agents")
})
