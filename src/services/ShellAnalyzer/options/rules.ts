/**
 * Deny and ask rules judged on what a command means rather than how it is spelled: the rule and
 * the command are both read with the program's option table, so `Bash(rm -rf:*)` matches
 * `rm -Rf`, `rm -r -f`, `rm --rec --forc` and `rm x -rf`; git and npm subcommands are resolved as
 * the programs resolve them (npm's abbreviations and aliases; a git subcommand that is not one of
 * git's own may be an alias or an autocorrection: "possible").
 */
import type { Word } from "../types.js"
import { literalFacts, type WordFacts } from "../words.js"
import { commandKey } from "../wrappers.js"
import { parseArgs } from "./parse.js"
import { optionTable } from "./table.js"
import * as G from "./tables/git.js"
import { NPM_ALIASES, NPM_COMMANDS, PNPM_ALIASES } from "./tables/npm.js"
import * as TT from "./tables/tools.js"
import { own, type OptionSpec, type OptionTable, type OptionUse } from "./types.js"

export type RuleMatch = "match" | "possible" | "none"

interface RuleCommand {
  readonly table?: OptionTable
  /** Options before the subcommand. */
  readonly global?: OptionTable
  /** The subcommand as the program resolves it; "possible" when it may stand for another one. */
  readonly subcommand?: (name: string) => string | "possible"
  readonly subTable?: (sub: string) => OptionTable | undefined
}

/** No options known: every option is skipped as a switch. */
const NONE = optionTable("")

const GIT_SUB_TABLES: Readonly<Record<string, OptionTable>> = {
  push: G.push,
  reset: G.reset,
  clean: G.clean,
  checkout: G.checkout,
  commit: G.commit,
  rebase: G.rebase,
  restore: G.restore,
  switch: G.switchTable,
  merge: G.merge,
  pull: G.pull,
  fetch: G.fetch,
  add: G.add,
  rm: G.rm,
  stash: G.stashPush,
  branch: G.branch,
  tag: G.tag,
  config: G.config,
  status: G.status,
  grep: G.grep,
  log: G.logFamily,
  show: G.logFamily,
  diff: G.diff
}

const gitSubcommand = (name: string): string | "possible" => (G.BUILTIN_COMMANDS.has(name) ? name : "possible")

