import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { REJECT_MESSAGE } from "../../src/Errors.js"
import * as Approver from "../../src/services/Approver.js"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import * as Hooks from "../../src/services/Hooks.js"
import { InputValidator } from "../../src/services/InputValidator.js"
import { Permissions } from "../../src/services/Permissions.js"
import { ResultStore } from "../../src/services/ResultStore.js"
import * as Settings from "../../src/services/Settings.js"
import { makeRule } from "../../src/PermissionRules.js"
import { buildTool, reject } from "../../src/Tool.js"
import { fakeTool, makeProbe } from "../support/fakeTools.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

const runOne = (name: string, input: unknown, cwd: string) =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const prepared = yield* pipeline.prepare(toolUse("toolu_1", name, input), 0)
    return yield* pipeline.run(prepared, { session: testSession(cwd) })
  })

const Strict = Schema.Struct({
  path: Schema.String,
  count: Schema.optionalWith(Schema.Number, { exact: true }),
  nested: Schema.optionalWith(Schema.Array(Schema.Struct({ x: Schema.Number })), { exact: true })
})

describe("CallPipeline", () => {
  const cwd = tempDir()
  const probe = makeProbe()
  let validated = 0
  const strictTool = buildTool({
    name: "Strict",
    inputSchema: Strict,
    description: "a tool with a strict schema",
    checkPermissions: () => Effect.succeed(Permission.allow()),
    validateInput: (input) => {
      validated++
      return input.path === "forbidden" ? reject("Strict", "That path is not allowed here.") : Effect.void
    },
    call: (input) => Effect.sync(() => (probe.ran.add(`strict:${input.path}`), { data: `ok ${input.path}` }))
  })
  const askTool = buildTool({
    name: "Asky",
    inputSchema: Schema.Struct({ v: Schema.String }),
    description: "passes through to rules, so it asks",
    call: (input) => Effect.sync(() => (probe.ran.add(`asky:${input.v}`), { data: `asky ${input.v}` }))
  })
  const bigTool = buildTool({
    name: "Big",
    inputSchema: Schema.Struct({}),
    description: "a large result",
    maxResultSizeChars: 1000,
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: () => Effect.succeed({ data: Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n") })
  })
  const unboundedTool = buildTool({
    name: "Unbounded",
    inputSchema: Schema.Struct({}),
    description: "a large result that is never spilled (as Read's)",
    maxResultSizeChars: Number.POSITIVE_INFINITY,
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: () => Effect.succeed({ data: "x".repeat(80_000) })
  })
  const tools = [strictTool, askTool, bigTool, unboundedTool, fakeTool("Safe", { safe: true, probe })]
  const runtime = testRuntime({ tools, cwd })

  it.layer(runtime)((it) => {
    it.effect("answers an unknown tool with Claude Code's text, and runs nothing", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Nope", {}, cwd)
        expect(outcome.result).toEqual({
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: "<tool_use_error>Error: No such tool available: Nope</tool_use_error>",
          is_error: true
        })
      }))

    it.effect("reports schema failures the way Claude Code words them, before validateInput", () =>
      Effect.gen(function*() {
        const before = validated
        const wrongType = yield* runOne("Strict", { path: 1 }, cwd)
        expect(wrongType.result.content).toBe(
          "<tool_use_error>InputValidationError: Strict failed due to the following issue:\nThe parameter `path` type is expected as `string` but provided as `number`</tool_use_error>"
        )
        const missing = yield* runOne("Strict", {}, cwd)
        expect(missing.result.content).toContain("The required parameter `path` is missing")
        const extra = yield* runOne("Strict", { path: "a", bogus: true }, cwd)
        expect(extra.result.content).toContain("An unexpected parameter `bogus` was provided")
        const nested = yield* runOne("Strict", { path: "a", nested: [{ x: 1 }, { x: "2" }] }, cwd)
        expect(nested.result.content).toContain(
          "The parameter `nested[1].x` type is expected as `number` but provided as `string`"
        )
        const several = yield* runOne("Strict", { count: "x", other: 1 }, cwd)
        expect(several.result.content).toContain("failed due to the following issues:")
        // an input that is no object is read by its keys, as Claude Code reads it
        const notObject = yield* runOne("Strict", ["a"], cwd)
        expect(notObject.result.content).toContain("The required parameter `path` is missing")
        expect(notObject.result.content).toContain("An unexpected parameter `0` was provided")
        const none = yield* runOne("Strict", null, cwd)
        expect(none.result.content).toContain("The required parameter `path` is missing")
        expect(validated).toBe(before)
        expect([...probe.ran].filter((r) => r.startsWith("strict:"))).toEqual([])
      }))

    it.effect("wraps a validateInput refusal and does not call the tool", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Strict", { path: "forbidden" }, cwd)
        expect(outcome.result.content).toBe("<tool_use_error>That path is not allowed here.</tool_use_error>")
        expect(outcome.result.is_error).toBe(true)
        expect(probe.ran.has("strict:forbidden")).toBe(false)
      }))

    it.effect("denies an ask when nothing can ask (fail closed)", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "x" }, cwd)
        expect(outcome.result.content).toBe("Claude requested permissions to use Asky, but you haven't granted it yet.")
        expect(outcome.error?._tag).toBe("PermissionDenied")
        expect(probe.ran.has("asky:x")).toBe(false)
      }))

    it.effect("never spills the result of a tool without a size threshold (Read), whatever its size", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Unbounded", {}, cwd)
        expect(outcome.result.content).toBe("x".repeat(80_000))
      }))

    it.effect("spills a result over the threshold once, with a preview that points to it", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Big", {}, cwd)
        const text = outcome.result.content as string
        expect(text.startsWith("<persisted-output>\nOutput too large (")).toBe(true)
        const file = /Full output saved to: (.+)\n/.exec(text)![1]!
        expect(file).toBe(path.join(cwd, ".session", "tool-results", "toolu_1.txt"))
        expect(fs.readFileSync(file, "utf8")).toBe(Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"))
        expect(text).toContain("Preview (first 2KB):\nline 0\nline 1\n")
        expect(text.endsWith("\n...\n</persisted-output>")).toBe(true)
      }))
  })

  const failing = buildTool({
    name: "Failing",
    inputSchema: Schema.Struct({ how: Schema.Literal("fail", "die", "throw") }),
    description: "fails in several ways",
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: (input) => {
      if (input.how === "throw") throw new Error("thrown synchronously")
      return input.how === "fail"
        ? Effect.fail(new (class extends Error {})("x") as never)
        : Effect.die(new Error("kaboom"))
    }
  })

  it.effect("turns a defect inside a tool into Claude Code's runner error", () =>
    Effect.gen(function*() {
      const died = yield* runOne("Failing", { how: "die" }, cwd)
      expect(died.result.content).toBe("<tool_use_error>Error calling tool (Failing): kaboom</tool_use_error>")
      const thrown = yield* runOne("Failing", { how: "throw" }, cwd)
      expect(thrown.result.content).toBe(
        "<tool_use_error>Error calling tool (Failing): thrown synchronously</tool_use_error>"
      )
      const enumError = yield* runOne("Failing", { how: "other" }, cwd)
      expect(enumError.result.content).toContain(
        "\"message\": \"Invalid option: expected one of \\\"fail\\\"|\\\"die\\\"|\\\"throw\\\"\""
      )
    }).pipe(Effect.provide(testRuntime({ tools: [failing], cwd }))))

  it.effect("a tool failure is the tool's text, middle-truncated over 10,000 characters", () =>
    Effect.gen(function*() {
      const small = yield* runOne("Safe", { fail: "Exit code 2\nno such file" }, cwd)
      expect(small.result).toMatchObject({ content: "Exit code 2\nno such file", is_error: true })
      const long = yield* runOne("Safe", { fail: "a".repeat(6000) + "b".repeat(6000) }, cwd)
      expect(long.result.content).toBe(
        `${"a".repeat(5000)}\n\n... [2000 characters truncated] ...\n\n${"b".repeat(5000)}`
      )
    }).pipe(Effect.provide(testRuntime({ tools: [fakeTool("Safe", { safe: true, probe: makeProbe() })], cwd }))))

  describe("permissions", () => {
    const settings = Settings.layerStatic({
      cwd,
      rules: [makeRule("Asky", "deny", "projectSettings", cwd, path.join(cwd, ".claude/settings.json"))]
    })
    it.effect("a bare deny rule takes the tool out of the pool: the model gets 'No such tool' with the reason and nothing runs", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "denied" }, cwd)
        expect(outcome.result.content).toBe(
          "<tool_use_error>Error: No such tool available: Asky. Asky is disabled for this session, in subagents as well as here.</tool_use_error>"
        )
        expect(probe.ran.has("asky:denied")).toBe(false)
      }).pipe(Effect.provide(testRuntime({ tools: [askTool], cwd, settings }))))

    it.effect("dontAsk turns an ask into a denial", () =>
      Effect.gen(function*() {
        const pipeline = yield* CallPipeline
        const prepared = yield* pipeline.prepare(toolUse("toolu_2", "Asky", { v: "d" }), 0)
        const outcome = yield* pipeline.run(prepared, { session: testSession(cwd, "dontAsk") })
        expect(outcome.result.content).toMatch(
          /^Permission to use Asky has been denied because Claude Code is running in don't ask mode\. IMPORTANT: /
        )
      }).pipe(Effect.provide(testRuntime({ tools: [askTool], cwd }))))

    it.effect("a mocked Permissions stage decides alone (the pattern for testing one stage)", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "mock" }, cwd)
        expect(outcome.result.content).toBe("Permission to use Asky with mock has been denied.")
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            permissions: Layer.succeed(Permissions, {
              decide: ({ input }) =>
                Effect.succeed(
                  Permission.deny(`Permission to use Asky with ${(input as { v: string }).v} has been denied.`, {
                    reason: { type: "default", detail: "mock" }
                  })
                ),
              readsWithoutAsking: () => Effect.succeed(false)
            })
          })
        )
      ))

    it.effect("an approver answers: once runs the call, deny gives the rejection text with feedback", () =>
      Effect.gen(function*() {
        const allowed = yield* runOne("Asky", { v: "yes" }, cwd)
        expect(allowed.result).toMatchObject({ content: "asky yes" })
        const rejected = yield* runOne("Asky", { v: "no" }, cwd)
        expect(rejected.result.content).toBe(REJECT_MESSAGE)
        const feedback = yield* runOne("Asky", { v: "why" }, cwd)
        expect(feedback.result.content).toMatch(/To tell you how to proceed, the user said:\nuse Read instead$/)
        expect(probe.ran.has("asky:no")).toBe(false)
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            approver: Approver.layerCallback(({ input }) => {
              const v = (input as { v: string }).v
              return Effect.succeed(
                v === "yes"
                  ? { behavior: "allow", scope: "once" }
                  : v === "why"
                  ? { behavior: "deny", feedback: "use Read instead" }
                  : { behavior: "deny" }
              )
            })
          })
        )
      ))

    it.effect("'allow for this session' adds the suggested rule, so the next call needs no approval", () =>
      Effect.gen(function*() {
        const asked = 0
        const first = yield* runOne("Asky", { v: "1" }, cwd)
        expect(first.result.is_error).toBeUndefined()
        const second = yield* runOne("Asky", { v: "2" }, cwd)
        expect(second.decision?.reason.type).toBe("rule")
        void asked
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            approver: Approver.layerCallback(() => Effect.succeed({ behavior: "allow", scope: "session" }))
          })
        )
      ))
  })

  describe("hooks (mocked stage)", () => {
    const hooks = (pre: (input: unknown) => Partial<Hooks.PreToolUseOutcome>) =>
      Layer.succeed(Hooks.Hooks, {
        ...Hooks.none,
        preToolUse: ({ toolInput }) => Effect.succeed({ ...Hooks.emptyPreToolUse, ...pre(toolInput) })
      })

    it.effect("an exit-2 block shows the hook command and its stderr; the tool never runs", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "blocked" }, cwd)
        expect(outcome.result.content).toBe("PreToolUse:Asky hook error: [./check.sh]: no way")
        expect(probe.ran.has("asky:blocked")).toBe(false)
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            hooks: hooks(() => ({ decision: "deny", block: { command: "./check.sh", reason: "no way" } }))
          })
        )
      ))

    it.effect("a hook allow skips the prompt, but not a deny rule", () =>
      Effect.gen(function*() {
        const allowed = yield* runOne("Asky", { v: "hook-ok" }, cwd)
        expect(allowed.result.content).toBe("asky hook-ok")
      }).pipe(Effect.provide(testRuntime({ tools: [askTool], cwd, hooks: hooks(() => ({ decision: "allow" })) }))))

    it.effect("a hook allow does not beat an ask rule: the ask stays, and with nobody to ask it is denied", () =>
      Effect.gen(function*() {
        const denied = yield* runOne("Asky", { v: "hook-but-ask" }, cwd)
        expect(denied.result.content).toBe("Claude requested permissions to use Asky, but you haven't granted it yet.")
        expect(probe.ran.has("asky:hook-but-ask")).toBe(false)
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            hooks: hooks(() => ({ decision: "allow" })),
            settings: Settings.layerStatic({ cwd, rules: [makeRule("Asky", "ask", "userSettings", cwd)] })
          })
        )
      ))

    it.effect("updatedInput replaces the input and is validated again", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "original" }, cwd)
        expect(outcome.result.content).toBe("asky rewritten")
      }).pipe(
        Effect.provide(
          testRuntime({
            tools: [askTool],
            cwd,
            hooks: hooks(() => ({ decision: "allow", updatedInput: { v: "rewritten" } }))
          })
        )
      ))

    it.effect("an invalid updatedInput is a validation error, not a call", () =>
      Effect.gen(function*() {
        const outcome = yield* runOne("Asky", { v: "original" }, cwd)
        expect(outcome.result.content).toContain(
          "The parameter `v` type is expected as `string` but provided as `number`"
        )
      }).pipe(
        Effect.provide(
          testRuntime({ tools: [askTool], cwd, hooks: hooks(() => ({ decision: "allow", updatedInput: { v: 5 } })) })
        )
      ))
  })

  it.effect("replacing the InputValidator and ResultStore stages with mocks", () =>
    Effect.gen(function*() {
      const outcome = yield* runOne("Big", { anything: "goes" }, cwd)
      expect(outcome.result.content).toBe("[mock store] 4389 chars")
    }).pipe(
      Effect.provide(
        testRuntime({
          tools: [bigTool],
          cwd,
          validator: Layer.succeed(InputValidator, {
            decode: (_tool, input) => ({ _tag: "Right", right: input }) as never,
            validate: () => Effect.void
          }),
          resultStore: Layer.succeed(ResultStore, {
            fit: (_dir, _id, content) => Effect.succeed(`[mock store] ${(content as string).length} chars`)
          })
        })
      )
    ))
})
