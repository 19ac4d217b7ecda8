/**
 * The argv front end: finds the command, checks every flag and argument against its spec, and
 * hands @effect/cli a canonical argv (flags before arguments, one value per flag, long
 * spellings). Mistakes become one usage error that names the offending token; `--help` and
 * `--version` are answered here.
 *
 * Claude Code's habits work: camelCase spellings (`--allowedTools`), variadic rule lists
 * (`--allowedTools Read Bash`, also comma lists), `-r [session]`, and `toolgate -p …` for
 * `toolgate run -p …`.
 */
import * as fs from "node:fs"
import { closest } from "../internal/closest.js"
import { type FlagMeta, spellingsOf } from "./flags.js"
import { looksLikeRule } from "./options.js"
import { argsUsage, commandName, type CommandSpec } from "./spec.js"

export type FrontEnd =
  | { readonly _tag: "Run"; readonly argv: ReadonlyArray<string>; readonly spec: CommandSpec }
  /** Help for a command, or for toolgate itself (`spec` undefined). */
  | { readonly _tag: "Help"; readonly spec: CommandSpec | undefined }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Usage"; readonly message: string }

const HELP = new Set(["-h", "--help"])
const VERSION = new Set(["-v", "--version"])

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()

const variadicAccepts = (meta: FlagMeta, token: string): boolean => {
  if (token.startsWith("-")) return false
  switch (meta.variadic) {
    case "rules":
      return looksLikeRule(token)
    case "json":
      return token.trimStart().startsWith("{") || token.endsWith(".json")
    case "paths":
      try {
        return fs.statSync(token).isDirectory()
      } catch {
        return false
      }
    default:
      return false
  }
}

