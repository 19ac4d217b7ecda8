/**
 * @effect/cli 0.77 wants a command's options before its positional arguments; people write
 * `toolgate exec message.json --json`. This moves options that follow a positional argument in
 * front of it, keeping every token's relative order otherwise. Tokens after `--` stay as they are.
 */

/** Flags that take no value (everything else starting with `-` takes the next token). */
const BOOLEAN_FLAGS = new Set([
  "--json",
  "--timeline",
  "--trust-project",
  "--strict-mcp-config",
  "--help",
  "-h",
  "--version",
  "--wizard",
  "--print",
  "-p",
  "--verbose",
  "--no-color",
  "--interactive",
  "--runner"
])

export const normalizeArgv = (args: ReadonlyArray<string>, subcommands: ReadonlySet<string>, booleans: ReadonlySet<string> = BOOLEAN_FLAGS): Array<string> => {
  let i = 0
  const head: Array<string> = []
  while (i < args.length && subcommands.has(args[i]!)) head.push(args[i++]!)
  const options: Array<string> = []
  const positionals: Array<string> = []
  while (i < args.length) {
    const token = args[i]!
    if (token === "--") {
      positionals.push(...args.slice(i))
      break
    }
    if (token.startsWith("-") && token !== "-") {
      options.push(token)
      const takesValue = !booleans.has(token) && !token.includes("=")
      if (takesValue && i + 1 < args.length) options.push(args[++i]!)
    } else positionals.push(token)
    i++
  }
  return [...head, ...options, ...positionals]
}
