/**
 * Do the tree-sitter walk and the grammar reader read a command alike? Both must name the same
 * programs with the same arguments, the same redirections and the same assignments; any
 * difference means one of them reads the text differently from bash, and nothing is approved.
 */
import type { Word } from "../types.js"
import type { Unit } from "../units.js"
import type { ReadCommand } from "./reading.js"

const wordKey = (word: Word): string => (typeof word === "string" ? JSON.stringify(word) : "<dynamic>")

const redirectKey = (op: string, fd: number | undefined, target: Word): string =>
  `${fd ?? ""}${op.replace(/-$/, "")} ${wordKey(target)}`

const count = (keys: ReadonlyArray<string>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
  return counts
}

const sameCounts = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  const left = count(a)
  const right = count(b)
  if (left.size !== right.size) return false
  for (const [key, n] of left) if (right.get(key) !== n) return false
  return true
}

/** What the walk found at the level the grammar reader sees (not inside wrappers or nested shells). */
const topLevel = (u: Unit): boolean => u.parent === undefined && (u.origin === "top" || u.origin === "substitution")

/**
 * Why the two readings differ, or undefined when they agree. `atLevel` picks the walked units of
 * the text that was read (the whole command, or one nested script).
 */
export const disagreement = (
  units: ReadonlyArray<Unit>,
  read: ReadonlyArray<ReadCommand>,
  atLevel: (unit: Unit) => boolean = topLevel
): string | undefined => {
  const walked = units.filter(atLevel)
  const walkedArgv = walked.filter((u) => u.argv.length > 0).map((u) => u.argv.map(wordKey).join(" "))
  const readArgv = read.filter((c) => c.argv.length > 0).map((c) => c.argv.map(wordKey).join(" "))
  if (!sameCounts(walkedArgv, readArgv)) return "the commands it runs"
  const walkedRedirects = walked.flatMap((u) => u.redirects.map((r) => redirectKey(r.op, r.fd, r.target)))
  const readRedirects = read.flatMap((c) => c.redirects.map((r) => redirectKey(r.op, r.fd, r.target)))
  if (!sameCounts(walkedRedirects, readRedirects)) return "its redirections"
  const walkedEnv = walked.flatMap((u) => u.env.map((e) => `${e.name}=${wordKey(e.value)}`))
  const readEnv = read.flatMap((c) => c.env.map((e) => `${e.name}=${wordKey(e.value)}`))
  if (!sameCounts(walkedEnv, readEnv)) return "its assignments"
  return undefined
}
