/**
 * Claude Code's `hooks` settings block, decoded with effect/Schema: exactly the shapes Claude Code
 * 2.1.332 accepts (asked of it, one malformed shape at a time). Claude Code skips a block it cannot
 * read and runs the call the hook would have blocked; here a block that does not decode makes the
 * whole file broken (exit 78, naming the file and the place), as any other unreadable setting.
 *
 * What Claude Code accepts: `hooks` an object whose keys are event names (names it does not know
 * are ignored); each known event an array of groups; a group an object with an optional string
 * `matcher` and a `hooks` array (may be empty); a hook an object whose `type` is `command` (with a
 * string `command`; optional `args` strings, `shell` bash | powershell, booleans `async`,
 * `asyncRewake`), `prompt` or `agent` (a string `prompt`) or `http` (a string `url`); any hook
 * may have a positive number `timeout` (seconds), a string `if` and `statusMessage`, a boolean
 * `once`. Other keys are allowed everywhere.
 *
 * toolgate runs command hooks only. A hook of another type on an event that can block a call
 * (PreToolUse, PermissionRequest) is refused too: running without it could allow what it blocks.
 */
import { Schema } from "effect"

/** Every hook event Claude Code 2.1.332 knows. */
export const CLAUDE_CODE_HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
  "PreSkillShellCommand"
] as const

/** Events whose hooks can stop a call from running: a hook toolgate cannot run there must not be dropped. */
export const BLOCKING_HOOK_EVENTS: ReadonlyArray<string> = ["PreToolUse", "PermissionRequest"]

const field = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A string that must be one of `choices`; the error names them all. */
const oneOf = (...choices: ReadonlyArray<string>) =>
  Schema.String.pipe(
    Schema.filter((value) =>
      choices.includes(value) ||
      `Expected ${choices.map((c) => JSON.stringify(c)).join(", ")}, actual ${JSON.stringify(value)}`
    )
  )

const PositiveSeconds = Schema.Number.pipe(
  Schema.filter((n) => (Number.isFinite(n) && n > 0) || `Expected a positive number of seconds, actual ${n}`)
)

const common = {
  timeout: field(PositiveSeconds),
  if: field(Schema.String),
  statusMessage: field(Schema.String),
  once: field(Schema.Boolean)
}

const CommandHook = Schema.Struct(
  {
    type: Schema.Literal("command"),
    command: Schema.String,
    args: field(Schema.Array(Schema.String)),
    shell: field(oneOf("bash", "powershell")),
    async: field(Schema.Boolean),
    asyncRewake: field(Schema.Boolean),
    ...common
  },
  Extra
)
const PromptHook = Schema.Struct({ type: Schema.Literal("prompt"), prompt: Schema.String, ...common }, Extra)
const AgentHook = Schema.Struct({ type: Schema.Literal("agent"), prompt: Schema.String, ...common }, Extra)
const HttpHook = Schema.Struct({ type: Schema.Literal("http"), url: Schema.String, ...common }, Extra)

const HOOK_TYPES = ["command", "prompt", "agent", "http"] as const

/** The type first, so that a misspelt one is named as such rather than as a failed union. */
const Hook = Schema.Struct({ type: oneOf(...HOOK_TYPES) }, Extra)
  .annotations({ identifier: "a hook (an object with a type)" })
  .pipe(Schema.compose(Schema.Union(CommandHook, PromptHook, AgentHook, HttpHook), { strict: false }))

const Group = Schema.Struct({
  matcher: field(Schema.String),
  hooks: Schema.Array(Hook).annotations({ identifier: "an array of hooks" })
}, Extra).annotations({
  identifier: "a matcher group (an object with a \"hooks\" array)"
})
const EventGroups = Schema.Array(Group).annotations({ identifier: "an array of matcher groups" })

const eventFields = Object.fromEntries(CLAUDE_CODE_HOOK_EVENTS.map((event) => [event, field(EventGroups)])) as {
  readonly [K in (typeof CLAUDE_CODE_HOOK_EVENTS)[number]]: ReturnType<typeof field<typeof EventGroups>>
}

type HookShape = { readonly type: string }
type GroupShape = { readonly hooks: ReadonlyArray<HookShape> }

/** A hook toolgate cannot run, on an event where it could block calls. */
const unrunnableBlocking = (block: Readonly<Record<string, unknown>>) => {
  for (const event of BLOCKING_HOOK_EVENTS) {
    const groups = block[event] as ReadonlyArray<GroupShape> | undefined
    for (const [gi, group] of (groups ?? []).entries()) {
      for (const [hi, hook] of group.hooks.entries()) {
        if (hook.type !== "command") {
          return {
            path: [event, gi, "hooks", hi, "type"],
            message:
              `a "${hook.type}" hook cannot run in toolgate (it runs command hooks only), and on ${event} it could block calls: make it a command hook or remove it`
          }
        }
      }
    }
  }
  return true
}

export const HooksBlock = Schema.Struct(eventFields, Extra)
  .annotations({ identifier: "an object of hook events" })
  .pipe(Schema.filter(unrunnableBlocking))
export type HooksBlock = typeof HooksBlock.Type
