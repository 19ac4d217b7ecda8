/**
 * How each program is started on a scenario: Claude Code (`claude -p`, the reference) and
 * toolgate (`toolgate run -p`, what is checked), with the same flags, folders and environment.
 */
import * as path from "node:path"
import type { Layout } from "./layout.js"
import { modelOf, type Scenario } from "./Scenario.js"

export type Program =
  | { readonly kind: "cc"; readonly bin: string }
  | { readonly kind: "tg"; readonly cli: string }

/**
 * Claude Code 2.1.332 hides Glob and Grep unless `--tools` names them and defers some tools
 * behind tool search; naming the tools (and turning tool search off) gives the classic set.
 */
export const CC_TOOLS = "Agent,Bash,Edit,Glob,Grep,Read,Write,NotebookEdit,WebFetch,TodoWrite,TaskOutput,TaskStop"

/** The environment both programs run in, besides HOME and the API's address. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C.UTF-8",
  TERM: "dumb",
  SHELL: "/bin/bash",
  USER: "root",
  ANTHROPIC_API_KEY: "sk-ant-fake",
  // keep Claude Code offline and plain
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  ENABLE_TOOL_SEARCH: "false",
  // brings back TodoWrite
  CLAUDE_CODE_ENABLE_TASKS: "0",
  // lets bypassPermissions run as root
  IS_SANDBOX: "1",
  // a per-model experiment that appends a token count to every tool result
  CLAUDE_CODE_TOTAL_TOKENS_REMINDER: "off"
}

export const MARKER = "ORACLE-CASE"

export const promptOf = (scenario: Scenario): string =>
  `${MARKER} ${scenario.name}: ${scenario.prompt ?? "Follow the scripted steps."}`

export interface Command {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

export const commandOf = (program: Program, scenario: Scenario): Command => {
  const common = ["-p", promptOf(scenario), "--output-format", "json", "--model", modelOf(scenario)]
  const mode = scenario.mode !== undefined && scenario.mode !== "default" ? ["--permission-mode", scenario.mode] : []
  const settingsFlag = scenario.settings_flag !== undefined
    ? ["--settings", JSON.stringify(scenario.settings_flag)]
    : []
  const addDirs = (scenario.add_dirs ?? []).flatMap((d) => ["--add-dir", d])
  if (program.kind === "cc") {
    const allowed = scenario.allowed_tools?.length ? ["--allowedTools", ...scenario.allowed_tools] : []
    const disallowed = scenario.disallowed_tools?.length ? ["--disallowedTools", ...scenario.disallowed_tools] : []
    return {
      file: program.bin,
      args: [
        ...common,
        "--tools",
        CC_TOOLS,
        ...mode,
        ...allowed,
        ...disallowed,
        ...addDirs,
        ...settingsFlag,
        ...(scenario.extra_args?.cc ?? [])
      ]
    }
  }
  const allowed = (scenario.allowed_tools ?? []).flatMap((r) => ["--allowed-tools", r])
  const disallowed = (scenario.disallowed_tools ?? []).flatMap((r) => ["--disallowed-tools", r])
  return {
    file: process.execPath,
    args: [
      program.cli,
      "run",
      ...common,
      ...mode,
      ...allowed,
      ...disallowed,
      ...addDirs,
      ...settingsFlag,
      ...(scenario.extra_args?.tg ?? [])
    ]
  }
}

export const envOf = (program: Program, scenario: Scenario, layout: Layout, apiUrl: string): Record<string, string> => {
  const env: Record<string, string> = { ...BASE_ENV, HOME: layout.home, ANTHROPIC_BASE_URL: apiUrl }
  // toolgate is started with this node; hooks and MCP servers that call `node` find the same one
  const nodeDir = path.dirname(process.execPath)
  if (!env.PATH!.split(":").includes(nodeDir)) env.PATH = `${env.PATH}:${nodeDir}`
  return { ...env, ...scenario.env, ...scenario.env_by_program?.[program.kind] }
}
