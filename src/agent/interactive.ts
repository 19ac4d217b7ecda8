/**
 * The interactive session: a prompt line, each prompt run to the end of the model's work, until
 * `/exit`, Ctrl-D, or Ctrl-C on an empty line. The prompt's readline is closed while a turn runs,
 * so Ctrl-C reaches the process as SIGINT (one user interrupt) and permission questions get the
 * terminal to themselves.
 */
import { Effect } from "effect"
import * as readline from "node:readline"

export interface InteractiveOptions {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
  readonly prompt: string
  readonly firstPrompt?: string
  readonly runPrompt: (text: string) => Effect.Effect<void>
}

type Read = { readonly _tag: "Line"; readonly line: string } | { readonly _tag: "Quit" }

const readPrompt = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string): Effect.Effect<Read> =>
  Effect.async<Read>((resume) => {
    const rl = readline.createInterface({ input, output, terminal: true, historySize: 0 })
    let done = false
    const finish = (result: Read) => {
      if (done) return
      done = true
      rl.removeAllListeners("SIGINT")
      rl.removeAllListeners("close")
      rl.close()
      resume(Effect.succeed(result))
    }
    rl.on("close", () => finish({ _tag: "Quit" }))
    rl.on("SIGINT", () => {
      // Ctrl-C clears a typed line; on an empty line it quits
      if (rl.line === "") {
        output.write("\n")
        finish({ _tag: "Quit" })
      } else {
        output.write("\n")
        ;(rl as unknown as { line: string }).line = ""
        rl.prompt()
      }
    })
    rl.setPrompt(prompt)
    rl.prompt()
    rl.on("line", (line) => finish({ _tag: "Line", line }))
    return Effect.sync(() => {
      done = true
      rl.close()
    })
  })

export const interactive = (options: InteractiveOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
    let pending = options.firstPrompt
    for (;;) {
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
      if (trimmed === "/exit" || trimmed === "/quit") return
      yield* options.runPrompt(text)
    }
  })
