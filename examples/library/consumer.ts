// A TypeScript consumer: the public API type-checks from the published declarations.
import { Effect, Layer, Schema } from "effect"
import type { Messages } from "toolgate"
import {
  Agent,
  Approver,
  Errors,
  Permission,
  Permissions,
  Runtime,
  Scheduler,
  Session,
  Testing,
  Tool,
  Tools
} from "toolgate"
import {
  createRuntime,
  query,
  type CanUseTool,
  type Message,
  type Options,
  type ToolResultBlock
} from "toolgate/promise"

const Shout = Tool.buildTool({
  name: "Shout",
  description: "Upper-cases a text.",
  inputSchema: Schema.Struct({ text: Schema.String }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: (
    { text }
  ) => (text === ""
    ? Effect.fail(new Errors.ToolError({ reason: "nothing to shout" }))
    : Effect.succeed({ data: text.toUpperCase() }))
})

const mode: Permission.PermissionMode = "acceptEdits"
const askEveryone: Layer.Layer<Approver.Approver> = Approver.layerCallback(() => Effect.succeed({ behavior: "deny" }))
const denyAll: Layer.Layer<Permissions.Permissions> = Layer.succeed(Permissions.Permissions, {
  decide: () => Effect.succeed(Permission.deny("no"))
})

export const results = (
  cwd: string,
  blocks: ReadonlyArray<Messages.ToolUseBlock>
): Effect.Effect<Messages.ToolResultsMessage, Errors.BadRequest | Errors.BrokenSettings> =>
  Effect.gen(function*() {
    const scheduler = yield* Scheduler.Scheduler
    const run: Scheduler.MessageRun = yield* scheduler.runMessage(blocks, {
      session: Session.newSession({ cwd, permissionMode: mode })
    })
    return run.message
  }).pipe(
    Effect.provide(
      Runtime.layer({ cwd, tools: [...Tools.builtinTools, Shout], approver: askEveryone, permissions: denyAll })
    ),
    Effect.scoped
  )

// The agent loop from the library: a conversation goes on from one prompt to the next.
export const ask = (
  cwd: string,
  prompts: ReadonlyArray<string>
): Effect.Effect<Agent.Conversation, never, Agent.Agent> =>
  Effect.gen(function*() {
    const agent = yield* Agent.Agent
    let conversation: Agent.Conversation = Agent.newConversation(Session.newSession({ cwd, permissionMode: mode }))
    for (const prompt of prompts) conversation = (yield* agent.prompt(conversation, prompt)).conversation
    return conversation
  })

// Tests of your own with the Testing kit.
export const testRuntime = (cwd: string) =>
  Testing.layerWithAgent({
    cwd,
    allow: ["Read"],
    model: Testing.scriptedModel(cwd, [Testing.turn(Testing.text("hi"))])
  })

// The Promise face, typed as the Agent SDK's: an async canUseTool whose deny message reaches the model.
const canUseTool: CanUseTool = async (toolName, input) =>
  toolName === "Bash" && String(input.command).startsWith("rm")
    ? { behavior: "deny", message: "never remove files" }
    : { behavior: "allow" }

export const lastResult = async (prompt: string, options: Options = {}): Promise<Message | undefined> => {
  let last: Message | undefined
  for await (const message of query({ prompt, options: { ...options, canUseTool } })) {
    if (message.type === "result") last = message
  }
  return last
}

export const readOne = async (cwd: string, file: string): Promise<string> => {
  const runtime = await createRuntime({ cwd })
  try {
    const result: ToolResultBlock = await runtime.call("Read", { file_path: file })
    return typeof result.content === "string" ? result.content : JSON.stringify(result.content)
  } finally {
    await runtime.dispose()
  }
}
