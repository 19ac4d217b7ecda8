/**
 * Flags every command takes, the scheduling flags, and how they become a runtime.
 */
import { Option } from "effect"
import * as path from "node:path"
import type { RuntimeOptions } from "../layers/Runtime.js"
import type { McpClientsOptions } from "../services/McpClients.js"
import type { ScheduleMode } from "../services/Scheduler.js"
import type { PermissionMode } from "../Permission.js"
import * as F from "./flags.js"

/** The modes offered; `manual` (Claude Code's name for default) and `auto` are accepted too. */
export const OFFERED_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const

/** A rule as typed on the command line (`Read`, `Bash(git log:*)`, `mcp__s__*`), one of several after a variadic flag. */
export const looksLikeRule = (token: string): boolean =>
  /^[A-Za-z_*][\w*.-]*(\(.*\))?(,[A-Za-z_*][\w*.-]*(\(.*\))?)*$/s.test(token)

const common = { group: "common" } as const

export const commonFlags = {
  json: F.boolean("json", "Print machine-readable JSON", common),
  cwd: F.optionalText("cwd", "<dir>", "Working directory of the session (default: the current directory)", common),
  permissionMode: F.optionalChoice(
    "permission-mode",
    OFFERED_MODES,
    ["manual", "auto"],
    "Permission mode for the session",
    {
      ...common,
      spellings: ["permissionMode"]
    }
  ),
  allowedTools: F.repeatedText(
    "allowed-tools",
    "<rules...>",
    "Allow rules, space- or comma-separated, e.g. \"Bash(git log:*)\" Read",
    {
      ...common,
      spellings: ["allowedTools"],
      variadic: "rules"
    }
  ),
  disallowedTools: F.repeatedText(
    "disallowed-tools",
    "<rules...>",
    "Deny rules, space- or comma-separated, e.g. \"Bash(rm:*)\" WebFetch",
    {
      ...common,
      spellings: ["disallowedTools"],
      variadic: "rules"
    }
  ),
  settings: F.repeatedText(
    "settings",
    "<file-or-json>",
    "A settings file or inline JSON (highest non-managed source)",
    common
  ),
  sessionDir: F.optionalText(
    "session-dir",
    "<dir>",
    "Where the session keeps its transcript, spilled results and logs",
    {
      ...common,
      spellings: ["sessionDir"]
    }
  ),
  addDir: F.repeatedText("add-dir", "<dirs...>", "Additional working directories", {
    ...common,
    spellings: ["addDir"],
    variadic: "paths"
  }),
  trustProject: F.boolean(
    "trust-project",
    "Trust the project: apply its .claude/settings.json allow rules and start its .mcp.json servers without approval",
    common
  ),
  mcpConfig: F.repeatedText(
    "mcp-config",
    "<configs...>",
    "MCP servers from JSON files or inline JSON ({\"mcpServers\": {...}}); these win over every other scope",
    { ...common, spellings: ["mcpConfig"], variadic: "json" }
  ),
  strictMcpConfig: F.boolean(
    "strict-mcp-config",
    "Use only the MCP servers of --mcp-config (ignore .mcp.json and ~/.claude.json)",
    {
      ...common,
      spellings: ["strictMcpConfig"]
    }
  ),
  debug: F.boolean(
    "debug",
    "Debug logs on stderr (settings sources, MCP servers, model requests, permission decisions)",
    { ...common, short: "d" }
  )
}

export const commonOptions = F.optionsOf(commonFlags)

export interface CommonValues {
  readonly json: boolean
  readonly cwd: Option.Option<string>
  readonly permissionMode: Option.Option<string>
  readonly allowedTools: ReadonlyArray<string>
  readonly disallowedTools: ReadonlyArray<string>
  readonly settings: ReadonlyArray<string>
  readonly sessionDir: Option.Option<string>
  readonly addDir: ReadonlyArray<string>
  readonly trustProject: boolean
  readonly mcpConfig: ReadonlyArray<string>
  readonly strictMcpConfig: boolean
  readonly debug: boolean
}

export const cwdOf = (values: Pick<CommonValues, "cwd">): string =>
  path.resolve(Option.getOrElse(values.cwd, () => process.cwd()))

const modeOf = (name: string): PermissionMode => (name === "manual" ? "default" : (name as PermissionMode))

/** The runtime for the flags; `approveMcp` asks about unapproved project MCP servers (see mcpApproval.ts). */
export const runtimeOptions = (values: CommonValues, approveMcp?: McpClientsOptions["approve"]): RuntimeOptions => {
  const mode = Option.getOrUndefined(values.permissionMode)
  const cwd = cwdOf(values)
  return {
    cwd,
    mcp: {
      cwd,
      mcpConfig: values.mcpConfig,
      strictMcpConfig: values.strictMcpConfig,
      ...(approveMcp === undefined ? {} : { approve: approveMcp })
    },
    settings: values.settings,
    allowedTools: values.allowedTools,
    disallowedTools: values.disallowedTools,
    addDirs: values.addDir,
    trustProject: values.trustProject,
    ...(mode === undefined ? {} : { permissionMode: modeOf(mode) })
  }
}

const schedule = { group: "schedule" } as const

/** The scheduling flags of `exec`, `call`, `run` and `replay`. */
export const scheduleFlags = {
  timeline: F.boolean("timeline", "Draw which calls ran together, and when", schedule),
  maxConcurrency: F.optionalInteger(
    "max-concurrency",
    "<n>",
    "Most calls running at once (default: TOOLGATE_MAX_TOOL_USE_CONCURRENCY or 10)",
    schedule
  ),
  schedule: F.choiceWithDefault(
    "schedule",
    ["batches", "footprints"],
    "batches",
    "batches (Claude Code) or footprints (start each call once the calls it conflicts with are done)",
    schedule
  ),
  siblingCancellation: F.choiceWithDefault(
    "sibling-cancellation",
    ["on", "off"],
    "on",
    "Cancel the parallel siblings of a failing Bash call",
    schedule
  )
}

export const scheduleOptions = F.optionsOf(scheduleFlags)

export interface ScheduleValues {
  readonly timeline: boolean
  readonly maxConcurrency: Option.Option<number>
  readonly schedule: string
  readonly siblingCancellation: string
}

/** The scheduler options the flags ask for. */
export const schedulingOf = (values: ScheduleValues) => {
  const maxConcurrency = Option.getOrUndefined(values.maxConcurrency)
  return {
    mode: values.schedule as ScheduleMode,
    siblingCancellation: values.siblingCancellation === "on",
    ...(maxConcurrency === undefined ? {} : { maxConcurrency })
  }
}
