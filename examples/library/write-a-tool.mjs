// Write a tool of your own and call it through the whole pipeline.
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Errors, Permission, Runtime, Scheduler, Session, Tool, Tools } from "toolgate"

export const WordCount = Tool.buildTool({
  name: "WordCount",
  description: "Counts the words of a text.",
  inputSchema: Schema.Struct({ text: Schema.String }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  checkPermissions: () => Effect.succeed(Permission.allow("counting words changes nothing")),
  call: ({ text }) =>
    text.length > 1_000_000
      ? Effect.fail(new Errors.ToolError({ reason: "text too long" }))
      : Effect.succeed({ data: `${text.split(/\s+/).filter(Boolean).length} words` })
})

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
const program = Effect.gen(function*() {
  const scheduler = yield* Scheduler.Scheduler
  const run = yield* scheduler.runMessage(
    [{ type: "tool_use", id: "toolu_1", name: "WordCount", input: { text: "one two three" } }],
    { session: Session.newSession({ cwd, permissionMode: "default" }) }
  )
  console.log(run.message.content[0].content) // 3 words
})

const runtime = Runtime.layer({ cwd, tools: [...Tools.builtinTools, WordCount] })
await Effect.runPromise(program.pipe(Effect.provide(runtime), Effect.scoped))
fs.rmSync(cwd, { recursive: true, force: true })
