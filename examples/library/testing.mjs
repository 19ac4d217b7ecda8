// Test your own stage with the Testing kit: a temporary workspace, settings held in memory, a
// scripted model, a recorded approver, and one stage replaced (here the input validator).
import { Effect, Layer } from "effect"
import assert from "node:assert/strict"
import * as fs from "node:fs"
import * as path from "node:path"
import { Agent, Errors, InputValidator, Testing } from "toolgate"

// The stage under test: no file of the workspace may be named in upper case.
const seen = []
const lowerCaseOnly = Layer.succeed(InputValidator.InputValidator, {
  decode: InputValidator.decodeInput,
  validate: (tool, input, ctx) =>
    Effect.suspend(() => {
      seen.push(tool.name)
      const file = input.file_path
      return typeof file === "string" && /[A-Z]/.test(path.basename(file))
        ? Effect.fail(new Errors.InputRejected({ toolName: tool.name, reason: "file names are lower case here" }))
        : InputValidator.make.validate(tool, input, ctx)
    })
})

const program = Effect.gen(function*() {
  const cwd = yield* Testing.workspace({ "notes.txt": "hello\n" })
  const approver = Testing.recordedApprover(() => ({ behavior: "deny", feedback: "not now" }))
  const runtime = Testing.layerWithAgent({
    cwd,
    allow: ["Read", "Write"],
    approver: approver.layer,
    layers: { InputValidator: lowerCaseOnly },
    model: Testing.scriptedModel(cwd, [
      Testing.turn(
        Testing.toolUse("Write", { file_path: "{{cwd}}/NOTES.txt", content: "x" }),
        Testing.toolUse("Read", { file_path: "{{cwd}}/notes.txt" })
      ),
      Testing.turn(Testing.text("done"))
    ])
  })
  const outcome = yield* Effect.gen(function*() {
    const agent = yield* Agent.Agent
    return yield* agent.prompt(Agent.newConversation(Testing.session(cwd)), "tidy up")
  }).pipe(Effect.provide(runtime))

  const results = outcome.conversation.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((
    b
  ) => b.type === "tool_result")
  assert.deepEqual(seen, ["Write", "Read"])
  assert.match(String(results[0].content), /file names are lower case here/)
  assert.match(String(results[1].content), /hello/)
  assert.equal(fs.existsSync(path.join(cwd, "NOTES.txt")), false)
  assert.equal(approver.requests.length, 0)
  assert.equal(outcome.text, "done")
  console.log("the replaced validator refused NOTES.txt; Read ran; nobody was asked")
})

await Effect.runPromise(Effect.scoped(program))
