/**
 * A scanner for sed scripts that finds the commands that run programs or touch files
 * (shell-security §2 class 7: `e`, `s///e`, `w`, `W`, `r`, `R`). Anything it does not
 * understand counts as unknown, which the callers treat as unsafe.
 */

export interface SedScriptFacts {
  /** `e` command or `s///e` flag. */
  readonly exec: boolean
  /** `w`/`W` command or `s///w` flag. */
  readonly write: boolean
  /** `r`/`R` command. */
  readonly read: boolean
  readonly unknown: boolean
}

const SIMPLE_COMMANDS = new Set(["p", "P", "d", "D", "n", "N", "g", "G", "h", "H", "x", "l", "=", "q", "Q", "z", "F", "L"])

export const scanSedScript = (script: string): SedScriptFacts => {
  let exec = false
  let write = false
  let read = false
  let i = 0
  const n = script.length
  const unknown = (): SedScriptFacts => ({ exec, write, read, unknown: true })
  const skipBlanks = () => {
    while (i < n && (script[i] === " " || script[i] === "\t")) i++
  }
  const toEndOfLine = () => {
    while (i < n && script[i] !== "\n") i++
  }
  /** Reads up to an unescaped delimiter; false if it is missing. */
  const delimited = (delim: string): boolean => {
    while (i < n) {
      const ch = script[i]!
      if (ch === "\\") {
        i += 2
        continue
      }
      if (ch === "\n" && delim !== "\n") return false
      i++
      if (ch === delim) return true
    }
    return false
  }
  const address = (): boolean => {
    const ch = script[i]
    if (ch === undefined) return true
    if (/[0-9]/.test(ch)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++
      return true
    }
    if (ch === "$") {
      i++
      return true
    }
    if (ch === "/" || ch === "\\") {
      let delim = "/"
      if (ch === "\\") {
        delim = script[i + 1] ?? ""
        if (delim === "" || delim === "\n") return false
        i += 2
      } else i++
      if (!delimited(delim)) return false
      while (i < n && /[IM]/.test(script[i]!)) i++
      return true
    }
    return true
  }
  while (i < n) {
    const c0 = script[i]!
    if (c0 === " " || c0 === "\t" || c0 === "\n" || c0 === ";") {
      i++
      continue
    }
    if (c0 === "#") {
      toEndOfLine()
      continue
    }
    if (!address()) return unknown()
    skipBlanks()
    if (script[i] === ",") {
      i++
      skipBlanks()
      if (script[i] === "+" || script[i] === "~") i++
      if (!address()) return unknown()
      skipBlanks()
    }
    while (script[i] === "!") {
      i++
      skipBlanks()
    }
    const cmd = script[i]
    if (cmd === undefined) return unknown()
    i++
    if (cmd === "{" || cmd === "}") continue
    if (SIMPLE_COMMANDS.has(cmd)) {
      skipBlanks()
      while (i < n && /[0-9]/.test(script[i]!)) i++
      continue
    }
    switch (cmd) {
      case "s": {
        const delim = script[i]
        if (delim === undefined || delim === "\n" || delim === "\\") return unknown()
        i++
        if (!delimited(delim) || !delimited(delim)) return unknown()
        while (i < n) {
          const flag = script[i]!
          if (/[gpiImM0-9]/.test(flag)) {
            i++
            continue
          }
          if (flag === "e") {
            exec = true
            i++
            continue
          }
          if (flag === "w") {
            write = true
            toEndOfLine()
            break
          }
          break
        }
        continue
      }
      case "y": {
        const delim = script[i]
        if (delim === undefined || delim === "\n" || delim === "\\") return unknown()
        i++
        if (!delimited(delim) || !delimited(delim)) return unknown()
        continue
      }
      case "a":
      case "i":
      case "c": {
        // Text to the end of the line; lines ending in a backslash continue it.
        while (i < n) {
          if (script[i] === "\\" && script[i + 1] === "\n") {
            i += 2
            continue
          }
          if (script[i] === "\n") break
          i++
        }
        continue
      }
      case ":":
      case "b":
      case "t":
      case "T":
        while (i < n && script[i] !== "\n" && script[i] !== ";") i++
        continue
      case "e":
        exec = true
        toEndOfLine()
        continue
      case "w":
      case "W":
        write = true
        toEndOfLine()
        continue
      case "r":
      case "R":
        read = true
        toEndOfLine()
        continue
      case "v":
        while (i < n && script[i] !== "\n" && script[i] !== ";") i++
        continue
      default:
        return unknown()
    }
  }
  return { exec, write, read, unknown: false }
}

export interface SedInvocation {
  readonly scripts: ReadonlyArray<string>
  /** Operands that are files. */
  readonly files: ReadonlyArray<number>
  readonly inPlace: boolean
  readonly sandbox: boolean
  /** A script came from a file (-f) or could not be found. */
  readonly opaque: boolean
}

/** Splits a sed argv (literal words; undefined for dynamic ones) into scripts, files and modes. */
export const parseSedArgs = (args: ReadonlyArray<string | undefined>): SedInvocation => {
  const scripts: Array<string> = []
  const operands: Array<number> = []
  let inPlace = false
  let sandbox = false
  let opaque = false
  let explicitScript = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === undefined) {
      opaque = true
      continue
    }
    if (arg === "--") {
      for (let j = i + 1; j < args.length; j++) operands.push(j)
      break
    }
    if (arg.startsWith("--")) {
      if (arg === "--expression" || arg.startsWith("--expression=")) {
        explicitScript = true
        const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++i]
        if (value === undefined) opaque = true
        else scripts.push(value)
      } else if (arg === "--file" || arg.startsWith("--file=")) {
        explicitScript = true
        opaque = true
        if (!arg.includes("=")) i++
      } else if (arg === "--in-place" || arg.startsWith("--in-place=")) inPlace = true
      else if (arg === "--sandbox") sandbox = true
      else if (arg === "--line-length") i++
      else if (!/^--(?:quiet|silent|regexp-extended|null-data|zero-terminated|separate|unbuffered|posix|debug|follow-symlinks|line-length=\d+|help|version)$/.test(arg)) opaque = true
      continue
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const ch = arg[j]!
        if (ch === "e" || ch === "f") {
          explicitScript = true
          const rest = arg.slice(j + 1)
          const value = rest.length > 0 ? rest : args[++i]
          if (ch === "f" || value === undefined) opaque = true
          else scripts.push(value)
          break
        }
        if (ch === "i") {
          inPlace = true
          break // -i takes an optional attached suffix
        }
        if (ch === "l") {
          if (j === arg.length - 1) i++
          break
        }
        if (!"nrEsuz".includes(ch)) opaque = true
      }
      continue
    }
    operands.push(i)
  }
  let files = operands
  if (!explicitScript) {
    const first = operands[0]
    if (first === undefined) opaque = true
    else {
      scripts.push(args[first]!)
      files = operands.slice(1)
    }
  }
  return { scripts, files, inPlace, sandbox, opaque }
}
