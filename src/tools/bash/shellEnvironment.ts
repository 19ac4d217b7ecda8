/**
 * The environment a command runs with: the runtime's own, minus the variables that would make
 * bash run code or change behaviour before the checked string (exported functions can shadow any
 * command name; SHELLOPTS/BASHOPTS switch options on; BASH_ENV/ENV name startup files).
 */
const DROPPED = new Set(["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"])

export const shellEnvironment = (base: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || DROPPED.has(name) || name.startsWith("BASH_FUNC_")) continue
    env[name] = value
  }
  return env
}
