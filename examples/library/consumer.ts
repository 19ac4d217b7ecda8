// A TypeScript consumer: the public API type-checks from the published declarations.
import { Effect, Layer, Schema } from "effect"
import { Approver, Errors, Messages, Permission, Permissions, Runtime, Scheduler, Session, Tool, Tools } from "toolgate"

const Shout = Tool.buildTool({
  name: "Shout",
  description: "Upper-cases a text.",
  inputSchema: Schema.Struct({ text: Schema.String }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: ({ text }) => (text === "" ? Effect.fail(new Errors.ToolError({ reason: "nothing to shout" })) : Effect.succeed({ data: text.toUpperCase() }))
})

const mode: Permission.PermissionMode = "acceptEdits"
const askEveryone: Layer.Layer<Approver.Approver> = Approver.layerCallback(() => Effect.succeed({ behavior: "deny" }))
const denyAll: Layer.Layer<Permissions.Permissions> = Layer.succeed(Permissions.Permissions, {
  decide: () => Effect.succeed(Permission.deny("no"))
})

export const results = (cwd: string, blocks: ReadonlyArray<Messages.ToolUseBlock>): Effect.Effect<Messages.ToolResultsMessage, Errors.BadRequest | Errors.BrokenSettings> =>
  Effect.gen(function* () {
    const scheduler = yield* Scheduler.Scheduler
    const run: Scheduler.MessageRun = yield* scheduler.runMessage(blocks, { session: Session.newSession({ cwd, permissionMode: mode }) })
    return run.message
  }).pipe(
    Effect.provide(Runtime.layer({ cwd, tools: [...Tools.builtinTools, Shout], approver: askEveryone, permissions: denyAll })),
    Effect.scoped
  )
