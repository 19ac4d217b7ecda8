/**
 * What a server (`toolgate serve`) lets its sessions have, decided by its operator with flags or
 * a policy file: permission modes, workspace trust, hooks, settings files, extra directories, MCP
 * servers, the network, and the variables of its own environment their processes get. The
 * default refuses everything that widens what a session can reach; the session's own token
 * holder approves its own questions, so only what the server allows bounds it.
 */
import { Schema } from "effect"
import { PermissionModeName } from "./Permission.js"

/** What `--allow` may name. */
export const ALLOWANCES = [
  "acceptEdits",
  "auto",
  "bypassPermissions",
  "trust-project",
  "hooks",
  "settings-files",
  "add-dirs",
  "mcp",
  "network"
] as const
export type Allowance = (typeof ALLOWANCES)[number]

/** Modes that only narrow what a session may do without asking. */
export const NARROW_MODES = ["default", "plan", "dontAsk"] as const

export const ServePolicy = Schema.Struct({
  /** Permission modes a create request may ask for (and its settings' `defaultMode` may name). */
  permissionModes: Schema.Array(PermissionModeName),
  /** `trustProject`: the project's allow rules, directories and tool modules apply. */
  trustProject: Schema.Boolean,
  /** Command hooks from the request's settings and the project's settings files (else only the server's). */
  hooks: Schema.Boolean,
  /** `settings` naming a file on the server (inside the workspace root). */
  settingsFiles: Schema.Boolean,
  /** `addDirs` (inside the workspace root). */
  addDirs: Schema.Boolean,
  /** MCP servers of the project (`.mcp.json`): stdio servers only, in the sandbox. */
  mcp: Schema.Boolean,
  /** Sandboxed processes and WebFetch reach the network. */
  network: Schema.Boolean,
  /** Variables of the server's environment passed to the session's processes, besides PATH, LANG, LC_*, TERM, TZ. */
  env: Schema.Array(Schema.String),
  /** Folders shown read-only in the sandbox besides the system's (e.g. a toolchain under /opt). */
  readOnlyPaths: Schema.Array(Schema.String)
})
export type ServePolicy = typeof ServePolicy.Type

/** A policy file: every field optional (the default's value when left out). */
export const ServePolicyFile = Schema.Struct({
  permissionModes: Schema.optional(Schema.Array(PermissionModeName)),
  trustProject: Schema.optional(Schema.Boolean),
  hooks: Schema.optional(Schema.Boolean),
  settingsFiles: Schema.optional(Schema.Boolean),
  addDirs: Schema.optional(Schema.Boolean),
  mcp: Schema.optional(Schema.Boolean),
  network: Schema.optional(Schema.Boolean),
  env: Schema.optional(Schema.Array(Schema.String)),
  readOnlyPaths: Schema.optional(Schema.Array(Schema.String))
}).annotations({ parseOptions: { onExcessProperty: "error" } })

export const DEFAULT_POLICY: ServePolicy = {
  permissionModes: NARROW_MODES,
  trustProject: false,
  hooks: false,
  settingsFiles: false,
  addDirs: false,
  mcp: false,
  network: false,
  env: [],
  readOnlyPaths: []
}

/** The default, widened by a policy file and by `--allow` flags. */
export const policyOf = (
  file: typeof ServePolicyFile.Type | undefined,
  allow: ReadonlyArray<Allowance>,
  env: ReadonlyArray<string>
): ServePolicy => {
  const given = Object.fromEntries(Object.entries(file ?? {}).filter(([, value]) => value !== undefined)) as Partial<
    ServePolicy
  >
  const base: ServePolicy = { ...DEFAULT_POLICY, ...given }
  const modes = new Set([
    ...base.permissionModes,
    ...allow.filter((a) => a === "acceptEdits" || a === "auto" || a === "bypassPermissions")
  ])
  return {
    ...base,
    permissionModes: [...modes],
    trustProject: base.trustProject || allow.includes("trust-project"),
    hooks: base.hooks || allow.includes("hooks"),
    settingsFiles: base.settingsFiles || allow.includes("settings-files"),
    addDirs: base.addDirs || allow.includes("add-dirs"),
    mcp: base.mcp || allow.includes("mcp"),
    network: base.network || allow.includes("network"),
    env: [...new Set([...base.env, ...env])]
  }
}

// ---------------------------------------------------------------------------------------------
// The environment of a served session's processes (Bash, background shells, hooks, MCP servers):
// an allowlist over the server's own, never the whole of it. The server's tokens, keys and storage
// settings cannot be passed, even when named.
// ---------------------------------------------------------------------------------------------

/** Always passed when the server has them: where programs are, language, terminal, time zone. */
const BASE_NAMES = ["PATH", "LANG", "LANGUAGE", "TERM", "TZ"]
const BASE_PREFIXES = ["LC_"]

/** The server's own settings and credentials: refused even when named. */
const SERVER_ONLY = /^(TOOLGATE_|ANTHROPIC_|CLAUDE_|AWS_|GOOGLE_|AZURE_|OTEL_|PG|DATABASE_URL$)/

/** Why a name cannot be passed to sessions, or undefined when it can. */
export const refusedName = (name: string): string | undefined => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `${JSON.stringify(name)} is not a variable name`
  if (SERVER_ONLY.test(name)) {
    return `${name} belongs to the server (its tokens, keys and storage settings are never passed to sessions)`
  }
  return undefined
}

/**
 * The variables of `source` a session's processes get: PATH, LANG, LANGUAGE, LC_*, TERM, TZ and
 * the `extra` names; a value holding one of `secrets` is dropped.
 */
export const sessionEnvironment = (
  source: Readonly<Record<string, string | undefined>>,
  extra: ReadonlyArray<string>,
  secrets: ReadonlyArray<string>
): Record<string, string> => {
  const wanted = (name: string) =>
    (BASE_NAMES.includes(name) || BASE_PREFIXES.some((prefix) => name.startsWith(prefix)) || extra.includes(name)) &&
    refusedName(name) === undefined
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !wanted(name)) continue
    if (secrets.some((secret) => secret.length >= 8 && value.includes(secret))) continue
    env[name] = value
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin"
  env.SHELL = "/bin/bash"
  return env
}
