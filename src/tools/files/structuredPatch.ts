/**
 * Line diffs in the `structuredPatch` hunk shape hooks receive from Edit and Write
 * (`{oldStart, oldLines, newStart, newLines, lines: [" ctx", "-old", "+new"]}`).
 * Myers' algorithm on what is left after the common head and tail; a diff with more than
 * MAX_EDITS line edits falls back to one hunk that replaces the whole differing middle.
 */
export interface Hunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  readonly lines: ReadonlyArray<string>
}

type Op = { readonly kind: " " | "-" | "+"; readonly line: string }

const MAX_EDITS = 2000

export const structuredPatch = (oldText: string, newText: string, context = 3): ReadonlyArray<Hunk> => {
  if (oldText === newText) return []
  return toHunks(diffLines(splitLines(oldText), splitLines(newText)), context)
}

const splitLines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

const diffLines = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<Op> => {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const midA = a.slice(head, a.length - tail)
  const midB = b.slice(head, b.length - tail)
  const middle = myers(midA, midB) ?? [
    ...midA.map((line): Op => ({ kind: "-", line })),
    ...midB.map((line): Op => ({ kind: "+", line }))
  ]
  return [
    ...a.slice(0, head).map((line): Op => ({ kind: " ", line })),
    ...middle,
    ...a.slice(a.length - tail).map((line): Op => ({ kind: " ", line }))
  ]
}

const myers = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<Op> | undefined => {
  const n = a.length
  const m = b.length
  const max = n + m
  if (max === 0) return []
  const offset = max + 1
  const v = new Int32Array(2 * max + 3)
  const trace: Array<Int32Array> = []
  for (let d = 0; d <= Math.min(max, MAX_EDITS); d++) {
    // state after step d-1 for k in [-d-1, d+1]
    trace.push(v.slice(offset - d - 1, offset + d + 2))
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) return backtrack(trace, a, b)
    }
  }
  return undefined
}

const backtrack = (
  trace: ReadonlyArray<Int32Array>,
  a: ReadonlyArray<string>,
  b: ReadonlyArray<string>
): ReadonlyArray<Op> => {
  const ops: Array<Op> = []
  let x = a.length
  let y = b.length
  for (let d = trace.length - 1; d > 0; d--) {
    const v = trace[d]!
    const at = (k: number) => v[k + d + 1]!
    const k = x - y
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1))
    const prevK = down ? k + 1 : k - 1
    const prevX = at(prevK)
    const prevY = prevX - prevK
    const startX = down ? prevX : prevX + 1
    while (x > startX) {
      ops.push({ kind: " ", line: a[x - 1]! })
      x--
      y--
    }
    if (down) ops.push({ kind: "+", line: b[prevY]! })
    else ops.push({ kind: "-", line: a[prevX]! })
    x = prevX
    y = prevY
  }
  while (x > 0) {
    ops.push({ kind: " ", line: a[x - 1]! })
    x--
  }
  return ops.reverse()
}

const toHunks = (ops: ReadonlyArray<Op>, context: number): ReadonlyArray<Hunk> => {
  const oldBefore: Array<number> = []
  const newBefore: Array<number> = []
  let o = 0
  let n = 0
  for (const op of ops) {
    oldBefore.push(o)
    newBefore.push(n)
    if (op.kind !== "+") o++
    if (op.kind !== "-") n++
  }
  const hunks: Array<Hunk> = []
  let floor = 0
  let i = 0
  while (i < ops.length) {
    if (ops[i]!.kind === " ") {
      i++
      continue
    }
    let last = i
    let j = i
    while (j < ops.length) {
      if (ops[j]!.kind !== " ") {
        last = j
        j++
        continue
      }
      let run = j
      while (run < ops.length && ops[run]!.kind === " ") run++
      if (run >= ops.length || run - j > 2 * context) break
      j = run
    }
    const start = Math.max(i - context, floor)
    const stop = Math.min(ops.length, last + 1 + context)
    const slice = ops.slice(start, stop)
    const oldLines = slice.filter((op) => op.kind !== "+").length
    const newLines = slice.filter((op) => op.kind !== "-").length
    hunks.push({
      oldStart: oldLines === 0 ? oldBefore[start]! : oldBefore[start]! + 1,
      oldLines,
      newStart: newLines === 0 ? newBefore[start]! : newBefore[start]! + 1,
      newLines,
      lines: slice.map((op) => `${op.kind}${op.line}`)
    })
    floor = stop
    i = stop
  }
  return hunks
}

/** Lines added and removed over all hunks, for one-line summaries. */
export const countChanges = (hunks: ReadonlyArray<Hunk>): { readonly added: number; readonly removed: number } => {
  let added = 0
  let removed = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++
      else if (line.startsWith("-")) removed++
    }
  }
  return { added, removed }
}
