// Replace one stage with a mock and keep the others real: here every call is denied.
import { Effect, Layer } from "effect"
import assert from "node:assert/strict"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Permission, Permissions, Runtime, Scheduler, Session } from "toolgate"

const denyAll = Layer.succeed(Permissions.Permissions, {
  decide: () => Effect.succeed(Permission.deny("denied by the test"))
})

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-example-"))
const program = Effect.gen(function*() {
  const scheduler = yield* Scheduler.Scheduler
  const run = yield* scheduler.runMessage(
    [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "touch should-not-exist" } }],
    { session: Session.newSession({ cwd, permissionMode: "bypassPermissions" }) }
  )
  const [result] = run.message.content
  assert.equal(result.is_error, true)
  assert.equal(result.content, "denied by the test")
  assert.equal(fs.existsSync(path.join(cwd, "should-not-exist")), false)
  console.log("the mocked Permissions stage denied the call; nothing ran")
})

await Effect.runPromise(program.pipe(Effect.provide(Runtime.layer({ cwd, permissions: denyAll })), Effect.scoped))
fs.rmSync(cwd, { recursive: true, force: true })
