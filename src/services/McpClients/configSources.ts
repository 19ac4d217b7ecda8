/**
 * Where MCP servers are configured, and which entry wins:
 * - `--mcp-config` files or inline JSON (scope `dynamic`, highest; `--strict-mcp-config` keeps
 *   only these),
 * - local: `~/.claude.json` → `projects["<project dir>"].mcpServers`,
 * - project: `.mcp.json` in the start directory and its parents up to the git root (the nearer
 *   file wins),
 * - user: `~/.claude.json` → `mcpServers`.
 * The whole entry comes from the winner; fields are never merged. `disabledMcpjsonServers`
 * rejects project servers by name; `enabledMcpjsonServers` / `enableAllProjectMcpServers`
 * approve them when approval is required.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { BadRequest } from "../../Errors.js"
import { updateFileLocked } from "../../internal/fileLock.js"
import { findGitRoot } from "../../internal/gitRoot.js"
import { isRecord, kindOf, parseJsonObject, readJsonObjectFile } from "../../internal/json.js"
import type { SettingsSource } from "../Settings.js"
import { type EntryResult, type Environment, type McpScope, parseServerEntry, RESERVED_SERVER_NAMES } from "./config.js"
import { normalizeNamePart } from "./naming.js"

export interface ConfiguredServer {
  readonly name: string
  readonly scope: McpScope
  /** The file the entry came from, or `--mcp-config` for inline JSON. */
  readonly origin: string
  readonly entry: EntryResult
  /** Set when the server is configured but must not start, and why. */
  readonly disabledReason?: string
  /** A project server nobody has approved yet: it does not start (unless approved now). */
  readonly needsApproval?: boolean
}

