/**
 * @anthropic-ai/sandbox-runtime, found and loaded only when a command needs it: its seccomp helper
 * (a static binary in the package) for both profiles, and its SandboxManager for the settings
 * profile. The CLI is a CommonJS bundle with the package left in node_modules, so it is resolved at
 * run time from the places the bundle, the library and the entry script live.
 */
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as path from "node:path"
import { resolutionBases } from "../../internal/packageResolution.js"

const PACKAGE = "@anthropic-ai/sandbox-runtime"

const resolvePackage = (): { readonly dir: string; readonly req: NodeJS.Require } | undefined => {
  for (const base of resolutionBases()) {
    try {
      const req = createRequire(base)
      return { dir: path.dirname(req.resolve(`${PACKAGE}/package.json`)), req }
    } catch {
      // next place
    }
  }
  return undefined
}

const ARCHITECTURES: Readonly<Record<string, string>> = { x64: "x64", arm64: "arm64" }

/** The package's `apply-seccomp` for this machine, when it has one. */
export const findSeccompHelper = (): string | undefined => {
  const arch = ARCHITECTURES[process.arch]
  const found = resolvePackage()
  if (arch === undefined || found === undefined) return undefined
  const helper = path.join(found.dir, "vendor", "seccomp", arch, "apply-seccomp")
  try {
    fs.accessSync(helper, fs.constants.X_OK)
    return helper
  } catch {
    return undefined
  }
}

/** The package's version, for `toolgate doctor`. */
export const runtimePackageVersion = (): string | undefined => {
  const found = resolvePackage()
  if (found === undefined) return undefined
  try {
    return (JSON.parse(fs.readFileSync(path.join(found.dir, "package.json"), "utf8")) as { version?: string }).version
  } catch {
    return undefined
  }
}

/** The package's module (its SandboxManager); throws when it is not installed. */
export const loadRuntimePackage = (): typeof import("@anthropic-ai/sandbox-runtime") => {
  const found = resolvePackage()
  if (found === undefined) throw new Error(`${PACKAGE} is not installed`)
  return found.req(PACKAGE) as typeof import("@anthropic-ai/sandbox-runtime")
}
