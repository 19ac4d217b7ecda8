/**
 * Whether a command leaves a `$` expansion open (`${x`, `$(cmd`, `$((1+`, `$[1+`), read with
 * bash's quoting. Claude Code cannot be sure how the shell reads such a command and asks for it
 * in every mode, bypassPermissions included. Other unbalanced text (a quote, a `(`, `<(`) is not
 * this case. The scan errs towards "open": an open answer only ever asks.
 */
type Frame = "code" | "double" | "backtick" | "paren" | "command" | "brace" | "arithmetic" | "bracket"

const EXPANSIONS: ReadonlySet<Frame> = new Set(["command", "brace", "arithmetic", "bracket"])

export const leavesExpansionOpen = (command: string): boolean => {
  const stack: Array<Frame> = ["code"]
  /** Open `(` inside the innermost `$((`, so that its `))` is found. */
  const depths: Array<number> = []
  const top = () => stack[stack.length - 1]!
  let i = 0
  const openDollar = (): boolean => {
    const next = command[i + 1]
    if (next === "(" && command[i + 2] === "(") {
      stack.push("arithmetic")
      depths.push(0)
      i += 3
    } else if (next === "(") {
      stack.push("command")
      i += 2
    } else if (next === "{") {
      stack.push("brace")
      i += 2
    } else if (next === "[") {
      stack.push("bracket")
      i += 2
    } else return false
    return true
  }
  while (i < command.length) {
    const c = command[i]!
    const frame = top()
    if (c === "\\") {
      i += 2
      continue
    }
    if (c === "$" && openDollar()) continue
    if (frame === "double") {
      if (c === "\"") stack.pop()
      else if (c === "`") stack.push("backtick")
      i++
      continue
    }
    if (frame === "backtick") {
      if (c === "`") stack.pop()
      i++
      continue
    }
    if (c === "'" && frame !== "arithmetic" && frame !== "bracket") {
      const end = command.indexOf("'", i + 1)
      // an open single quote is bash's own syntax error, not an open expansion
      if (end === -1) break
      i = end + 1
      continue
    }
    if (c === "\"") stack.push("double")
    else if (c === "`") stack.push("backtick")
    else if (frame === "brace") {
      if (c === "}") stack.pop()
    } else if (frame === "bracket") {
      if (c === "]") stack.pop()
    } else if (frame === "arithmetic") {
      if (c === "(") depths[depths.length - 1]!++
      else if (c === ")") {
        if (depths[depths.length - 1]! > 0) depths[depths.length - 1]!--
        else if (command[i + 1] === ")") {
          stack.pop()
          depths.pop()
          i++
        }
      }
    } else if (c === "(") stack.push("paren")
    else if (c === ")" && (frame === "paren" || frame === "command")) stack.pop()
    else if (c === "#" && /^$|[\s;&|(]/.test(command[i - 1] ?? "")) {
      const end = command.indexOf("\n", i)
      if (end === -1) break
      i = end
    }
    i++
  }
  return stack.some((frame) => EXPANSIONS.has(frame))
}
