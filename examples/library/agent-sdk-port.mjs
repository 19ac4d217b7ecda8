// A Claude Agent SDK program moved to toolgate: the import changes, the options and the messages
// keep their names and shapes. (What differs is listed in the README's "Library" guide.)
//   - import { query } from "@anthropic-ai/claude-agent-sdk"
//   + import { query } from "toolgate/promise"
// `script` (a scripted model, so that this example runs offline) is toolgate's own option; with
// ANTHROPIC_API_KEY set, leave it out and give `model`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { query } from "toolgate/promise"

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
fs.writeFileSync(path.join(cwd, "package.json"), JSON.stringify({ name: "demo", scripts: { test: "echo tests pass" } }))

const abortController = new AbortController()
const log = []

for await (
  const message of query({
    prompt: "Run the tests and tell me how it went",
    options: {
      cwd,
      allowedTools: ["Read", "Bash(npm test)"],
      disallowedTools: ["WebFetch"],
      permissionMode: "default",
      maxTurns: 5,
      abortController,
      canUseTool: async (toolName, input, { suggestions }) => {
        log.push(`asked about ${toolName} (would suggest: ${suggestions.join(", ") || "nothing"})`)
        return { behavior: "deny", message: "Only the tests may run." }
      },
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input) => {
                log.push(`PreToolUse: ${input.tool_input.command}`)
                return input.tool_input.command.includes("curl")
                  ? {
                    hookSpecificOutput: {
                      hookEventName: "PreToolUse",
                      permissionDecision: "deny",
                      permissionDecisionReason: "no network"
                    }
                  }
                  : {}
              }
            ]
          }
        ]
      },
      script: [
        {
          type: "turn",
          content: [
            { type: "tool_use", name: "Bash", input: { command: "npm test" } },
            { type: "tool_use", name: "Bash", input: { command: "curl https://example.com" } },
            { type: "tool_use", name: "Bash", input: { command: "git push" } }
          ]
        },
        { type: "turn", content: [{ type: "text", text: "The tests pass." }] }
      ]
    }
  })
) {
  if (message.type === "system" && message.subtype === "init") {
    log.push(`session ${message.session_id}, ${message.tools.length} tools`)
  }
  if (message.type === "user") {
    for (const block of message.message.content) {
      if (block.type === "tool_result") {
        log.push(`${block.is_error ? "error" : "ok"}: ${String(block.content).split("\n").at(-1)}`)
      }
    }
  }
  if (message.type === "result") log.push(`${message.subtype} after ${message.num_turns} turns: ${message.result}`)
}
console.log(log.join("\n"))
fs.rmSync(cwd, { recursive: true, force: true })
