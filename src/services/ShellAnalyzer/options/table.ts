/**
 * Option tables written in a compact notation, built once when a module defines them.
 *
 * A table is a list of tokens separated by blanks. Each token is one option: its spellings joined
 * by `/` (`-o/--output`), then how it takes an argument and what it does:
 * `=c` a required argument, `[=c]` an optional (attached) one, `!c` a switch with an effect,
 * nothing a harmless switch; a trailing `^` marks an option whose argument is the pattern
 * (grep -e). `c` is one of: `v` harmless value, `r` a file it reads, `R` a file of file names,
 * `w` writes, `x` runs a program, `n` network, `c` configuration, `u` otherwise unsafe.
 * The token `-#` says that `-NUM` is an option (head -5).
 */
import type { OptionArity, OptionEffect, OptionSpec, OptionStyle, OptionTable } from "./types.js"

const EFFECT_CODES: Readonly<Record<string, OptionEffect>> = {
  v: "value",
  r: "read",
  R: "readList",
  w: "write",
  x: "exec",
  n: "network",
  c: "config",
  u: "unsafe"
}

const TOKEN = /^(-[^=[!^]+?)(?:(=)([vrRwxncu])|(\[=)([vrRwxncu])\]|(!)([vrRwxncu]))?(\^)?$/

const parseToken = (token: string): OptionSpec => {
  const m = TOKEN.exec(token)
  if (m === null) throw new Error(`option table: cannot read the token ${JSON.stringify(token)}`)
  const names = m[1]!.split("/")
  for (const name of names) {
    if (!/^(?:-[^-]|--[^-=\s][^=\s]*)$/.test(name)) {
      throw new Error(`option table: bad option name ${JSON.stringify(name)} in ${JSON.stringify(token)}`)
    }
  }
  let arity: OptionArity = "none"
  let effect: OptionEffect = "flag"
  if (m[2] !== undefined) {
    arity = "required"
    effect = EFFECT_CODES[m[3]!]!
  } else if (m[4] !== undefined) {
    arity = "optional"
    effect = EFFECT_CODES[m[5]!]!
  } else if (m[6] !== undefined) {
    effect = EFFECT_CODES[m[7]!]!
  }
  const id = names.find((n) => n.startsWith("--")) ?? names[0]!
  return { id, names, arity, effect, pattern: m[8] !== undefined }
}

export interface TableOptions {
  readonly style?: OptionStyle
  readonly stopAtOperand?: boolean
}

/** Builds a table from its notation (throws on a mistake in the notation: tables are code). */
export const optionTable = (notation: string, options: TableOptions = {}): OptionTable => {
  const specs: Array<OptionSpec> = []
  const short = new Map<string, OptionSpec>()
  const long = new Map<string, OptionSpec>()
  let numeric = false
  for (const token of notation.split(/\s+/).filter((t) => t.length > 0)) {
    if (token === "-#") {
      numeric = true
      continue
    }
    const spec = parseToken(token)
    specs.push(spec)
    for (const name of spec.names) {
      const map = name.startsWith("--") ? long : short
      const key = name.startsWith("--") ? name.slice(2) : name.slice(1)
      if (map.has(key)) throw new Error(`option table: ${name} is listed twice`)
      map.set(key, spec)
    }
  }
  return {
    style: options.style ?? "gnu",
    specs,
    short,
    long,
    numeric,
    stopAtOperand: options.stopAtOperand ?? false,
    effects: new Set(specs.map((s) => s.effect)),
    risky: specs.some((s) => s.effect !== "flag" && s.effect !== "value")
  }
}

/** Merges tables (a subcommand's options with shared ones); later tables may not redefine a name. */
export const mergeTables = (style: OptionStyle, ...tables: ReadonlyArray<OptionTable>): OptionTable => {
  const specs = tables.flatMap((t) => t.specs)
  const short = new Map<string, OptionSpec>()
  const long = new Map<string, OptionSpec>()
  for (const spec of specs) {
    for (const name of spec.names) {
      const map = name.startsWith("--") ? long : short
      const key = name.startsWith("--") ? name.slice(2) : name.slice(1)
      if (map.has(key) && map.get(key) !== spec) throw new Error(`option table: ${name} is listed twice`)
      map.set(key, spec)
    }
  }
  return {
    style,
    specs,
    short,
    long,
    numeric: tables.some((t) => t.numeric),
    stopAtOperand: tables.some((t) => t.stopAtOperand),
    effects: new Set(specs.map((s) => s.effect)),
    risky: specs.some((s) => s.effect !== "flag" && s.effect !== "value")
  }
}

export type LongMatch =
  | { readonly kind: "exact" | "prefix"; readonly spec: OptionSpec; readonly negated: boolean }
  | { readonly kind: "ambiguous"; readonly candidates: ReadonlyArray<OptionSpec> }
  | { readonly kind: "unknown" }

const prefixIndexes = new WeakMap<OptionTable, Map<string, ReadonlyArray<OptionSpec>>>()

/** Every spec whose long name starts with a prefix (built once per table, on first use). */
const specsWithPrefix = (table: OptionTable, prefix: string): ReadonlyArray<OptionSpec> => {
  let index = prefixIndexes.get(table)
  if (index === undefined) {
    const built = new Map<string, Array<OptionSpec>>()
    for (const [name, spec] of table.long) {
      for (let n = 1; n <= name.length; n++) {
        const key = name.slice(0, n)
        const list = built.get(key)
        if (list === undefined) built.set(key, [spec])
        else if (!list.includes(spec)) list.push(spec)
      }
    }
    index = built
    prefixIndexes.set(table, index)
  }
  return index.get(prefix) ?? []
}

/**
 * Resolves a long option name (without dashes and without `=value`) the way the program does:
 * an exact name wins; otherwise a prefix of exactly one option (spellings of one option count
 * once); for git, `no-` negations and their prefixes too.
 */
export const resolveLong = (table: OptionTable, name: string): LongMatch => {
  const exact = table.long.get(name)
  if (exact !== undefined) return { kind: "exact", spec: exact, negated: false }
  if (table.style === "git") {
    if (name.startsWith("no-")) {
      const positive = table.long.get(name.slice(3))
      if (positive !== undefined) return { kind: "exact", spec: positive, negated: true }
    } else {
      const unNegated = table.long.get(`no-${name}`)
      if (unNegated !== undefined) return { kind: "exact", spec: unNegated, negated: true }
    }
  }
  if (table.style === "exact" || name.length === 0) return { kind: "unknown" }
  const candidates = new Map<OptionSpec, boolean>()
  for (const spec of specsWithPrefix(table, name)) candidates.set(spec, false)
  if (table.style === "git") {
    // `--n`, `--no`, `--no-` could be the negation of any option; `--no-fo` of any option starting with `fo`.
    if ("no-".startsWith(name)) {
      for (const spec of table.specs) if (spec.names.some((n) => n.startsWith("--"))) candidates.set(spec, true)
    }
    if (name.startsWith("no-")) {
      for (const spec of specsWithPrefix(table, name.slice(3))) if (!candidates.has(spec)) candidates.set(spec, true)
    }
  }
  if (candidates.size === 0) return { kind: "unknown" }
  if (candidates.size > 1) return { kind: "ambiguous", candidates: [...candidates.keys()] }
  const [spec, negated] = [...candidates.entries()][0]!
  return { kind: "prefix", spec, negated }
}
