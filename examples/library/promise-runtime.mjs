// Without Effect: a runtime from plain options runs tool calls to their results. An AbortSignal
// interrupts a call; failures are thrown as error classes with a `_tag`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRuntime } from "toolgate/promise"

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
fs.writeFileSync(path.join(cwd, "notes.txt"), "hello from toolgate\n")

const runtime = await createRuntime({
  cwd,
  allowedTools: ["Bash(sleep:*)"],
  canUseTool: async (toolName) => ({ behavior: "deny", message: `${toolName} is not allowed in this example` })
})
try {
  const read = await runtime.call("Read", { file_path: path.join(cwd, "notes.txt") })
  console.log(`Read: ${JSON.stringify(read.content)}`)

  const write = await runtime.call("Write", { file_path: path.join(cwd, "new.txt"), content: "x" })
  console.log(`Write: ${write.is_error ? "refused" : "ran"}: ${String(write.content).split("\n").at(-1)}`)

  const abort = new AbortController()
  setTimeout(() => abort.abort(), 300)
  const slept = await runtime.call("Bash", { command: "sleep 30" }, { signal: abort.signal })
  console.log(`Bash sleep 30, aborted: ${slept.is_error ? "error result" : "ran"}`)
} finally {
  await runtime.dispose()
}

const failure = await createRuntime({ cwd, settings: ["{ not json"] }).catch((error) => error)
console.log(`broken settings: ${failure._tag}`)
fs.rmSync(cwd, { recursive: true, force: true })
