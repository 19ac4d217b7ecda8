/**
 * Critical paths (claude-code-spec §1.12): `rm`/`rmdir` of `/`, a direct child of `/`, the home
 * directory, a working directory or any of its parents, a bare glob directly under one of
 * those, or a glob/trailing slash right after a variable — and, stricter than the spec, any
 * operand only known at run time. Always a prompt; only a deny rule is stronger.
 */
import * as path from "node:path"
import type { Unit } from "./units.js"
import type { Dirs } from "./paths.js"
import { globBase, isInsideDir, resolvePathWord } from "./paths.js"
import { commandKey } from "./wrappers.js"

export interface CriticalContext {
  readonly home: string
  readonly cwd: string
  readonly workingDirs: ReadonlyArray<string>
}

/** A glob component with no literal name characters (`*`, `.*`, `?*`, `[a-z]*`). */
const BARE_GLOB = /^(?:[*?.]|\[[^\]]*\])+$/

const isProtectedDir = (dir: string, ctx: CriticalContext): boolean => {
  const normalized = path.resolve(dir)
  if (normalized === path.sep) return true
  if (path.dirname(normalized) === path.sep) return true
  if (normalized === path.resolve(ctx.home)) return true
  // The working directory, an additional directory, or any parent of one of them.
  return [ctx.cwd, ...ctx.workingDirs].some((d) => isInsideDir(path.resolve(d), normalized))
}

/** Why removing this operand is critical, or undefined. */
const criticalOperand = (unit: Unit, index: number, dirs: Dirs, ctx: CriticalContext): string | undefined => {
  const word = unit.words[index]!
  if (typeof word.value !== "string") {
    if (word.procSub) return undefined
    // Beyond the spec's "glob or trailing slash after a variable": any unknown operand could be `/`.
    return word.globAfterExpansion ? `a glob or trailing slash right after a variable (${word.raw})` : `${word.raw}, a path only known at run time`
  }
  const resolved = resolvePathWord(word, dirs, ctx.home)
  if (!resolved.ok) {
    return word.value.startsWith("~") || dirs.includes(null) ? `${word.value} (${resolved.reason})` : undefined
  }
  for (const abs of resolved.paths) {
    const trimmed = abs.length > 1 ? abs.replace(/\/+$/, "") || "/" : abs
    if (word.unquotedGlob) {
      const split = globBase(trimmed)
      if (split !== undefined) {
        const direct = !split.globbed.includes(path.sep)
        if (direct && (split.base === path.sep || BARE_GLOB.test(split.globbed)) && isProtectedDir(split.base, ctx)) {
          return `${word.raw} (a glob directly under ${split.base})`
        }
        continue
      }
    }
    if (isProtectedDir(trimmed, ctx)) return `${word.raw} (${trimmed})`
  }
  return undefined
}

/** A critical-path finding for an rm/rmdir unit, or undefined. */
export const criticalRemoval = (unit: Unit, dirs: Dirs, ctx: CriticalContext): string | undefined => {
  const argv0 = unit.argv[0]
  if (typeof argv0 !== "string") return undefined
  const key = commandKey(argv0)
  if (key !== "rm" && key !== "rmdir") return undefined
  let options = true
  for (let i = 1; i < unit.words.length; i++) {
    const word = unit.words[i]!
    if (options && typeof word.value === "string") {
      if (word.value === "--") {
        options = false
        continue
      }
      if (word.value.startsWith("-") && word.value.length > 1) continue
    }
    const found = criticalOperand(unit, i, dirs, ctx)
    if (found !== undefined) return found
  }
  return undefined
}

