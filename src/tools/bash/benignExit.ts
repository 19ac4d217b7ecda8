/**
 * Exit code 1 means "no match" or "false" for a few commands (grep, diff, test, …) rather than a
 * failure. The command that decides the exit status is the last command of
 * the last pipeline. This is judged with a small scanner, conservatively: anything it does not
 * fully understand (substitutions, subshells, here-documents, `pipefail`, a pipeline after `&&`
 * whose status may come from an earlier command) counts as a real failure.
 */

const BENIGN_COMMANDS = new Set(["grep", "rg", "egrep", "fgrep", "find", "diff", "test", "["])
const BENIGN_GIT_SUBCOMMANDS = new Set(["diff", "grep"])

interface Segment {
  readonly words: ReadonlyArray<string>
  /** The operator before this simple command: "", ";", "\n", "&", "&&", "||", "|", "|&". */
  readonly before: string
}

/** Splits a command into simple commands, or undefined when it is too complex to judge. */
export const splitSimpleCommands = (command: string): ReadonlyArray<Segment> | undefined => {
  const segments: Array<Segment> = []
  let words: Array<string> = []
  let word: string | undefined
  let before = ""
  const endWord = () => {
    if (word !== undefined) words.push(word)
    word = undefined
  }
  const endSegment = (operator: string) => {
    endWord()
    segments.push({ words, before })
    words = []
    before = operator
  }
  let i = 0
  while (i < command.length) {
    const c = command[i]!
    const next = command[i + 1]
    if (c === "\\") {
      if (next === "\n") {
        i += 2
        continue
      }
      word = (word ?? "") + (next ?? "")
      i += 2
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1)
      if (close === -1) return undefined
      word = (word ?? "") + command.slice(i + 1, close)
      i = close + 1
    } else if (c === "\"") {
      let text = ""
      i++
      for (; i < command.length && command[i] !== "\""; i++) {
        const d = command[i]!
        if (d === "`" || (d === "$" && command[i + 1] === "(")) return undefined
        if (d === "\\" && i + 1 < command.length && "$`\"\\\n".includes(command[i + 1]!)) {
          i++
          if (command[i] !== "\n") text += command[i]
        } else text += d
      }
      if (i >= command.length) return undefined
      word = (word ?? "") + text
      i++
    } else if (c === "<" && next === "<") {
      // A here-string (`<<<`) is one word; a here-document's body would be read as commands.
      if (command[i + 2] !== "<") return undefined
      word = (word ?? "") + "<<<"
      i += 3
    } else if (c === "`" || c === "(" || c === ")" || (c === "$" && next === "(")) {
      return undefined
    } else if (c === "#" && word === undefined) {
      while (i < command.length && command[i] !== "\n") i++
    } else if (c === " " || c === "\t") {
      endWord()
      i++
    } else if (c === "\n" || c === ";") {
      if (c === ";" && next === ";") return undefined
      endSegment(c)
      i++
    } else if (c === "&" || c === "|") {
      // `>&2`, `2>&1`, `&>file`, `>|file` are redirections, not operators.
      if (word !== undefined && /[<>]$/.test(word)) {
        word += c
        i++
        continue
      }
      if (c === "&" && next === ">") {
        word = (word ?? "") + c
        i++
        continue
      }
      const pair = c + (next ?? "")
      const operator = pair === "&&" || pair === "||" || pair === "|&" ? pair : c
      endSegment(operator)
      i += operator.length
    } else {
      word = (word ?? "") + c
      i++
    }
  }
  endSegment("")
  return segments
}

/** True when exit code 1 of this command is not a failure. */
export const isBenignExitOne = (command: string): boolean => {
  if (/\bpipefail\b/.test(command)) return false
  const segments = splitSimpleCommands(command)
  if (segments === undefined) return false
  let last = segments.length - 1
  while (last >= 0 && segments[last]!.words.length === 0) last--
  if (last < 0) return false
  // The operator before the last pipeline: after `&&`, status 1 may come from an earlier command.
  let start = last
  while (start > 0 && (segments[start]!.before === "|" || segments[start]!.before === "|&")) start--
  if (segments[start]!.before === "&&") return false
  const words = segments[last]!.words.filter((_, index, all) => !all.slice(0, index + 1).every(isAssignment))
  const name = words[0]
  if (name === undefined) return false
  const base = name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : name
  if (BENIGN_COMMANDS.has(base)) return true
  return base === "git" && BENIGN_GIT_SUBCOMMANDS.has(words[1] ?? "")
}

const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)
