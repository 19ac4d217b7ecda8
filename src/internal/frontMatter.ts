/**
 * The YAML front matter of a SKILL.md or an agent definition, as far as they use it: `key: value`
 * scalars (plain, quoted), inline lists `[a, b]`, block lists (`- item`), and `|` / `>` block
 * scalars. Anything fancier is kept as its raw text. No YAML library: the subset is small and the
 * input is a user's file, so unknown constructs must never throw.
 */

export interface FrontMatter {
  readonly data: Readonly<Record<string, string | ReadonlyArray<string> | boolean>>
  /** The document after the closing `---`. */
  readonly body: string
}

const unquote = (value: string): string => {
  const v = value.trim()
  if (v.length >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
    try {
      return JSON.parse(v) as string
    } catch {
      return v.slice(1, -1)
    }
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replaceAll("''", "'")
  return v
}

const stripComment = (value: string): string => {
  if (/^\s*["']/.test(value)) return value
  const hash = value.search(/\s#/)
  return hash === -1 ? value : value.slice(0, hash)
}

const scalar = (raw: string): string | ReadonlyArray<string> | boolean => {
  const value = stripComment(raw).trim()
  if (value.startsWith("[") && value.endsWith("]")) {
    return value
      .slice(1, -1)
      .split(",")
      .map(unquote)
      .filter((s) => s !== "")
  }
  if (value === "true") return true
  if (value === "false") return false
  return unquote(value)
}

export const parseFrontMatter = (text: string): FrontMatter => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source)
  if (match === null) return { data: {}, body: source }
  const lines = match[1]!.split(/\r?\n/)
  const data: Record<string, string | ReadonlyArray<string> | boolean> = {}
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue
    const keyMatch = /^([A-Za-z0-9_-]+)\s*:(.*)$/.exec(line)
    if (keyMatch === null) continue
    const key = keyMatch[1]!
    const rest = keyMatch[2]!.trim()
    if (rest === "|" || rest === ">" || rest === "|-" || rest === ">-") {
      const block: Array<string> = []
      while (i + 1 < lines.length && (lines[i + 1]!.trim() === "" || /^\s/.test(lines[i + 1]!))) {
        block.push(lines[++i]!.trim())
      }
      data[key] = rest.startsWith("|") ? block.join("\n").trim() : block.join(" ").replace(/\s+/g, " ").trim()
      continue
    }
    if (rest === "") {
      const items: Array<string> = []
      while (i + 1 < lines.length && /^\s*-\s+/.test(lines[i + 1]!)) {
        items.push(unquote(stripComment(lines[++i]!.replace(/^\s*-\s+/, ""))))
      }
      data[key] = items.length > 0 ? items : ""
      continue
    }
    data[key] = scalar(rest)
  }
  return { data, body: source.slice(match[0].length) }
}

/** A front matter value as a list of names: a YAML list, or a string split on commas and spaces. */
export const listValue = (value: string | ReadonlyArray<string> | boolean | undefined): ReadonlyArray<string> => {
  if (value === undefined || typeof value === "boolean") return []
  if (typeof value !== "string") return value.map((s) => s.trim()).filter((s) => s !== "")
  // split on commas and whitespace outside parentheses: "Bash(git add *), Read Grep"
  const out: Array<string> = []
  let depth = 0
  let current = ""
  for (const ch of value) {
    if (ch === "(") depth++
    if (ch === ")") depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current.trim() !== "") out.push(current.trim())
      current = ""
    } else current += ch
  }
  if (current.trim() !== "") out.push(current.trim())
  return out
}

export const stringValue = (value: string | ReadonlyArray<string> | boolean | undefined): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : undefined
