/**
 * `$(cat <<'EOF' … EOF)`: a nested command that only prints the literal body of a quoted
 * here-document. Inside "…" its value is the body without its trailing newlines, known before
 * anything runs (Claude Code reads this form, the usual way to pass a commit message, too).
 * Nothing else qualifies: `cat` alone, one quoted delimiter, nothing after it on its line, and
 * only blanks or newlines between the delimiter line and the `)`.
 */
const START = /^\$\(cat[ \t]+<<[ \t]*(?:'([A-Za-z0-9_.-]+)'|"([A-Za-z0-9_.-]+)")[ \t]*\n/

export interface HeredocText {
  readonly value: string
  /** Where the `$( … )` ends (after the `)`). */
  readonly end: number
}

export const quotedHeredocText = (text: string, at: number): HeredocText | undefined => {
  const start = START.exec(text.slice(at))
  if (start === null) return undefined
  const delimiter = start[1] ?? start[2]!
  const lines: Array<string> = []
  let pos = at + start[0].length
  for (;;) {
    const newline = text.indexOf("\n", pos)
    if (newline === -1) return undefined
    const line = text.slice(pos, newline)
    pos = newline + 1
    if (line === delimiter) break
    lines.push(line)
  }
  while (text[pos] === " " || text[pos] === "\t" || text[pos] === "\n") pos++
  if (text[pos] !== ")") return undefined
  return { value: lines.join("\n").replace(/\n+$/, ""), end: pos + 1 }
}
