/**
 * Failures made small: a failure's signature (what kind of thing went wrong, with which program
 * or which kind of change), and a greedy reducer that drops lines, words and then characters of
 * the command while the case still fails with that signature in the same context.
 */
import * as path from "node:path"
import { SEVERITY, type Problem } from "./judge.js"
import type { Checked, OracleCase } from "./oracle.js"

/**
 * One signature per problem, most severe first: `unnamed-write created`, `unnamed-program touch`,
 * `argv-mismatch echo`, … (a program bash did not find ranks below one it ran).
 */
export const signatures = (checked: Checked): ReadonlyArray<string> => {
  const rank = (p: Problem) => SEVERITY.indexOf(p.kind) * 2 + (p.found === false ? 1 : 0)
  const out = new Set<string>()
  for (const p of [...checked.problems].sort((a, b) => rank(a) - rank(b))) {
    out.add(`${p.kind} ${p.program !== undefined ? path.basename(p.program) : (p.change ?? "")}`.trim())
  }
  return [...out]
}

const removals = (command: string): Array<string> => {
  const out: Array<string> = []
  const lines = command.split("\n")
  if (lines.length > 1) {
    for (let i = 0; i < lines.length; i++) out.push([...lines.slice(0, i), ...lines.slice(i + 1)].join("\n"))
  }
  const tokens = command.split(/(?<=[ \t])/)
  if (tokens.length > 1) {
    for (let i = 0; i < tokens.length; i++) out.push([...tokens.slice(0, i), ...tokens.slice(i + 1)].join(""))
  }
  for (let i = 0; i < command.length; i++) out.push(command.slice(0, i) + command.slice(i + 1))
  return out
}

/**
 * The shortest command found that still fails with the first signature of the original, in the
 * same context. `check` judges one case; at most `budget` candidates are tried.
 */
export const minimise = async (
  failing: Checked,
  check: (c: OracleCase) => Promise<Checked>,
  budget = 600
): Promise<Checked> => {
  const wanted = signatures(failing)[0]
  if (wanted === undefined) return failing
  let best = failing
  let tried = 0
  let progress = true
  const seen = new Set<string>([failing.case.command])
  while (progress && tried < budget) {
    progress = false
    for (const candidate of removals(best.case.command)) {
      if (tried >= budget) break
      if (candidate.trim() === "" || seen.has(candidate)) continue
      seen.add(candidate)
      tried++
      const result = await check({ command: candidate, context: best.case.context })
      if (signatures(result).includes(wanted)) {
        best = result
        progress = true
        break
      }
    }
  }
  return best
}
