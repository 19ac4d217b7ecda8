/**
 * Critical paths: `rm`/`rmdir` of `/`, a direct child of `/`, the home
 * directory, a working directory or any of its parents, a bare glob directly under one of
 * those, or a glob/trailing slash right after a variable — and, stricter than Claude Code, any
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

/** How removing `dir` is critical: the root, home, or a direct child of the root (a system directory), a working directory or a parent of one. */
const protectedKind = (dir: string, ctx: CriticalContext): "system" | "workspace" | undefined => {
  const normalized = path.resolve(dir)
  if (normalized === path.sep || normalized === path.resolve(ctx.home)) return "system"
  // The working directory, an additional directory, or any parent of one of them.
  if ([ctx.cwd, ...ctx.workingDirs].some((d) => isInsideDir(path.resolve(d), normalized))) return "workspace"
  if (path.dirname(normalized) === path.sep) return "system"
  return undefined
}

/** A removal that always asks: what it removes (as Claude Code names it) and why. */
export interface CriticalRemoval {
  /** The operand as shown: absolute paths as written, relative ones resolved, `~` expanded. */
  readonly path: string
  /** A working directory or a parent of one (else a system directory); undefined: only known at run time. */
  readonly kind: "system" | "workspace" | "dynamic"
  /** For explanations. */
  readonly detail: string
}

const shown = (word: string, resolved: string, home: string): string =>
  word === "~" || word.startsWith("~/") ? path.join(home, word.slice(1)) : path.isAbsolute(word) ? word : resolved

/** Why removing this operand is critical, or undefined. */
const criticalOperand = (unit: Unit, index: number, dirs: Dirs, ctx: CriticalContext): CriticalRemoval | undefined => {
  const word = unit.words[index]!
  if (typeof word.value !== "string") {
    if (word.procSub) return undefined
    // Beyond Claude Code's "glob or trailing slash after a variable": any unknown operand could be `/`.
    const detail = word.globAfterExpansion
      ? `a glob or trailing slash right after a variable (${word.raw})`
      : `${word.raw}, a path only known at run time`
    return { path: word.raw, kind: "dynamic", detail }
  }
  const resolved = resolvePathWord(word, dirs, ctx.home)
  if (!resolved.ok) {
    // A path that cannot be resolved now (after a cd or a change of the tree, /proc, ~user) could be anything.
    return word.value !== ""
      ? { path: word.value, kind: "dynamic", detail: `${word.value} (${resolved.reason})` }
      : undefined
  }
  for (const abs of resolved.paths) {
    const trimmed = abs.length > 1 ? abs.replace(/\/+$/, "") || "/" : abs
    if (word.unquotedGlob) {
      const split = globBase(trimmed)
      if (split !== undefined) {
        const direct = !split.globbed.includes(path.sep)
        const kind = protectedKind(split.base, ctx)
        if (direct && (split.base === path.sep || BARE_GLOB.test(split.globbed)) && kind !== undefined) {
          return { path: trimmed, kind, detail: `${word.raw} (a glob directly under ${split.base})` }
        }
        continue
      }
    }
    const kind = protectedKind(trimmed, ctx)
    if (kind !== undefined) return { path: shown(word.value, abs, ctx.home), kind, detail: `${word.raw} (${trimmed})` }
  }
  return undefined
}

/** A critical-path finding for an rm/rmdir unit, or undefined. */
export const criticalRemoval = (unit: Unit, dirs: Dirs, ctx: CriticalContext): CriticalRemoval | undefined => {
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
