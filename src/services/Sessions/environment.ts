/**
 * The environment of a served session's processes (Bash, background shells, hooks, MCP servers):
 * an allowlist over the server's own, never the whole of it. The server's tokens, keys and storage
 * settings cannot be passed, even when named.
 */

/** Always passed when the server has them: where programs are, language, terminal, time zone. */
const BASE_NAMES = ["PATH", "LANG", "LANGUAGE", "TERM", "TZ"]
const BASE_PREFIXES = ["LC_"]

/** The server's own settings and credentials: refused even when named. */
const SERVER_ONLY = /^(TOOLGATE_|ANTHROPIC_|CLAUDE_|AWS_|GOOGLE_|AZURE_|OTEL_|PG|DATABASE_URL$)/

/** Why a name cannot be passed to sessions, or undefined when it can. */
export const refusedName = (name: string): string | undefined => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `${JSON.stringify(name)} is not a variable name`
  if (SERVER_ONLY.test(name)) return `${name} belongs to the server (its tokens, keys and storage settings are never passed to sessions)`
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
    (BASE_NAMES.includes(name) || BASE_PREFIXES.some((prefix) => name.startsWith(prefix)) || extra.includes(name)) && refusedName(name) === undefined
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
