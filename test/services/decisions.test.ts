/**
 * One Decision type (Allow | Ask | Deny) from every stage to the pipeline: an answer that is not
 * one of them never lets a call run (a replacement stage or a tool written in plain JavaScript
 * may answer anything).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Messages, Permission, Permissions, Scheduler, Testing, Tool } from "../../src/index.js"

const touchTool = (ran: Array<string>, check?: () => unknown) =>
  Tool.buildTool({
    name: "Touch",
    description: "Records that it ran.",
    inputSchema: Schema.Struct({}),
    ...(check === undefined ? {} : { checkPermissions: () => Effect.succeed(check() as Permission.ToolCheck) }),
    call: () => Effect.sync(() => (ran.push("Touch"), { data: "touched" }))
  })

const runOne = (
  tools: ReadonlyArray<Tool.AnyTool>,
  mode: Permission.PermissionMode,
  layers: Parameters<typeof Testing.layer>[0]["layers"] = {},
  approver = Testing.recordedApprover()
) =>
  Effect.gen(function*() {
    const cwd = yield* Testing.workspace()
    const run = yield* Effect.gen(function*() {
      const scheduler = yield* Scheduler.Scheduler
      return yield* scheduler.runMessage([Testing.toolUseBlock("toolu_1", "Touch")], {
        session: Testing.session(cwd, mode)
      })
    }).pipe(Effect.provide(Testing.layer({ cwd, tools, approver: approver.layer, layers })))
    const [result] = Messages.toolResults(run.message)
    return { result: result!, asked: approver.requests.length }
  }).pipe(Effect.scoped)

describe("decisions", () => {
  it.effect("a Permissions stage that answers something that is not a decision never lets the call run", () =>
    Effect.gen(function*() {
      for (const answer of [{}, { behavior: "allow" }, { _tag: "allow" }, null]) {
        const ran: Array<string> = []
        const odd = Layer.succeed(Permissions.Permissions, {
          decide: () => Effect.succeed(answer as unknown as Permission.Decision)
        })
        const { result, asked } = yield* runOne(
          [touchTool(ran)],
          "bypassPermissions",
          { Permissions: odd },
          Testing.recordedApprover(() => ({ behavior: "deny" }))
        )
        expect(ran, JSON.stringify(answer)).toEqual([])
        expect(result.is_error).toBe(true)
        expect(asked).toBe(1) // it asked (forced), even in bypassPermissions
      }
    }))

  it.effect("a tool's own check that answers something that is not a decision asks, even in bypassPermissions", () =>
    Effect.gen(function*() {
      const ran: Array<string> = []
      const denyingApprover = Testing.recordedApprover(() => ({ behavior: "deny" }))
      const cwd = yield* Testing.workspace()
      const run = yield* Effect.gen(function*() {
        return yield* (yield* Scheduler.Scheduler).runMessage([Testing.toolUseBlock("toolu_1", "Touch")], {
          session: Testing.session(cwd, "bypassPermissions")
        })
      }).pipe(
        Effect.provide(
          Testing.layer({
            cwd,
            tools: [touchTool(ran, () => ({ behavior: "allow" }))],
            approver: denyingApprover.layer
          })
        )
      )
      expect(ran).toEqual([])
      expect(Messages.toolResults(run.message)[0]!.is_error).toBe(true)
      expect(denyingApprover.requests[0]!.decision.reason).toMatchObject({ type: "safetyCheck" })
      expect(Permission.isForced(denyingApprover.requests[0]!.decision)).toBe(true)
    }).pipe(Effect.scoped))

  it.effect("a tool's own Allow, Ask and Deny reach the pipeline as they are", () =>
    Effect.gen(function*() {
      const allowed: Array<string> = []
      expect((yield* runOne([touchTool(allowed, () => Permission.allow())], "default")).result.is_error).toBeUndefined()
      expect(allowed).toEqual(["Touch"])
      const denied: Array<string> = []
      const refusal = yield* runOne([touchTool(denied, () => Permission.deny("not this one"))], "bypassPermissions")
      expect(refusal.result.content).toBe("not this one")
      expect(denied).toEqual([])
      const asked: Array<string> = []
      const question = yield* runOne([touchTool(asked, () => Permission.ask("May I?"))], "default")
      expect(question.asked).toBe(1)
      expect(asked).toEqual(["Touch"])
    }))
})