/** npm's lookup (lib/utils/cmd-list.js): exact command, alias, then a unique prefix of both, aliases followed. */
const npmSubcommand = (raw: string): string => {
  const name = /[A-Z]/.test(raw) ? raw.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`) : raw
  if (NPM_COMMANDS.has(name)) return name
  const follow = (n: string): string => {
    let current = n
    for (let i = 0; i < 5 && own(NPM_ALIASES, current) !== undefined; i++) current = own(NPM_ALIASES, current)!
    return current
  }
  if (own(NPM_ALIASES, name) !== undefined) return follow(name)
  const candidates = [...NPM_COMMANDS, ...Object.keys(NPM_ALIASES)].filter((c) => c.startsWith(name))
  return candidates.length === 1 ? follow(candidates[0]!) : name
}

const pnpmSubcommand = (name: string): string => own(PNPM_ALIASES, name) ?? name

const RULE_COMMANDS: Readonly<Record<string, RuleCommand>> = {
  rm: { table: TT.rm },
  chmod: { table: TT.chmod },
  chown: { table: TT.chown },
  chgrp: { table: TT.chgrp },
  cp: { table: TT.cp },
  mv: { table: TT.mv },
  mkdir: { table: TT.mkdir },
  ln: { table: TT.ln },
  touch: { table: TT.touch },
  curl: { table: TT.curl },
  wget: { table: TT.wget },
  make: { table: TT.make },
  tar: { table: TT.tar },
  git: { global: G.global, subcommand: gitSubcommand, subTable: (sub) => own(GIT_SUB_TABLES, sub) },
  npm: { subcommand: npmSubcommand },
  pnpm: { subcommand: pnpmSubcommand },
  yarn: { subcommand: (name) => name }
}

interface Head {
  /** The subcommand, resolved; "possible" when it may be another. */
  readonly sub?: string
  /** Where its own options start. */
  readonly start: number
  readonly globalUses: ReadonlyArray<OptionUse>
  readonly dynamic: boolean
}

interface Shape {
  readonly sub?: string
  readonly uses: ReadonlyArray<OptionUse>
  readonly ambiguous: ReadonlyArray<ReadonlyArray<OptionSpec>>
  readonly operands: ReadonlyArray<WordFacts>
  readonly dynamic: boolean
  readonly problem?: string
}

/** The program's options before its subcommand, and the subcommand. */
const headOf = (command: RuleCommand, words: ReadonlyArray<WordFacts>): Head => {
  let start = 1
  const globalUses: Array<OptionUse> = []
  let dynamic = false
  if (command.global !== undefined) {
    const global = parseArgs(command.global, words, 1)
    globalUses.push(...global.uses)
    dynamic = global.dynamic
    const first = global.operands[0]
    start = first === undefined ? words.length : words.indexOf(first)
  }
  let sub: string | undefined
  if (command.subcommand !== undefined) {
    // The first word that is not an option (npm takes its options anywhere).
    while (start < words.length) {
      const v = words[start]!.value
      if (typeof v !== "string") {
        dynamic = true
        break
      }
      if (!v.startsWith("-") || v === "-") break
      start++
    }
    const word = words[start]
    if (word !== undefined && typeof word.value === "string") {
      sub = command.subcommand(word.value)
      start++
    } else if (word !== undefined) sub = "possible"
  }
  return { ...(sub === undefined ? {} : { sub }), start, globalUses, dynamic }
}

const shapeOf = (command: RuleCommand, words: ReadonlyArray<WordFacts>, head: Head = headOf(command, words)): Shape => {
  const table = (head.sub !== undefined ? command.subTable?.(head.sub) : undefined) ?? command.table ?? NONE
  const parsed = parseArgs(table, words, head.start)
  return {
    ...(head.sub === undefined ? {} : { sub: head.sub }),
    uses: [...head.globalUses, ...parsed.uses],
    ambiguous: parsed.ambiguous,
    operands: parsed.operands,
    dynamic: head.dynamic || parsed.dynamic || parsed.operands.some((w) => typeof w.value !== "string" && !w.procSub),
    ...(parsed.problem === undefined ? {} : { problem: parsed.problem })
  }
}

const ruleKeys = new WeakMap<ReadonlyArray<string>, string | undefined>()

/** The program a rule names, when its options are known (once per rule). */
const ruleKey = (tokens: ReadonlyArray<string>): string | undefined => {
  if (ruleKeys.has(tokens)) return ruleKeys.get(tokens)
  const key = commandKey(tokens[0]!)
  const known = own(RULE_COMMANDS, key) === undefined ? undefined : key
  ruleKeys.set(tokens, known)
  return known
}

const ruleShapes = new WeakMap<ReadonlyArray<string>, Shape>()

/** Rules are few and matched against every command: their reading is kept (compiled patterns keep their tokens). */
const ruleShape = (command: RuleCommand, tokens: ReadonlyArray<string>): Shape => {
  let shape = ruleShapes.get(tokens)
  if (shape === undefined) ruleShapes.set(tokens, shape = shapeOf(command, tokens.map((t) => literalFacts(t))))
  return shape
}

const unitHeads = new WeakMap<ReadonlyArray<WordFacts>, Head>()
const unitShapes = new WeakMap<ReadonlyArray<WordFacts>, Shape>()

/** A command's head and full reading, once per analysed command (its words are the key). */
const unitHead = (command: RuleCommand, words: ReadonlyArray<WordFacts>): Head => {
  let head = unitHeads.get(words)
  if (head === undefined) unitHeads.set(words, head = headOf(command, words))
  return head
}
const unitShape = (command: RuleCommand, words: ReadonlyArray<WordFacts>): Shape => {
  let shape = unitShapes.get(words)
  if (shape === undefined) unitShapes.set(words, shape = shapeOf(command, words, unitHead(command, words)))
  return shape
}

const FORCE = G.push.long.get("force")!
// `--force-with-lease` is the checked force people allow while denying `--force`: it stays apart.
const FORCING = new Set([G.push.long.get("mirror")])

/** git push overwrites remote history with `+` before a refspec or with `--mirror` as with `--force`. */
const pushForces = (shape: Shape): boolean =>
  shape.uses.some((u) => !u.negated && FORCING.has(u.spec)) ||
  shape.operands.slice(1).some((w) => typeof w.value === "string" && w.value.startsWith("+"))

const wordOf = (
  word: Word
): WordFacts => (typeof word === "string" ? literalFacts(word) : { ...literalFacts(word.text), value: word })

const valueText = (
  use: OptionUse
):
  | string
  | undefined => (use.value === undefined
    ? undefined
    : typeof use.value.value === "string"
    ? use.value.value
    : undefined)

/**
 * Matches rule tokens (`["rm", "-rf"]`) against a command's words, for the programs whose options
 * are known; undefined for others (the caller matches tokens as written). `exact`: the rule is
 * the whole command (no more operands allowed).
 */
export const optionAwareMatch = (
  ruleTokens: ReadonlyArray<string>,
  exact: boolean,
  argv: ReadonlyArray<Word>,
  words?: ReadonlyArray<WordFacts>
): RuleMatch | undefined => {
  const first = argv[0]
  if (typeof first !== "string" || ruleTokens.length === 0) return undefined
  const key = ruleKey(ruleTokens)
  const command = key === undefined ? undefined : own(RULE_COMMANDS, key)
  if (command === undefined || commandKey(first) !== key) return undefined
  const rule = ruleShape(command, ruleTokens)
  // `Bash(curl -o:*)`: an option whose argument the rule leaves open matches any argument.
  const openLast = rule.problem?.endsWith("without its argument") === true &&
    rule.uses[rule.uses.length - 1]?.index === ruleTokens.length - 1
  if ((rule.problem !== undefined && !openLast) || rule.sub === "possible" || rule.ambiguous.length > 0) {
    return undefined
  }
  const unitWords = words ?? argv.map(wordOf)
  const head = words === undefined ? headOf(command, unitWords) : unitHead(command, unitWords)
  let possible = false
  if (rule.sub !== undefined) {
    if (head.sub === "possible") possible = true
    else if (head.sub !== rule.sub) return head.sub === undefined && head.dynamic ? "possible" : "none"
  }
  const unit = words === undefined ? shapeOf(command, unitWords, head) : unitShape(command, unitWords)
  const forced = key === "git" && head.sub === "push" && pushForces(unit)
  let missing = false
  for (const wanted of rule.uses) {
    if (wanted.negated) continue
    if (forced && wanted.spec === FORCE) continue
    const have = unit.uses.some((u) =>
      u.spec === wanted.spec && !u.negated && (valueText(wanted) === undefined || valueText(u) === valueText(wanted))
    )
    if (have) continue
    if (unit.ambiguous.some((candidates) => candidates.includes(wanted.spec))) possible = true
    else missing = true
  }
  const wantedOperands = rule.operands.map((w) => w.value as string)
  const operandsMatch = exact
    ? unit.operands.length === wantedOperands.length && wantedOperands.every((t, k) => unit.operands[k]!.value === t)
    : wantedOperands.every((t, k) => unit.operands[k]?.value === t)
  if (!missing && operandsMatch) return possible ? "possible" : "match"
  return unit.dynamic ? "possible" : "none"
}
