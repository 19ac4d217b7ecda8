/**
 * Skill: loads one of the session's skills. As in Claude Code the
 * tool result only says `Launching skill: <name>`; the instructions follow as a user message
 * (`newMessages`), headed by the skill's folder so relative references resolve. `$ARGUMENTS`
 * (and `$ARGUMENTS[N]`, `${CLAUDE_SKILL_DIR}`, `${CLAUDE_SESSION_ID}`) in SKILL.md are replaced;
 * arguments with no placeholder are appended. Permission goes through `Skill(name)` /
 * `Skill(name *)` rules (subject `{kind: "skill"}`); with no rule, it asks.
 *
 * The skill's `allowed-tools` are reported in the output but not granted: Claude Code grants them
 * for the turn that invoked the skill, and toolgate has no per-turn rules yet.
 */
import { Effect, Schema } from "effect"
import { ToolError } from "../Errors.js"
import type { Skill } from "../services/Extensions.js"
import { buildTool, reject, type ToolContext, type ToolResult } from "../Tool.js"
import { optional } from "./schemas.js"

export const SKILL_TOOL_NAME = "Skill"

export const SkillInput = Schema.Struct({
  skill: Schema.String.annotations({ description: "The skill name, e.g. \"pdf\" or \"review-pr\"" }),
  args: optional(Schema.String).annotations({ description: "Optional arguments for the skill" })
})
export type SkillInput = typeof SkillInput.Type

export interface SkillOutput {
  readonly success: boolean
  readonly commandName: string
  readonly allowedTools: ReadonlyArray<string>
  /** The text that follows the tool result as a user message. */
  readonly instructions: string
}

/** The name a model may write as `/name` or `name`. */
export const skillNameOf = (input: string): string => input.trim().replace(/^\//, "")

/** Splits arguments like a shell would, for `$ARGUMENTS[N]` (quotes group words). */
const splitArgs = (args: string): ReadonlyArray<string> =>
  Array.from(args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g), (m) => m[1] ?? m[2] ?? m[3] ?? "")

export const skillInstructions = (skill: Skill, args: string | undefined, sessionId: string): string => {
  const given = args?.trim() ?? ""
  const positional = splitArgs(given)
  let usedArguments = false
  const body = skill.body
    .replace(/\$ARGUMENTS\[(\d+)\]/g, (_, n: string) => {
      usedArguments = true
      return positional[Number(n)] ?? ""
    })
    .replace(/\$ARGUMENTS\b/g, () => {
      usedArguments = true
      return given
    })
    .replaceAll("${CLAUDE_SKILL_DIR}", skill.dir)
    .replaceAll("${CLAUDE_SESSION_ID}", sessionId)
  const withArgs = !usedArguments && given !== "" ? `${body}\n\nARGUMENTS: ${given}` : body
  return `Base directory for this skill: ${skill.dir}\n\n${withArgs}`
}

const describeSkill = (skill: Skill): string =>
  `- ${skill.name}: ${skill.description === "" ? "(no description)" : skill.description}${
    skill.argumentHint === undefined ? "" : ` (arguments: ${skill.argumentHint})`
  }`

const promptFor = (skills: ReadonlyArray<Skill>): string =>
  `Runs a skill: a folder of instructions for one kind of task, written by the user or the project.

- When a request matches a skill below, call this tool with its name (and arguments, if it takes any) before doing the task yourself; then follow the instructions that come back.
- Do not call a skill that is already running, and do not use it for anything not listed here.

Available skills:
${skills.filter((s) => !s.disableModelInvocation).map(describeSkill).join("\n")}`

/** The Skill tool serving `skills` (the list is fixed when the tool is made, as its prompt names them). */
export const makeSkillTool = (skills: ReadonlyArray<Skill>) => {
  const byName = new Map(skills.map((s) => [s.name, s]))

  const find = (input: SkillInput): Skill | string => {
    const name = skillNameOf(input.skill)
    const skill = byName.get(name)
    if (skill === undefined) return `Unknown skill: ${name}`
    if (skill.disableModelInvocation) {
      return `Skill ${name} cannot be used with Skill tool due to disable-model-invocation`
    }
    return skill
  }

  const run = Effect.fn("Skill.call")(function*(input: SkillInput, ctx: ToolContext) {
    const skill = find(input)
    if (typeof skill === "string") return yield* Effect.fail(new ToolError({ reason: skill }))
    const instructions = skillInstructions(skill, input.args, ctx.session.sessionId)
    return {
      data: { success: true, commandName: skill.name, allowedTools: skill.allowedTools, instructions },
      newMessages: [{ role: "user", content: [{ type: "text", text: instructions }] }]
    } satisfies ToolResult<SkillOutput>
  })

  return buildTool<SkillInput, SkillOutput>({
    name: SKILL_TOOL_NAME,
    inputSchema: SkillInput,
    description: `Run one of the user's or project's skills (${
      skills.length === 0 ? "none available" : skills.map((s) => s.name).join(", ")
    }).`,
    prompt: promptFor(skills),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    isDestructive: () => false,
    maxResultSizeChars: 100_000,
    validateInput: (input) => {
      const skill = find(input)
      return typeof skill === "string" ? reject(SKILL_TOOL_NAME, skill) : Effect.void
    },
    permissionSubject: (input) => {
      const args = input.args?.trim()
      return args === undefined || args === ""
        ? { kind: "skill", name: skillNameOf(input.skill) }
        : { kind: "skill", name: skillNameOf(input.skill), args }
    },
    call: run,
    mapResult: (output) => `Launching skill: ${output.commandName}`,
    hookResponse: (output) => ({
      success: output.success,
      commandName: output.commandName,
      allowedTools: output.allowedTools
    }),
    renderUse: (
      input
    ) => (input.args === undefined || input.args.trim() === ""
      ? skillNameOf(input.skill)
      : `${skillNameOf(input.skill)} ${input.args.trim()}`),
    renderResult: (output) =>
      `Loaded skill ${output.commandName} (${output.instructions.split("\n").length} lines of instructions)`
  })
}
