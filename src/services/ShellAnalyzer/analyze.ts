/**
 * Command analysis: hygiene, parse, walk. Pure in the command
 * text, so results are cached on the exact string (one cache per parser owner).
 */
import { disagreement } from "./grammar/agreement.js"
import { readCommand } from "./grammar/reader.js"
import { checkHygiene } from "./hygiene.js"
import type { ShellParser } from "./parser.js"
import type { CommandAnalysis } from "./types.js"
import type { Analysis } from "./units.js"
import { Walker, type WalkState } from "./walk.js"
import { mayChangeHome } from "./words.js"

const CACHE_LIMIT = 2_000

const failed = (command: string, reason: string): Analysis => ({
  command,
  units: [],
  complexReasons: [reason],
  notes: [],
  rawScan: true
})

const analyzeUncached = (parser: ShellParser, command: string): Analysis => {
  const bad = checkHygiene(command)
  if (bad !== undefined) return failed(command, bad)
  const parsed = parser.parse(command)
  if (parsed._tag === "Failed") return failed(command, parsed.reason)
  const state: WalkState = {
    parse: (source) => parser.parse(source),
    units: [],
    reasons: [],
    notes: [],
    order: 0,
    parent: undefined,
    rawScan: false,
    homeStable: !mayChangeHome(command),
    concerns: []
  }
  try {
    new Walker(state, command, "top", 0, false).program(parsed.tree.rootNode)
  } catch (error) {
    // A walker bug must not become an allow.
    state.reasons.push(`the command could not be analysed (${error instanceof Error ? error.message : String(error)})`)
    state.rawScan = true
  } finally {
    parsed.tree.delete()
  }
  if (command.trim().length === 0 && state.units.length === 0) {
    return { command, units: [], complexReasons: ["the command is empty"], notes: [], rawScan: false }
  }
  if (state.reasons.length === 0) {
    // The second reading: nothing is approved unless the grammar reader reads it the same way.
    const read = readCommand(command, state.homeStable)
    if (!read.ok) state.reasons.push(`outside the shell grammar: ${read.reason}`)
    else {
      const differs = disagreement(state.units, read.commands)
      if (differs !== undefined) {
        state.reasons.push(`the parser and the shell grammar read ${differs} differently`)
        state.rawScan = true
      }
    }
  }
  return {
    command,
    units: state.units,
    complexReasons: state.reasons,
    notes: state.notes,
    rawScan: state.rawScan,
    concerns: state.concerns ?? []
  }
}

export interface Analyses {
  /**
   * Analyses a command synchronously. Before the parser has loaded (or when it failed to load)
   * the result is "too complex" and is not cached.
   */
  readonly analyze: (command: string) => Analysis
  readonly clear: () => void
}

/** The analyses of one parser, cached on the command text (the oldest are dropped first). */
export const makeAnalyses = (parser: ShellParser): Analyses => {
  const cache = new Map<string, Analysis>()
  const remember = (command: string, analysis: Analysis): Analysis => {
    if (cache.size >= CACHE_LIMIT) {
      const oldest = cache.keys().next()
      if (!oldest.done) cache.delete(oldest.value)
    }
    cache.set(command, analysis)
    return analysis
  }
  const analyze = (command: string): Analysis => {
    const hit = cache.get(command)
    if (hit !== undefined) return hit
    const analysis = analyzeUncached(parser, command)
    const parserMissing = analysis.units.length === 0 &&
      analysis.complexReasons.some((r) => r.startsWith("the shell parser"))
    return parserMissing ? analysis : remember(command, analysis)
  }
  return { analyze, clear: () => cache.clear() }
}

export const toCommandAnalysis = (analysis: Analysis): CommandAnalysis =>
  analysis.complexReasons.length === 0
    ? { kind: "simple", commands: analysis.units }
    : { kind: "tooComplex", reason: analysis.complexReasons.join("; "), visibleCommands: analysis.units }