export interface McpConfiguration {
  /** Sorted by name. */
  readonly servers: ReadonlyArray<ConfiguredServer>
  /** Files that could not be used at all (the other files still load). */
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

/**
 * `approved` (toolgate's default) starts only the project servers approved by
 * `enabledMcpjsonServers`, `enableAllProjectMcpServers` or a trusted project, and marks the
 * others `needsApproval`; `load` starts them without asking (Claude Code's `-p` / SDK behaviour).
 */
export type ProjectServerPolicy = "load" | "approved"

export interface LoadMcpConfigOptions {
  readonly cwd: string
  /** `--mcp-config` values: paths or inline JSON objects. */
  readonly mcpConfig?: ReadonlyArray<string>
  readonly strictMcpConfig?: boolean
  /** `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`). */
  readonly claudeJsonFile: string
  readonly env: Environment
  /** Settings sources, highest first (for the approval lists). */
  readonly settingsSources: ReadonlyArray<SettingsSource>
  readonly trusted: boolean
  readonly projectServers: ProjectServerPolicy
}

/** `.mcp.json` files from the start directory up to the git root, nearest first. */
const projectFiles = (cwd: string): ReadonlyArray<string> => {
  const root = findGitRoot(cwd)
  const files: Array<string> = []
  let dir = cwd
  for (;;) {
    files.push(path.join(dir, ".mcp.json"))
    if (root === undefined || dir === root) break
    const parent = path.dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return files
}

const stringList = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** The project's entry in `~/.claude.json`: keyed by the start directory, else by the git root. */
const projectEntry = (
  claudeJson: Record<string, unknown> | undefined,
  cwd: string
): Record<string, unknown> | undefined => {
  const projects = claudeJson?.projects
  if (!isRecord(projects)) return undefined
  for (const key of [cwd, findGitRoot(cwd)]) {
    if (key === undefined) continue
    const entry = projects[key]
    if (isRecord(entry)) return entry
  }
  return undefined
}

export const loadMcpConfig = (options: LoadMcpConfigOptions): Effect.Effect<McpConfiguration, BadRequest> =>
  Effect.gen(function*() {
    const cwd = path.resolve(options.cwd)
    const errors: Array<string> = []
    const warnings: Array<string> = []
    const winners = new Map<string, ConfiguredServer>()

    /** Adds the entries of one `mcpServers` object; entries already present (higher scope) win. */
    const addServers = (servers: unknown, scope: McpScope, origin: string, where: string) => {
      if (servers === undefined) return
      if (!isRecord(servers)) {
        errors.push(
          `${origin}: ${where} must be an object of servers, got ${
            kindOf(servers)
          }; no server from this file was loaded`
        )
        return
      }
      for (const [name, raw] of Object.entries(servers)) {
        if (name.trim() === "") {
          errors.push(`${origin}: a server with an empty name was skipped`)
          continue
        }
        if (RESERVED_SERVER_NAMES.includes(name)) {
          warnings.push(`${origin}: server "${name}" uses a reserved name and was skipped`)
          continue
        }
        if (winners.has(name)) continue
        const entry = parseServerEntry(raw, options.env)
        if (entry._tag === "Ok") { for (const w of entry.warnings) warnings.push(`${origin}: server "${name}": ${w}`) }
        winners.set(name, { name, scope, origin, entry })
      }
    }

    // 1. --mcp-config: unusable input here is the caller's mistake, as with --settings
    for (const arg of options.mcpConfig ?? []) {
      const inline = arg.trim().startsWith("{")
      const file = inline ? undefined : path.resolve(cwd, arg)
      const read = inline ? parseJsonObject(arg) : readJsonObjectFile(file!)
      if (read._tag === "Missing") return yield* new BadRequest({ reason: `--mcp-config: file not found: ${file}` })
      if (read._tag === "Failed") {
        return yield* new BadRequest({ reason: `--mcp-config ${file ?? "(inline JSON)"}: ${read.reason}` })
      }
      if (!isRecord(read.json.mcpServers)) {
        return yield* new BadRequest({
          reason: `--mcp-config ${file ?? "(inline JSON)"}: expected an object with "mcpServers", got ${
            kindOf(read.json.mcpServers)
          } there`
        })
      }
      addServers(read.json.mcpServers, "dynamic", file ?? "--mcp-config", `"mcpServers"`)
    }

    let claudeJson: Record<string, unknown> | undefined
    if (options.strictMcpConfig !== true) {
      const read = readJsonObjectFile(options.claudeJsonFile)
      if (read._tag === "Failed") {
        errors.push(`${options.claudeJsonFile}: ${read.reason}; its user and local servers were not loaded`)
      }
      if (read._tag === "Loaded") claudeJson = read.json
      const project = projectEntry(claudeJson, cwd)

      // 2. local scope
      addServers(project?.mcpServers, "local", options.claudeJsonFile, `"projects[${JSON.stringify(cwd)}].mcpServers"`)

      // 3. project scope, nearest file first
      for (const file of projectFiles(cwd)) {
        const read = readJsonObjectFile(file)
        if (read._tag === "Missing") continue
        if (read._tag === "Failed") {
          errors.push(`${file}: ${read.reason}; no server from this file was loaded`)
          continue
        }
        if (read.json.mcpServers === undefined) {
          warnings.push(`${file}: no "mcpServers" object; nothing to load`)
          continue
        }
        addServers(read.json.mcpServers, "project", file, `"mcpServers"`)
      }

      // 4. user scope
      addServers(claudeJson?.mcpServers, "user", options.claudeJsonFile, `"mcpServers"`)
    }

    const approval = approvalLists(options, projectEntry(claudeJson, cwd))
    const servers = Array.from(winners.values())
      .map((server): ConfiguredServer => {
        if (server.scope !== "project") return server
        const disabled = approval.disabled.get(server.name)
        if (disabled !== undefined) {
          return { ...server, disabledReason: `disabled by disabledMcpjsonServers in ${disabled}` }
        }
        if (
          options.projectServers === "approved" && !approval.all && !approval.enabled.has(server.name) &&
          !options.trusted
        ) {
          return { ...server, needsApproval: true }
        }
        return server
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const segments = new Map<string, string>()
    for (const server of servers) {
      if (server.name.includes("__")) {
        warnings.push(
          `${server.origin}: server "${server.name}" has "__" in its name, which makes its permission rules ambiguous`
        )
      }
      const segment = normalizeNamePart(server.name)
      const other = segments.get(segment)
      if (other !== undefined) {
        warnings.push(
          `servers "${other}" and "${server.name}" both become "mcp__${segment}__…"; their tools clash and only the first of each name is kept`
        )
      } else segments.set(segment, server.name)
    }
    return { servers, errors, warnings }
  })

/**
 * The approval lists of every settings source and of the project's `~/.claude.json` entry.
 * Rejections count from everywhere. Approvals count from the user's own files (user, managed,
 * `--settings`, local settings, `~/.claude.json`); the project's shared settings, and local
 * settings that are really the project's (tracked by git, behind a symlink), approve only in a
 * trusted project — a repository cannot approve its own servers.
 */
const approvalLists = (options: LoadMcpConfigOptions, project: Record<string, unknown> | undefined) => {
  const disabled = new Map<string, string>()
  const enabled = new Set<string>()
  let all = false
  const from = (settings: Readonly<Record<string, unknown>>, label: string, mayApprove: boolean) => {
    for (const name of stringList(settings.disabledMcpjsonServers)) if (!disabled.has(name)) disabled.set(name, label)
    if (!mayApprove) return
    for (const name of stringList(settings.enabledMcpjsonServers)) enabled.add(name)
    if (settings.enableAllProjectMcpServers === true) all = true
  }
  for (const source of options.settingsSources) {
    const projectOwned = source.source === "projectSettings" || source.untrustedLocal === true
    from(source.settings, source.file ?? source.source, options.trusted || !projectOwned)
  }
  if (project !== undefined) from(project, options.claudeJsonFile, true)
  return { disabled, enabled, all }
}

/** How a project server was answered; saved to the local settings as Claude Code does. */
export type ProjectServerChoice = "approve" | "approve-all" | "reject"

/** Saves a choice about a project server in `file` (the local settings), under the file's lock. */
export const saveProjectServerChoice = (file: string, name: string, choice: ProjectServerChoice) =>
  Effect.tryPromise({
    try: () =>
      updateFileLocked(file, (text) => {
        const read = text === undefined ? undefined : parseJsonObject(text)
        if (read !== undefined && read._tag === "Failed") throw new Error(read.reason)
        const settings = read?._tag === "Loaded" ? { ...read.json } : {}
        const add = (key: string) => {
          const list = stringList(settings[key])
          settings[key] = list.includes(name) ? list : [...list, name]
        }
        if (choice === "reject") add("disabledMcpjsonServers")
        else add("enabledMcpjsonServers")
        if (choice === "approve-all") settings.enableAllProjectMcpServers = true
        return `${JSON.stringify(settings, null, 2)}\n`
      }),
    catch: (e) => new BadRequest({ reason: `${file}: ${(e as Error).message}` })
  })
