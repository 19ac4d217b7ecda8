/**
 * The candidate closest to a word someone typed (a command, a flag, a tool name), for "did you
 * mean …?": a case-insensitive match first, then the smallest edit distance within a third of the
 * word's length (at least 1, at most 3), ties broken by the candidates' order.
 */
export const editDistance = (a: string, b: string): number => {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!
    previous[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return previous[b.length]!
}

export const closest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  const lower = word.toLowerCase()
  const exact = candidates.find((c) => c.toLowerCase() === lower)
  if (exact !== undefined) return exact
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}
