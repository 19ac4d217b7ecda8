// Compose a runtime from toolgate's layers and run one assistant message's tool calls.
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Approver, Runtime, Scheduler, Session } from "toolgate"

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
fs.writeFileSync(path.join(cwd, "notes.txt"), "hello from toolgate\n")

const program = Effect.gen(function*() {
  const scheduler = yield* Scheduler.Scheduler
  const run = yield* scheduler.runMessage(
    [
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: path.join(cwd, "notes.txt") } },
      { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "touch made-by-bash.txt" } }
    ],
    { session: Session.newSession({ cwd, permissionMode: "default" }) }
  )
  console.log(JSON.stringify(run.message, null, 2))
})

// Reads inside the working directory are allowed; the callback answers every question (here: no
// commands that change anything).
const runtime = Runtime.layer({
  cwd,
  approver: Approver.layerCallback(({ tool }) =>
    Effect.succeed(
      tool.name === "Bash"
        ? { behavior: "deny", feedback: "no shell in this example" }
        : { behavior: "allow", scope: "once" }
    )
  )
})

await Effect.runPromise(program.pipe(Effect.provide(runtime), Effect.scoped))
fs.rmSync(cwd, { recursive: true, force: true })
