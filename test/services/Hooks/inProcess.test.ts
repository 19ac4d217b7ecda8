/**
 * In-process hooks for library users: same input object, same JSON answers, same aggregation as
 * command hooks; failures are notices; a PreToolUse timeout blocks.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import * as Hooks from "../../../src/services/Hooks.js"
import type { HookInput, InProcessHook } from "../../../src/services/Hooks.js"
import {
  bashTool,
  cmd,
  fixture,
  hooksSettings,
  makeProject,
  preToolUse,
  removeProject,
  sessionFor,
  writeTool
} from "./support.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"

let project: string
beforeEach(() => {
  project = makeProject()
})
afterEach(() => removeProject(project))

const decide = (decision: "allow" | "deny" | "ask" | "defer", extra: Record<string, unknown> = {}): InProcessHook => ({
  event: "PreToolUse",
  name: `hook-${decision}`,
  run: () =>
    Effect.succeed({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, ...extra } })
})

const runIn = (hooks: ReadonlyArray<InProcessHook>, tool = bashTool, toolInput: unknown = { command: "ls" }) =>
  Effect.flatMap(
    Hooks.Hooks,
    (h) => h.preToolUse({ tool, toolInput, toolUseId: "toolu_1", session: sessionFor(project) })
  ).pipe(
    Effect.provide(Hooks.layerInProcess(hooks).pipe(Layer.provide(layerSharedShellAnalyzer)))
  )

describe("in-process hooks", () => {
  it.effect("get the same object a command hook reads on stdin", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<HookInput | undefined>(undefined)
      yield* runIn([{ event: "PreToolUse", matcher: "Bash", run: (input) => Ref.set(seen, input) }])
      expect(yield* Ref.get(seen)).toEqual({
        session_id: "session-123",
        transcript_path: sessionFor(project).transcriptPath,
        cwd: project,
        permission_mode: "default",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "ls" },
        tool_use_id: "toolu_1"
      })
    }))

  it.effect("precedence deny > defer > ask > allow", () =>
    Effect.gen(function*() {
      expect((yield* runIn([decide("allow"), decide("ask")])).decision).toBe("ask")
      expect((yield* runIn([decide("ask"), decide("defer")])).decision).toBe("defer")
      const denied = yield* runIn([
        decide("allow"),
        decide("deny", { permissionDecisionReason: "policy" }),
        decide("defer")
      ])
      expect(denied.decision).toBe("deny")
      expect(denied.block).toEqual({ reason: "policy" })
      expect((yield* runIn([])).decision).toBeUndefined()
    }))

  it.effect("matcher and if filter in-process hooks too", () =>
    Effect.gen(function*() {
      const outcome = yield* runIn([
        { ...decide("deny"), matcher: "Write" },
        { ...decide("ask"), if: "Bash(git *)" },
        { ...decide("allow"), if: "Bash(ls:*)" }
      ])
      expect(outcome.decision).toBe("allow")
    }))

  it.effect("a failing or defective hook is a notice, never an approval", () =>
    Effect.gen(function*() {
      const outcome = yield* runIn([
        { event: "PreToolUse", name: "fails", run: () => Effect.fail(new Error("boom")) },
        { event: "PreToolUse", name: "dies", run: () => Effect.die("kaput") },
        {
          event: "PreToolUse",
          name: "throws",
          run: () => {
            throw new Error("sync throw")
          }
        },
        {
          event: "PreToolUse",
          name: "wrong",
          run: () => Effect.succeed({ hookSpecificOutput: { hookEventName: "PostToolUse" } } as never)
        },
        { event: "PreToolUse", name: "odd", run: () => Effect.succeed("allow" as never) }
      ])
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices).toEqual([
        "PreToolUse:Bash hook error: fails failed: boom",
        "PreToolUse:Bash hook error: dies failed: kaput",
        "PreToolUse:Bash hook error: throws failed: sync throw",
        "PreToolUse:Bash hook error: JSON validation failed at hookSpecificOutput.hookEventName: Hook returned incorrect event name: expected 'PreToolUse' but got 'PostToolUse'",
        "PreToolUse:Bash hook error: odd returned something that is not an object"
      ])
    }))

  it.live("a PreToolUse hook that times out blocks (as SDK callback hooks do)", () =>
    Effect.gen(function*() {
      const outcome = yield* runIn([
        { event: "PreToolUse", name: "slow", timeout: 0.05, run: () => Effect.never },
        decide("allow")
      ])
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ reason: "slow timed out after 0.05 seconds" })
    }))

  it.live("run alongside command hooks and aggregate with them", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(
        project,
        [{ settings: hooksSettings("PreToolUse", "Write", [cmd(fixture("allow.sh"))]) }],
        writeTool,
        { file_path: "/tmp/x", content: "" },
        {
          inProcess: [{
            event: "PreToolUse",
            matcher: "Write",
            run: () => Effect.succeed({ decision: "block", reason: "library says no" })
          }]
        }
      )
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ reason: "library says no" })
    }))

  it.effect("other events: PermissionRequest and PostToolUse answers", () =>
    Effect.gen(function*() {
      const hooks: ReadonlyArray<InProcessHook> = [
        {
          event: "PermissionRequest",
          run: () =>
            Effect.succeed({
              hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } }
            })
        },
        {
          event: "PostToolUse",
          run: () =>
            Effect.succeed({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "noted" } })
        }
      ]
      const [perm, post] = yield* Effect.flatMap(Hooks.Hooks, (h) =>
        Effect.all([
          h.permissionRequest({
            tool: bashTool,
            toolInput: { command: "ls" },
            session: sessionFor(project),
            suggestions: []
          }),
          h.postToolUse({
            tool: bashTool,
            toolInput: { command: "ls" },
            toolUseId: "t",
            toolResponse: {},
            durationMs: 1,
            session: sessionFor(project)
          })
        ])).pipe(Effect.provide(Hooks.layerInProcess(hooks).pipe(Layer.provide(layerSharedShellAnalyzer))))
      expect(perm.decision).toEqual({ behavior: "allow" })
      expect(post.reminders).toEqual(["PostToolUse:Bash hook additional context: noted"])
    }))
})
