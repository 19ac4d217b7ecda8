/**
 * The corpus: ordinary commands (mostly read-only programs, some under allow rules) alone or in
 * lists and pipelines, and the attack constructs, then mutated; each with a context chosen so
 * that the command has a chance of being allowed (rule programs under their rules, writes in
 * acceptEdits). Deterministic for a seed.
 */
import { FastCheck as fc } from "effect"
import { attackCases } from "./attacks.js"
import { CONTEXTS, RUNNER_RULES, TOOL_RULES, type OracleContext } from "./contexts.js"
import { mutations } from "./mutations.js"
import { pick, readOnlyCommand, ruleCommand, type Generated } from "./programs.js"

export interface CorpusCase {
  readonly command: string
  readonly context: OracleContext
  /** The construct it was built from, then the mutations applied. */
  readonly tags: ReadonlyArray<string>
}

const plainCommand: fc.Arbitrary<Generated> = fc.oneof({
  weight: 6,
  arbitrary: readOnlyCommand.map((command) => ({ command, tags: ["read-only"] }))
}, { weight: 1, arbitrary: ruleCommand })

const compound: fc.Arbitrary<Generated> = fc
  .tuple(
    plainCommand,
    fc.array(fc.tuple(pick(" && ", " || ", " ; ", " | ", "\n", " |& ", " & ", ";", "|"), plainCommand), {
      minLength: 1,
      maxLength: 2
    }),
    pick("plain", "plain", "subshell", "group")
  )
  .map(([first, rest, wrap]) => {
    const text = first.command + rest.map(([op, c]) => op + c.command).join("")
    const command = wrap === "subshell" ? `( ${text} )` : wrap === "group" ? `{ ${text}; }` : text
    return { command, tags: ["list", ...new Set([first, ...rest.map(([, c]) => c)].flatMap((c) => c.tags))] }
  })

const construct: fc.Arbitrary<Generated> = fc.oneof({ weight: 12, arbitrary: plainCommand }, {
  weight: 6,
  arbitrary: compound
}, ...attackCases)

const hasRules = (ctx: OracleContext, rules: ReadonlyArray<string>) => rules.every((r) => ctx.allow.includes(r))

/** The contexts where the command may be allowed; all of them when nothing narrows it. */
const contextsFor = (tags: ReadonlyArray<string>, command: string): ReadonlyArray<OracleContext> => {
  let fitting = CONTEXTS
  if (tags.includes("rule:runner")) fitting = fitting.filter((c) => hasRules(c, RUNNER_RULES))
  if (tags.includes("rule:tool")) fitting = fitting.filter((c) => hasRules(c, TOOL_RULES))
  if (tags.includes("writes") || /(?:^|[^<&0-9])>(?!&|\/dev\/null)/.test(command)) {
    const edits = fitting.filter((c) => c.mode === "acceptEdits")
    if (edits.length > 0) fitting = edits
  }
  return fitting.length > 0 ? fitting : CONTEXTS
}

export const corpusCase: fc.Arbitrary<CorpusCase> = fc.tuple(construct, mutations, fc.nat()).map(
  ([built, applied, n]) => {
    const command = applied.reduce((text, [, mutate]) => mutate(text), built.command)
    const tags = [
      ...built.tags.filter((t) => !t.startsWith("rule:") && t !== "writes"),
      ...applied.map(([name]) => `+${name}`)
    ]
    const fitting = contextsFor(built.tags, command)
    return { command, context: fitting[n % fitting.length]!, tags }
  }
)

/** `count` cases for a seed: the same every time. */
export const generateCorpus = (seed: number, count: number): Array<CorpusCase> =>
  fc.sample(corpusCase, { seed, numRuns: count })
