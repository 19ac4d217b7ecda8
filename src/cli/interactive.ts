/**
 * The interactive session: a prompt line, each prompt run to the end of the model's work, slash
 * commands (`/help`, `/clear`, `/exit`, `/permissions`, `/mcp`, `/tools`), until `/exit`, Ctrl-D,
 * or Ctrl-C on an empty line. The prompt's readline is closed while a turn runs, so Ctrl-C
 * reaches the process as SIGINT (one user interrupt) and permission questions get the terminal
 * to themselves.
 */
import { Effect } from "effect"
import * as readline from "node:readline"
import { closest } from "../internal/closest.js"

export interface SlashCommand {
  readonly name: string
  readonly description: string
}

export const SLASH_COMMANDS: ReadonlyArray<SlashCommand> = [
  { name: "help", description: "Show these commands" },
  { name: "clear", description: "Start over: forget the conversation so far (the transcript keeps it)" },
  { name: "permissions", description: "The permission mode and every allow, ask and deny rule with its source" },
  { name: "mcp", description: "The MCP servers, their state and tools" },
  { name: "tools", description: "The tools the model can use" },
  { name: "exit", description: "Leave (also /quit, or Ctrl-D)" }
]

/** What a slash command prints (it never reaches the model). */
export interface SlashHandlers {
  readonly clear: () => Effect.Effect<void>
  readonly permissions: Effect.Effect<string>
  readonly mcp: Effect.Effect<string>
  readonly tools: Effect.Effect<string>
}

export interface InteractiveOptions {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
  readonly prompt: string
  readonly firstPrompt?: string
  readonly runPrompt: (text: string) => Effect.Effect<void>
  readonly slash: SlashHandlers
  /** Checked before each prompt: true ends the session (the program was asked to terminate). */
  readonly shouldStop?: () => boolean
}

type Read = { readonly _tag: "Line"; readonly line: string } | { readonly _tag: "Quit" }

const readPrompt = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string): Effect.Effect<Read> =>
  Effect.async<Read>((resume) => {
    const rl = readline.createInterface({ input, output, terminal: true, historySize: 0 })
    let done = false
    // Ctrl-D (end of input) on the prompt line: leave on a fresh line
    const onClose = () => {
      output.write("\n")
      finish({ _tag: "Quit" })
    }
    const onLine = (line: string) => finish({ _tag: "Line", line })
    const onSigint = () => {
      // Ctrl-C clears a typed line; on an empty line it quits
      output.write("\n")
      if (rl.line === "") finish({ _tag: "Quit" })
      else {
        ;(rl as unknown as { line: string }).line = ""
        rl.prompt()
      }
    }
    const finish = (result: Read) => {
      if (done) return
      done = true
      rl.off("close", onClose)
      rl.off("line", onLine)
      rl.off("SIGINT", onSigint)
      rl.close()
      resume(Effect.succeed(result))
    }
    rl.on("close", onClose)
    rl.on("line", onLine)
    rl.on("SIGINT", onSigint)
    rl.setPrompt(prompt)
    rl.prompt()
    return Effect.sync(() => {
      if (done) return
      done = true
      rl.off("close", onClose)
      rl.close()
    })
  })

const helpText = (): string =>
  [
    "Commands:",
    ...SLASH_COMMANDS.map((c) => `  /${c.name.padEnd(12)} ${c.description}`),
    "Anything else is a prompt for the model. Ctrl-C interrupts a running turn; on an empty line it quits."
  ].join("\n")

/** Runs a slash command; false to leave the session. */
const runSlash = (line: string, options: InteractiveOptions): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const name = line.slice(1).split(/\s+/)[0]!.toLowerCase()
    const print = (text: string) => Effect.sync(() => void options.output.write(`${text}\n`))
    switch (name) {
      case "exit":
      case "quit":
        return false
      case "help":
        yield* print(helpText())
        return true
      case "clear":
        yield* options.slash.clear()
        yield* print("(conversation cleared: the next prompt starts fresh)")
        return true
      case "permissions":
        yield* print(yield* options.slash.permissions)
        return true
      case "mcp":
        yield* print(yield* options.slash.mcp)
        return true
      case "tools":
        yield* print(yield* options.slash.tools)
        return true
      default: {
        const suggestion = closest(name, [...SLASH_COMMANDS.map((c) => c.name), "quit"])
        yield* print(
          `Unknown command /${name}${
            suggestion === undefined ? "" : ` (did you mean /${suggestion}?)`
          }; /help lists the commands.`
        )
        return true
      }
    }
  })

export const interactive = (options: InteractiveOptions): Effect.Effect<void> =>
  Effect.gen(function*() {
    let pending = options.firstPrompt
    for (;;) {
      if (options.shouldStop?.() === true) return
      let text: string
      if (pending !== undefined) {
        text = pending
        pending = undefined
        options.output.write(`${options.prompt}${text}\n`)
      } else {
        const read = yield* readPrompt(options.input, options.output, options.prompt)
        if (read._tag === "Quit") return
        text = read.line
      }
      const trimmed = text.trim()
      if (trimmed === "") continue
      if (/^\/[A-Za-z-]+(\s|$)/.test(trimmed)) {
        if (!(yield* runSlash(trimmed, options))) return
        continue
      }
      yield* options.runPrompt(text)
    }
  })