const valueProblem = (meta: FlagMeta, value: string): string | undefined => {
  switch (meta.valueKind) {
    case "integer":
      return /^-?\d+$/.test(value.trim())
        ? undefined
        : `invalid value '${value}' for --${meta.name}: expected a whole number`
    case "float":
      return value.trim() !== "" && Number.isFinite(Number(value))
        ? undefined
        : `invalid value '${value}' for --${meta.name}: expected a number`
    case "choice": {
      const accepted = [...(meta.choices ?? []), ...(meta.hiddenChoices ?? [])]
      if (accepted.includes(value)) return undefined
      const offered = meta.choices ?? []
      const suggestion = closest(value, accepted)
      const list = offered.length <= 1 ? offered.join("") : `${offered.slice(0, -1).join(", ")} or ${offered.at(-1)}`
      return `invalid value '${value}' for --${meta.name}: choose ${list}${
        suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`
      }`
    }
    default:
      return undefined
  }
}

/** The command a path of words names, and how many words it used. */
const findCommand = (
  args: ReadonlyArray<string>,
  specs: ReadonlyArray<CommandSpec>
): { spec: CommandSpec | undefined; used: number } => {
  let spec: CommandSpec | undefined
  let used = 0
  for (;;) {
    const next = args[used]
    const deeper = next === undefined
      ? undefined
      : specs.find((s) => s.path.length === used + 1 && s.path.every((w, i) => w === (i < used ? spec!.path[i] : next)))
    if (deeper === undefined) return { spec, used }
    spec = deeper
    used++
  }
}

const subcommandsOf = (spec: CommandSpec | undefined, specs: ReadonlyArray<CommandSpec>): ReadonlyArray<string> => {
  const depth = spec?.path.length ?? 0
  return specs.filter((s) =>
    s.path.length === depth + 1 && (spec === undefined || spec.path.every((w, i) => s.path[i] === w))
  ).map((s) => s.path[depth]!)
}

const unknownCommand = (word: string, parent: CommandSpec | undefined, specs: ReadonlyArray<CommandSpec>): FrontEnd => {
  const names = subcommandsOf(parent, specs)
  const suggestion = closest(word, names)
  const where = parent === undefined ? "" : ` for '${commandName(parent)}'`
  const hint = suggestion === undefined ? `; commands: ${names.join(", ")}` : ` (did you mean '${suggestion}'?)`
  const prompt = parent === undefined ? `; to give the agent a prompt: toolgate run ${JSON.stringify(word)}` : ""
  return { _tag: "Usage", message: `unknown command '${word}'${where}${hint}${prompt}` }
}

export const frontEnd = (args: ReadonlyArray<string>, specs: ReadonlyArray<CommandSpec>): FrontEnd => {
  const dashDash = args.indexOf("--")
  const flagsPart = dashDash === -1 ? args : args.slice(0, dashDash)
  if (args[0] === "help") {
    const { spec, used } = findCommand(args.slice(1), specs)
    if (args.length > used + 1) return unknownCommand(args[used + 1]!, spec, specs)
    return { _tag: "Help", spec }
  }
  let { spec, used } = findCommand(args, specs)
  if (flagsPart.some((t) => HELP.has(t))) return { _tag: "Help", spec }
  if (flagsPart.some((t) => VERSION.has(t))) return { _tag: "Version" }
  if (spec === undefined) {
    if (args.length === 0) return { _tag: "Help", spec: undefined }
    if (!args[0]!.startsWith("-")) return unknownCommand(args[0]!, undefined, specs)
    // `toolgate -p "…"`, as `claude -p "…"`
    spec = specs.find((s) => s.path.length === 1 && s.path[0] === "run")!
    used = 0
  }
  if (spec.group === true) {
    const next = args[used]
    if (next === undefined) return { _tag: "Help", spec }
    if (!next.startsWith("-")) return unknownCommand(next, spec, specs)
    return {
      _tag: "Usage",
      message: `'${commandName(spec)}' needs a command: ${subcommandsOf(spec, specs).join(", ")}`
    }
  }

  const name = commandName(spec)
  const bySpelling = new Map<string, FlagMeta>()
  for (const meta of spec.flags) for (const s of spellingsOf(meta)) bySpelling.set(s, meta)
  const elsewhere = new Set(specs.flatMap((s) => s.flags.flatMap(spellingsOf)))
  const lookup = (spelling: string): FlagMeta | undefined =>
    bySpelling.get(spelling) ??
      (spelling.startsWith("--") ? bySpelling.get(`--${kebab(spelling.slice(2))}`) : undefined)

  const flags: Array<string> = []
  const positionals: Array<string> = []
  const rest = args.slice(used)
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!
    if (token === "--") {
      positionals.push(...rest.slice(i + 1))
      break
    }
    if (!token.startsWith("-") || token === "-") {
      positionals.push(token)
      continue
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1
    const spelling = eq === -1 ? token : token.slice(0, eq)
    const meta = lookup(spelling)
    if (meta === undefined) {
      if (elsewhere.has(spelling)) {
        return {
          _tag: "Usage",
          message: `option '${spelling}' does not apply to '${name}' (${name} --help lists its options)`
        }
      }
      const suggestion = closest(spelling, [...bySpelling.keys()].filter((s) => s.startsWith("--")))
      return {
        _tag: "Usage",
        message: `unknown option '${spelling}' for '${name}'${
          suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`
        }; ${name} --help lists its options`
      }
    }
    const canonical = `--${meta.name}`
    if (!meta.takesValue) {
      if (eq !== -1) {
        return { _tag: "Usage", message: `option '${spelling}' takes no value (got '${token.slice(eq + 1)}')` }
      }
      flags.push(canonical)
      continue
    }
    let value: string
    if (eq !== -1) value = token.slice(eq + 1)
    else if (meta.optionalValue !== undefined) {
      const next = rest[i + 1]
      if (next !== undefined && !next.startsWith("-") && meta.optionalValue(next)) value = rest[++i]!
      else value = ""
    } else {
      const next = rest[i + 1]
      if (next === undefined || (next.startsWith("-") && next !== "-" && lookup(next.split("=")[0]!) !== undefined)) {
        return { _tag: "Usage", message: `option '${spelling} ${meta.placeholder}' needs a value` }
      }
      value = rest[++i]!
    }
    const problem = valueProblem(meta, value)
    if (problem !== undefined) return { _tag: "Usage", message: problem }
    flags.push(canonical, value)
    if (meta.variadic !== undefined) {
      while (i + 1 < rest.length && variadicAccepts(meta, rest[i + 1]!)) flags.push(canonical, rest[++i]!)
    }
  }

  const required = spec.args.filter((a) => a.optional !== true).length
  if (positionals.length > spec.args.length) {
    const extra = positionals[spec.args.length]!
    const takes = spec.args.length === 0 ? "it takes no arguments" : `it takes ${argsUsage(spec.args)}`
    return { _tag: "Usage", message: `unexpected argument '${extra}' for '${name}' (${takes})` }
  }
  if (positionals.length < required) {
    return {
      _tag: "Usage",
      message: `missing argument <${spec.args[positionals.length]!.name}> for '${name}' (usage: ${name} ${
        argsUsage(spec.args)
      })`
    }
  }
  // @effect/cli reads a positional that starts with "-" as an option: such values come last, after the others.
  return { _tag: "Run", argv: [...spec.path, ...flags, ...positionals], spec }
}
