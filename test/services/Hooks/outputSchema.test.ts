/**
 * Hook output decoded with effect/Schema: one kind of error (HookOutputInvalid) naming where in
 * the document the problem is; an invalid answer is ignored as a whole (Claude Code runs the
 * call as if the hook had said nothing).
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodeHookOutput } from "../../../src/services/Hooks/outputSchema.js"

const problem = (event: Parameters<typeof decodeHookOutput>[1], value: unknown) => {
  const decoded = decodeHookOutput("hook.sh", event, value)
  return Either.isLeft(decoded) ? { path: decoded.left.path, message: decoded.left.message } : undefined
}

describe("decodeHookOutput", () => {
  it("accepts every event's own fields and ignores unknown keys", () => {
    expect(
      Either.isRight(
        decodeHookOutput("h", "PreToolUse", {
          hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" },
          extra: 1
        })
      )
    ).toBe(true)
    expect(
      Either.isRight(
        decodeHookOutput("h", "Stop", {
          decision: "block",
          reason: "go on",
          hookSpecificOutput: { hookEventName: "Stop", additionalContext: "x" }
        })
      )
    ).toBe(true)
    expect(
      Either.isRight(
        decodeHookOutput("h", "UserPromptSubmit", {
          hookSpecificOutput: { hookEventName: "UserPromptSubmit", suppressOriginalPrompt: true }
        })
      )
    ).toBe(true)
    expect(
      Either.isRight(
        decodeHookOutput("h", "PostToolUse", {
          hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: { stdout: "" } }
        })
      )
    ).toBe(true)
    expect(Either.isRight(decodeHookOutput("h", "PreToolUse", { async: true }))).toBe(true)
  })

  it.each(
    [
      [
        "PreToolUse",
        { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } },
        "hookSpecificOutput.permissionDecision"
      ],
      ["PreToolUse", { continue: "no" }, "continue"],
      [
        "PreToolUse",
        { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecisionReason: ["a"] } },
        "hookSpecificOutput.permissionDecisionReason"
      ],
      [
        "PreToolUse",
        { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: "rm -rf /" } },
        "hookSpecificOutput.updatedInput"
      ],
      ["PostToolUse", { decision: "deny" }, "decision"],
      ["PermissionRequest", {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "allow", updatedPermissions: [{ type: "addRules", destination: "nowhere" }] }
        }
      }, "hookSpecificOutput.decision"],
      ["SessionStart", { systemMessage: 5 }, "systemMessage"],
      [
        "Stop",
        { hookSpecificOutput: { hookEventName: "Stop", additionalContext: 1 } },
        "hookSpecificOutput.additionalContext"
      ]
    ] as const
  )("%s: %j is invalid at %s", (event, value, path) => {
    const found = problem(event, value)
    expect(found?.path.startsWith(path)).toBe(true)
    expect(found?.message).toMatch(/^JSON validation failed at /)
  })

  it("another event's hookSpecificOutput is Claude Code's incorrect-event error", () => {
    expect(problem("PreToolUse", { hookSpecificOutput: { hookEventName: "PostToolUse" } })).toEqual({
      path: "hookSpecificOutput.hookEventName",
      message:
        "JSON validation failed at hookSpecificOutput.hookEventName: Hook returned incorrect event name: expected 'PreToolUse' but got 'PostToolUse'"
    })
  })
})
