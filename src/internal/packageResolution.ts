import * as path from "node:path"

/**
 * Places to resolve the packages toolgate loads late from (the shell grammar, the sandbox
 * runtime). The CLI is an esbuild CJS bundle in `dist/` (so `__filename` is the bundle and
 * node_modules sits beside it); the library is ESM (this module's own URL, inside the installed
 * package); the entry script and the working directory come last.
 */
export const resolutionBases = (): ReadonlyArray<string> => {
  const bases: Array<string> = []
  if (typeof __filename === "string" && __filename.length > 0) bases.push(__filename)
  // Empty in the CommonJS bundle, where `__filename` above serves.
  const moduleUrl: string | undefined = import.meta.url
  if (typeof moduleUrl === "string" && moduleUrl.startsWith("file:")) bases.push(moduleUrl)
  const entry = process.argv[1]
  if (typeof entry === "string" && entry.length > 0) bases.push(path.resolve(entry))
  bases.push(path.join(process.cwd(), "noop.js"))
  return bases
}
