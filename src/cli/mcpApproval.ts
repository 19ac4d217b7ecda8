/**
 * Asking a person about a project's MCP servers (`.mcp.json`) before any of them starts, as
 * Claude Code does when it meets a new one: use it, use it and every future one of this project,
 * or not. The answer is saved to `.claude/settings.local.json` (by McpClients). Asked on stderr,
 * so stdout keeps only results; only when stdin and stderr are terminals. Ctrl-C or end of
 * input answers nothing: the server stays unapproved and does not start.
 */
import { Effect } from "effect"
import * as readline from "node:readline"
import {
  toolPrefix,
  type PendingProjectServer,
  type McpClientsOptions,
  type ProjectServerChoice
} from "../services/McpClients.js"
import { bold, escapeInvisible } from "./render.js"

const CHOICES: Record<string, ProjectServerChoice> = {
  "1": "approve",
  y: "approve",
  yes: "approve",
  "2": "approve-all",
  a: "approve-all",
  "3": "reject",
  n: "reject",
  no: "reject"
}

const quote = (word: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** What the server does when it starts, as a person should read it. */
export const describeServer = (server: PendingProjectServer): string =>
  escapeInvisible(
    server.config.type === "stdio"
      ? `runs: ${[server.config.command, ...server.config.args].map(quote).join(" ")}`
      : `connects to: ${server.config.url} (${server.config.type})`
  )

export const questionText = (server: PendingProjectServer): string =>
  [
    "",
    bold(`New MCP server in this project: ${escapeInvisible(server.name)}`),
    `  from ${server.origin}`,
    `  ${describeServer(server)}`,
    "A server runs with your permissions from the moment it starts.",
    "  1. Use this server",
    "  2. Use this and all future MCP servers in this project",
    "  3. Do not use this server",
    ""
  ].join("\n")

const ask = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream) => (server: PendingProjectServer) =>
  Effect.async<ProjectServerChoice | undefined>((resume) => {
    const rl = readline.createInterface({ input, output, terminal: true, historySize: 0 })
    let done = false
    const finish = (choice: ProjectServerChoice | undefined) => {
      if (done) return
      done = true
      rl.close()
      resume(Effect.succeed(choice))
    }
    rl.once("close", () => finish(undefined))
    rl.once("SIGINT", () => {
      output.write("\n")
      finish(undefined)
    })
    output.write(questionText(server))
    const prompt = () =>
      rl.question("Choose [1/2/3]: ", (line) => {
        const choice = CHOICES[line.trim().toLowerCase()]
        if (choice !== undefined) finish(choice)
        else {
          output.write("Please answer 1, 2 or 3.\n")
          prompt()
        }
      })
    prompt()
    return Effect.sync(() => {
      done = true
      rl.close()
    })
  })

/**
 * The MCP options' `approve` for a command run by a person at a terminal; undefined otherwise.
 * `toolName` limits the question to the server of that MCP tool (`toolgate call mcp__s__t`);
 * a call of any other tool asks nothing.
 */
export const terminalApproval = (options: { readonly toolName?: string } = {}): McpClientsOptions["approve"] => {
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) return undefined
  const only = options.toolName === undefined
    ? undefined
    : (name: string) => options.toolName!.startsWith(toolPrefix(name))
  return { ask: ask(process.stdin, process.stderr), ...(only === undefined ? {} : { only }) }
}
