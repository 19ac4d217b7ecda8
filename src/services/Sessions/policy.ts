/**
 * A create request against the server's policy (src/ServePolicy.ts): the folders it names must be
 * real, inside the workspace root and apart from the server's own files; what it asks for must be
 * allowed. The first refusal wins.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { ServePolicy } from "../../ServePolicy.js"
import { Forbidden, InvalidRequest, type CreateSession } from "./model.js"

const refused = (what: string, allowance: string) =>
  new Forbidden({
    message: `${what} is not allowed by this server (toolgate serve --allow ${allowance}, or its policy file)`
  })

export const isWithin = (root: string, p: string): boolean => {
  const rel = path.relative(root, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export interface PlaceRules {
  /** Real path; undefined: any folder (extra directories are then refused). */
  readonly workspaceRoot: string | undefined
  /** The server's own files and folders (state folder, database, token and policy files): never part of a session. */
  readonly serverPaths: ReadonlyArray<string>
}

/** A folder a session may work in: real, inside the workspace root, apart from the server's files. */
export const checkFolder = (label: string, dir: string, rules: PlaceRules): string | InvalidRequest | Forbidden => {
  if (!path.isAbsolute(dir)) return new InvalidRequest({ message: `${label} must be an absolute path: ${dir}` })
  let real: string
  try {
    real = fs.realpathSync(dir)
  } catch {
    return new InvalidRequest({ message: `${label} ${dir}: no such directory` })
  }
  if (!fs.statSync(real).isDirectory()) return new InvalidRequest({ message: `${label} ${dir}: not a directory` })
  if (rules.workspaceRoot !== undefined && !isWithin(rules.workspaceRoot, real)) {
    return new Forbidden({ message: `${label} ${dir} is outside the server's workspace root ${rules.workspaceRoot}` })
  }
  const clash = rules.serverPaths.find((p) => isWithin(real, p) || isWithin(p, real))
  if (clash !== undefined) {
    return new Forbidden({ message: `${label} ${dir} holds or lies inside the server's own files (${clash})` })
  }
  return real
}

/** Keys a session's settings may hold; anything else (a status line command, `env`, a sandbox block…) is refused. */
const SETTINGS_KEYS = new Set([
  "$schema",
  "permissions",
  "hooks",
  "disableAllHooks",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
  "model"
])
const PERMISSION_KEYS = new Set([
  "allow",
  "deny",
  "ask",
  "defaultMode",
  "additionalDirectories",
  "disableBypassPermissionsMode"
])

const checkSettingsObject = (
  settings: Readonly<Record<string, unknown>>,
  where: string,
  policy: ServePolicy,
  rules: PlaceRules
): InvalidRequest | Forbidden | undefined => {
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_KEYS.has(key)) {
      return new Forbidden({ message: `${where}: the settings key "${key}" is not accepted by this server` })
    }
  }
  if (settings.hooks !== undefined && !policy.hooks) return refused(`${where}: "hooks"`, "hooks")
  if ((settings.enableAllProjectMcpServers === true || settings.enabledMcpjsonServers !== undefined) && !policy.mcp) {
    return refused(`${where}: enabling MCP servers`, "mcp")
  }
  const permissions = settings.permissions
  if (permissions === undefined) return undefined
  if (permissions === null || typeof permissions !== "object" || Array.isArray(permissions)) {
    return new InvalidRequest({ message: `${where}: "permissions" must be an object` })
  }
  const p = permissions as Record<string, unknown>
  for (const key of Object.keys(p)) {
    if (!PERMISSION_KEYS.has(key)) {
      return new Forbidden({
        message: `${where}: the settings key "permissions.${key}" is not accepted by this server`
      })
    }
  }
  if (p.defaultMode !== undefined && !(policy.permissionModes as ReadonlyArray<unknown>).includes(p.defaultMode)) {
    return refused(`${where}: permissions.defaultMode ${JSON.stringify(p.defaultMode)}`, String(p.defaultMode))
  }
  if (p.additionalDirectories !== undefined) {
    if (!Array.isArray(p.additionalDirectories)) {
      return new InvalidRequest({ message: `${where}: permissions.additionalDirectories must be an array` })
    }
    for (const dir of p.additionalDirectories) {
      const checked = checkExtraDirectory(`${where}: permissions.additionalDirectories`, String(dir), policy, rules)
      if (typeof checked !== "string") return checked
    }
  }
  return undefined
}

const checkExtraDirectory = (
  label: string,
  dir: string,
  policy: ServePolicy,
  rules: PlaceRules
): string | InvalidRequest | Forbidden => {
  if (!policy.addDirs) return refused(`${label} (${dir})`, "add-dirs")
  if (rules.workspaceRoot === undefined) {
    return new Forbidden({
      message: `${label} (${dir}): extra directories need a workspace root (toolgate serve --workspace-root DIR)`
    })
  }
  return checkFolder(label, dir, rules)
}

export interface CheckedCreate {
  readonly cwd: string
  readonly addDirs: ReadonlyArray<string>
  /** A settings file, as its real path. */
  readonly settingsFile?: string
}

/** Everything a create request asks for, against the policy; the first refusal wins. */
export const checkCreate = (
  body: CreateSession,
  policy: ServePolicy,
  rules: PlaceRules
): CheckedCreate | InvalidRequest | Forbidden => {
  const cwd = checkFolder("cwd", body.cwd, rules)
  if (typeof cwd !== "string") return cwd
  if (body.permissionMode !== undefined && !policy.permissionModes.includes(body.permissionMode)) {
    return refused(`permissionMode "${body.permissionMode}"`, body.permissionMode)
  }
  if (body.trustProject === true && !policy.trustProject) return refused("trustProject", "trust-project")
  const addDirs: Array<string> = []
  for (const dir of body.addDirs ?? []) {
    const checked = checkExtraDirectory("addDirs", dir, policy, rules)
    if (typeof checked !== "string") return checked
    addDirs.push(checked)
  }
  const settings = body.settings
  if (settings === undefined) return { cwd, addDirs }
  if (typeof settings !== "string") {
    const problem = checkSettingsObject(settings, "settings", policy, rules)
    return problem ?? { cwd, addDirs }
  }
  if (!policy.settingsFiles) return refused("settings as a file on the server", "settings-files")
  if (rules.workspaceRoot === undefined) {
    return new Forbidden({ message: "settings files need a workspace root (toolgate serve --workspace-root DIR)" })
  }
  let file: string
  try {
    file = fs.realpathSync(path.resolve(cwd, settings))
  } catch {
    return new InvalidRequest({ message: `settings ${settings}: no such file` })
  }
  if (!isWithin(rules.workspaceRoot, file)) {
    return new Forbidden({
      message: `settings ${settings} is outside the server's workspace root ${rules.workspaceRoot}`
    })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"))
  } catch (e) {
    return new InvalidRequest({ message: `settings ${settings}: ${(e as Error).message}` })
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return new InvalidRequest({ message: `settings ${settings}: not a JSON object` })
  }
  const problem = checkSettingsObject(parsed as Record<string, unknown>, `settings ${settings}`, policy, rules)
  return problem ?? { cwd, addDirs, settingsFile: file }
}
