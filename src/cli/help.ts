/**
 * `--help`: plain text (no escape sequences, so it reads the same piped, in a file or with
 * NO_COLOR), one page per command with its full name, its own options first, then the options it
 * shares with every command. The root page lists the commands once, without their options.
 */
import type { FlagGroup, FlagMeta } from "./flags.js"
import { argsUsage, commandName, type CommandSpec } from "./spec.js"

const GROUP_TITLES: Record<FlagGroup, string> = {
  command: "Options",
  agent: "Agent options",
  schedule: "Scheduling options",
  common: "Options for every command"
}

const EXIT_CODES =
  "Exit codes: 0 success; 1 a failure (a tool call, the prompt or the command failed); 2 a usage error; 130 interrupted (Ctrl-C; `run` exits 0 as claude -p does)."

const wrap = (text: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines.length === 0 ? [""] : lines
}

/** Rows of `left  description`, descriptions wrapped in their column. */
const table = (rows: ReadonlyArray<readonly [string, string]>, width: number): Array<string> => {
  const leftWidth = Math.min(34, Math.max(...rows.map(([left]) => left.length)))
  const descWidth = Math.max(30, width - leftWidth - 4)
  return rows.flatMap(([left, desc]) => {
    const body = wrap(desc, descWidth)
    const pad = " ".repeat(leftWidth + 4)
    if (left.length > leftWidth) return [`  ${left}`, ...body.map((l) => `${pad}${l}`)]
    return body.map((l, i) => (i === 0 ? `  ${left.padEnd(leftWidth)}  ${l}` : `${pad}${l}`))
  })
}

const flagLeft = (meta: FlagMeta): string => {
  const names = [...(meta.short === undefined ? [] : [`-${meta.short}`]), `--${meta.name}`]
  const value = !meta.takesValue
    ? ""
    : meta.optionalValue !== undefined
    ? ` [${meta.placeholder.replace(/^<|>$/g, "")}]`
    : ` ${meta.placeholder}`
  return `${names.join(", ")}${value}`
}

const flagRows = (flags: ReadonlyArray<FlagMeta>): Array<readonly [string, string]> =>
  flags.filter((f) => f.hidden !== true).map((f) => [flagLeft(f), f.description] as const)

const BUILTIN_ROWS: ReadonlyArray<readonly [string, string]> = [
  ["-h, --help", "Show this help"],
  ["-v, --version", "Print toolgate's version"]
]

const widthOf = (columns: number | undefined) => Math.max(60, Math.min(120, columns ?? 100))

export const rootHelp = (specs: ReadonlyArray<CommandSpec>, version: string, columns?: number): string => {
  const width = widthOf(columns)
  const commands = specs.filter((s) => s.group !== true)
  const common = commands[0]?.flags.filter((f) => f.group === "common") ?? []
  const lines = [
    `toolgate ${version}: a runtime for the tool calls of LLM agents, compatible with Claude Code's tool system`,
    "",
    "Usage:",
    "  toolgate <command> [options]",
    "  toolgate -p \"<prompt>\" [options]    the agent, once (same as toolgate run -p)",
    "",
    "Commands:",
    ...table(
      commands.map((s) =>
        [`${commandName(s)}${s.args.length === 0 ? "" : ` ${argsUsage(s.args)}`}`, s.summary] as const
      ),
      width
    ),
    "",
    `${GROUP_TITLES.common}:`,
    ...table([...flagRows(common), ...BUILTIN_ROWS], width),
    "",
    "toolgate <command> --help shows a command's own options.",
    ...wrap(EXIT_CODES, width)
  ]
  return `${lines.join("\n")}\n`
}

export const commandHelp = (spec: CommandSpec, specs: ReadonlyArray<CommandSpec>, columns?: number): string => {
  const width = widthOf(columns)
  const name = commandName(spec)
  const subcommands = specs.filter((s) =>
    s.path.length === spec.path.length + 1 && spec.path.every((w, i) => s.path[i] === w)
  )
  const lines: Array<string> = []
  if (spec.group === true) lines.push(`Usage: ${name} <command> [options]`)
  else lines.push(`Usage: ${name}${spec.args.length === 0 ? "" : ` ${argsUsage(spec.args)}`} [options]`)
  lines.push("", ...wrap(spec.summary, width))
  if (subcommands.length > 0) {
    lines.push(
      "",
      "Commands:",
      ...table(
        subcommands.map((s) =>
          [`${commandName(s)}${s.args.length === 0 ? "" : ` ${argsUsage(s.args)}`}`, s.summary] as const
        ),
        width
      )
    )
  }
  if (spec.args.length > 0) {
    lines.push("", "Arguments:", ...table(spec.args.map((a) => [a.name, a.description] as const), width))
  }
  for (const group of ["command", "agent", "schedule", "common"] as const) {
    const rows = flagRows(spec.flags.filter((f) => f.group === group))
    if (group === "common") rows.push(...BUILTIN_ROWS)
    if (rows.length > 0) lines.push("", `${GROUP_TITLES[group]}:`, ...table(rows, width))
  }
  for (const paragraph of spec.details ?? []) lines.push("", ...wrap(paragraph, width))
  if (spec.group !== true) lines.push("", ...wrap(EXIT_CODES, width))
  return `${lines.join("\n")}\n`
}
