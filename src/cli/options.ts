/**
 * Options every command takes, and how they become a runtime.
 */
import { Options } from "@effect/cli"
import { Option } from "effect"
import * as path from "node:path"
import type { RuntimeOptions } from "../layers/Runtime.js"
import type { McpClientsOptions } from "../services/McpClients.js"
import type { ScheduleMode } from "../services/Scheduler.js"
import { PERMISSION_MODES, type PermissionMode } from "../Permission.js"

export const commonOptions = {
  json: Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON")),
  cwd: Options.text("cwd").pipe(Options.withDescription("Working directory of the session (default: the current directory)"), Options.optional),
  permissionMode: Options.choice("permission-mode", [...PERMISSION_MODES, "manual"]).pipe(
    Options.withDescription("Permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions"),
    Options.optional
  ),
  allowedTools: Options.text("allowed-tools").pipe(
    Options.withAlias("allowedTools"),
    Options.withDescription('Allow rules, e.g. "Bash(git log:*) Read"'),
    Options.repeated
  ),
  disallowedTools: Options.text("disallowed-tools").pipe(
    Options.withAlias("disallowedTools"),
    Options.withDescription('Deny rules, e.g. "Bash(rm:*)"'),
    Options.repeated
  ),
  settings: Options.text("settings").pipe(Options.withDescription("A settings file or inline JSON (highest non-managed source)"), Options.repeated),
  sessionDir: Options.text("session-dir").pipe(Options.withDescription("Where the session keeps spilled results and logs"), Options.optional),
  addDir: Options.text("add-dir").pipe(Options.withDescription("An additional working directory"), Options.repeated),
  trustProject: Options.boolean("trust-project").pipe(
    Options.withDescription("Trust the project: apply its .claude/settings.json allow rules and start its .mcp.json servers without approval")
  ),
  mcpConfig: Options.text("mcp-config").pipe(
    Options.withDescription('MCP servers from a JSON file or inline JSON ({"mcpServers": {...}}); repeatable; these win over every other scope'),
    Options.repeated
  ),
  strictMcpConfig: Options.boolean("strict-mcp-config").pipe(
    Options.withDescription("Use only the MCP servers of --mcp-config (ignore .mcp.json and ~/.claude.json)")
  )
}

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
}

export const cwdOf = (values: CommonValues): string => path.resolve(Option.getOrElse(values.cwd, () => process.cwd()))

/** The runtime for the flags; `approveMcp` asks about unapproved project MCP servers (see mcpApproval.ts). */
export const runtimeOptions = (values: CommonValues, approveMcp?: McpClientsOptions["approve"]): RuntimeOptions => {
  const mode = Option.getOrUndefined(values.permissionMode)
  const cwd = cwdOf(values)
  return {
    cwd,
    mcp: { cwd, mcpConfig: values.mcpConfig, strictMcpConfig: values.strictMcpConfig, ...(approveMcp === undefined ? {} : { approve: approveMcp }) },
    settings: values.settings,
    allowedTools: values.allowedTools,
    disallowedTools: values.disallowedTools,
    addDirs: values.addDir,
    trustProject: values.trustProject,
    ...(mode === undefined ? {} : { permissionMode: (mode === "manual" ? "default" : mode) as PermissionMode })
  }
}

/** The scheduling flags of `exec`, `call` and `run`. */
export const scheduleOptions = {
  timeline: Options.boolean("timeline").pipe(Options.withDescription("Draw which calls ran together, and when")),
  maxConcurrency: Options.integer("max-concurrency").pipe(
    Options.withDescription("Most calls running at once (default: TOOLGATE_MAX_TOOL_USE_CONCURRENCY or 10)"),
    Options.optional
  ),
  schedule: Options.choice("schedule", ["batches", "footprints"]).pipe(
    Options.withDescription("batches (Claude Code) or footprints (start each call once the calls it conflicts with are done)"),
    Options.withDefault("batches")
  ),
  siblingCancellation: Options.choice("sibling-cancellation", ["on", "off"]).pipe(
    Options.withDescription("Cancel the parallel siblings of a failing Bash call"),
    Options.withDefault("on")
  )
}

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
