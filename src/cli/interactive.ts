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
  /** Checked before each prompt: true ends the session (the program was asked to terminate). */
  readonly shouldStop?: () => boolean
}

type Read = { readonly _tag: "Line"; readonly line: string } | { readonly _tag: "Quit" }

const readPrompt = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string): Effect.Effect<Read> =>
  Effect.async<Read>((resume) => {
    const rl = readline.createInterface({ input, output, terminal: true, historySize: 0 })
    let done = false
    // readline's own listeners stay: its close handler detaches it from the input
    const onClose = () => finish({ _tag: "Quit" })
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

export const interactive = (options: InteractiveOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
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
      if (trimmed === "/exit" || trimmed === "/quit") return
      yield* options.runPrompt(text)
    }
  })
