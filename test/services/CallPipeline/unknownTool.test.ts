/**
 * An unknown tool name gets Claude Code's pointer to the tool the model meant: a name that
 * differs only in case (for a tool listed in full), or another runtime's name for a tool.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CallPipeline } from "../../../src/services/CallPipeline.js"
import * as Settings from "../../../src/services/Settings.js"
import { makeRule } from "../../../src/PermissionRules.js"
import { buildTool } from "../../../src/Tool.js"
import { tempDir, testRuntime, testSession, toolUse } from "../../support/runtime.js"

const tool = (name: string, extra: { readonly knownAs?: ReadonlyArray<string>; readonly shouldDefer?: boolean } = {}) =>
  buildTool({
    name,
    inputSchema: Schema.Struct({}),
    description: name,
    call: () => Effect.succeed({ data: "ran" }),
    ...extra
  })

const cwd = tempDir()
const runtime = testRuntime({
  cwd,
  tools: [
    tool("Read", { knownAs: ["view"] }),
    tool("TodoWrite", { shouldDefer: true }),
    tool("Glob"),
    tool("GLOB"),
    tool("Write")
  ],
  settings: Settings.layerStatic({ cwd, rules: [makeRule("Write", "deny", "cliArg", cwd)] })
})

const resultOf = (name: string) =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const outcome = yield* pipeline.run(yield* pipeline.prepare(toolUse("toolu_1", name), 0), {
      session: testSession(cwd)
    })
    expect(outcome.result.is_error).toBe(true)
    return outcome.result.content
  })

describe("unknown tools", () => {
  it.layer(runtime)((it) => {
    it.effect("a name in the wrong case points at the tool", () =>
      Effect.gen(function*() {
        expect(yield* resultOf("read")).toBe(
          "<tool_use_error>Error: No such tool available: read. Tool names are case-sensitive: call Read instead.</tool_use_error>"
        )
      }))

    it.effect("no case pointer to a deferred tool, or when the case match is not unique", () =>
      Effect.gen(function*() {
        expect(yield* resultOf("Todowrite")).toBe(
          "<tool_use_error>Error: No such tool available: Todowrite</tool_use_error>"
        )
        expect(yield* resultOf("glob")).toBe("<tool_use_error>Error: No such tool available: glob</tool_use_error>")
      }))

    it.effect("a tool a deny rule took out of the session is said to be disabled", () =>
      Effect.gen(function*() {
        expect(yield* resultOf("Write")).toBe(
          "<tool_use_error>Error: No such tool available: Write. Write is disabled for this session, in subagents as well as here.</tool_use_error>"
        )
      }))

    it.effect("another runtime's name points at the tool", () =>
      Effect.gen(function*() {
        expect(yield* resultOf("view")).toBe(
          "<tool_use_error>Error: No such tool available: view. Call Read instead.</tool_use_error>"
        )
        expect(yield* resultOf("ReadFile")).toBe(
          "<tool_use_error>Error: No such tool available: ReadFile</tool_use_error>"
        )
      }))
  })
})
