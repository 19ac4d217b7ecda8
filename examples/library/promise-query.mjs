// Without Effect: an agent run read with `for await`, its messages shaped as
// `claude -p --output-format stream-json` prints them. The model here is scripted; give
// `model: "claude-…"` and ANTHROPIC_API_KEY for Claude. The approval callback is async, and the
// message of its denial is what the model reads.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { query } from "toolgate/promise"

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
fs.writeFileSync(path.join(cwd, "notes.txt"), "hello from toolgate\n")

const run = query({
  prompt: "Tidy up this folder",
  options: {
    cwd,
    allowedTools: ["Read"],
    script: [
      {
        type: "turn",
        content: [{ type: "tool_use", name: "Read", input: { file_path: "{{cwd}}/notes.txt" } }, {
          type: "tool_use",
          name: "Bash",
          input: { command: "rm notes.txt" }
        }]
      },
      { type: "turn", content: [{ type: "text", text: "I read notes.txt and left it in place." }] }
    ],
    canUseTool: async (toolName, input) => {
      await new Promise((resolve) => setTimeout(resolve, 10)) // e.g. ask someone
      return toolName === "Bash" && String(input.command).startsWith("rm ")
        ? { behavior: "deny", message: "Keep every file; only read them." }
        : { behavior: "allow", updatedInput: input }
    }
  }
})

for await (const message of run) {
  if (message.type === "user") {
    for (const block of message.message.content) {
      if (block.type === "tool_result") {
        console.log(`${block.is_error ? "refused" : "ran"}: ${JSON.stringify(block.content)}`)
      }
    }
  }
  if (message.type === "result") console.log(`${message.subtype}: ${message.result}`)
}
console.log(fs.existsSync(path.join(cwd, "notes.txt")) ? "notes.txt is still there" : "notes.txt was removed")
fs.rmSync(cwd, { recursive: true, force: true })
