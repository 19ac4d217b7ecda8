/**
 * Each stage can be replaced by a Layer of your own; these tests replace the ones the other
 * service tests keep real (the pattern users copy to test one stage in isolation).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { toolResult } from "../../src/Messages.js"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import * as FileState from "../../src/services/FileState.js"
import { Scheduler, layer as SchedulerLayer } from "../../src/services/Scheduler.js"
import * as Settings from "../../src/services/Settings.js"
import { ToolRegistry, buildPool } from "../../src/services/ToolRegistry.js"
import * as Hooks from "../../src/services/Hooks.js"
import { makeRule } from "../../src/PermissionRules.js"
import { buildTool } from "../../src/Tool.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"

const cwd = tempDir()
const session = testSession(cwd)

const echo = buildTool({
  name: "Echo",
  inputSchema: Schema.Struct({ text: Schema.String }),
  description: "echoes",
  isConcurrencySafe: () => true,
  call: (input) => Effect.succeed({ data: input.text })
})

describe("replacing stages", () => {
  it.effect("Settings: a hand-written service supplies the rules", () =>
    Effect.gen(function*() {
      const run = yield* (yield* Scheduler).runMessage([toolUse("1", "Echo", { text: "hi" })], { session })
      expect(run.outcomes[0]!.result.content).toBe("hi")
      expect(run.outcomes[0]!.decision?.reason.type).toBe("rule")
    }).pipe(
      Effect.provide(
        testRuntime({
          tools: [echo],
          cwd,
          settings: Layer.succeed(Settings.Settings, {
            current: Effect.succeed({
              cwd,
              sources: [],
              rules: [makeRule("Echo", "allow", "session", cwd)],
              mode: "default" as const,
              additionalDirectories: [],
              errors: [],
              warnings: [],
              value: () => undefined,
              localSettingsFile: `${cwd}/.claude/settings.local.json`,
              userConfigDir: `${cwd}/.user`
            }),
            addRules: () => Effect.void
          })
        })
      )
    ))

  it.effect("ToolRegistry: a fixed pool (e.g. to hide tools from one test)", () =>
    Effect.gen(function*() {
      const run = yield* (yield* Scheduler).runMessage([toolUse("1", "Echo", { text: "hi" })], { session })
      expect(run.outcomes[0]!.result.content).toBe(
        "<tool_use_error>Error: No such tool available: Echo</tool_use_error>"
      )
    }).pipe(
      Effect.provide(
        testRuntime({
          tools: [echo],
          cwd,
          registry: Layer.succeed(ToolRegistry, {
            pool: Effect.succeed(buildPool([], [], [])),
            setSource: () => Effect.void,
            withhold: () => Effect.void
          })
        })
      )
    ))

  it.effect("FileState: a store that claims every file was read fully (FileState is what Edit and Write consult)", () =>
    Effect.gen(function*() {
      const state = yield* FileState.FileState
      expect(Option.isSome(yield* state.get("/any/file"))).toBe(true)
    }).pipe(
      Effect.provide(
        Layer.succeed(FileState.FileState, {
          record: () => Effect.void,
          get: () => Effect.succeed(Option.some({ mtimeMs: 0, contentHash: "", partial: false })),
          forget: () => Effect.void
        })
      )
    ))

  it.effect("CallPipeline: the scheduler with a scripted pipeline (scheduling tested alone)", () =>
    Effect.gen(function*() {
      const run = yield* (yield* Scheduler).runMessage([toolUse("a", "X"), toolUse("b", "Y")], { session })
      expect(run.message.content).toEqual([toolResult("a", "scripted X"), toolResult("b", "scripted Y")])
      expect(run.timeline.map((t) => t.batch)).toEqual([1, 1])
    }).pipe(
      Effect.provide(
        SchedulerLayer.pipe(
          Layer.provide(
            Layer.mergeAll(
              Hooks.layerNone,
              Layer.succeed(CallPipeline, {
                prepare: (block, index) =>
                  Effect.succeed({
                    index,
                    block,
                    tool: undefined,
                    decoded: { _tag: "Right", right: {} } as never,
                    concurrencySafe: true,
                    interruptBehavior: "cancel" as const
                  }),
                run: (call) =>
                  Effect.succeed({
                    toolUseId: call.block.id,
                    toolName: call.block.name,
                    result: toolResult(call.block.id, `scripted ${call.block.name}`),
                    error: undefined,
                    input: {},
                    newMessages: [],
                    remindersBefore: [],
                    remindersAfter: [],
                    notices: []
                  }),
                errorOutcome: () => {
                  throw new Error("not used")
                }
              })
            )
          )
        )
      )
    ))
})
