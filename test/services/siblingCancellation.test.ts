/**
 * Sibling cancellation with the real Bash tool: a real failure cancels the calls of its
 * concurrent set; grep's benign exit 1 does not.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Scheduler } from "../../src/services/Scheduler.js"
import { analyzedBashTool as BashTool } from "../support/shellAnalyzer.js"
import { fakeTool, makeProbe } from "../support/fakeTools.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"

const cwd = fs.realpathSync(tempDir("toolgate-siblings-"))
fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n")
const session = testSession(cwd, "bypassPermissions")

describe("sibling cancellation with real Bash", () => {
  it.live("a failing read-only Bash call cancels its running and queued siblings; they never finish", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const run = yield* (yield* Scheduler).runMessage(
        [
          toolUse("slow", "Probe", { ms: 5000 }),
          toolUse("bash", "Bash", { command: "cat missing.txt" }),
          toolUse("queued", "Probe", { ms: 1 })
        ],
        { session, maxConcurrency: 2 }
      )
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual(["CancelledBySibling", "ToolFailed", "CancelledBySibling"])
      expect(run.outcomes[0]!.result.content).toBe(
        "<tool_use_error>Cancelled: parallel tool call Bash(cat missing.txt) errored</tool_use_error>"
      )
      expect(run.outcomes[1]!.result.content).toMatch(/^Exit code 1\n/)
      expect(probe.log).toEqual(["start:slow"])
      expect(probe.running).toBe(0)
    }).pipe(Effect.provide(testRuntime({ tools: [BashTool, fakeTool("Probe", { safe: true, probe })], cwd })))
  })

  it.live("grep's exit 1 (no match) is not a failure and cancels nothing", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const run = yield* (yield* Scheduler).runMessage(
        [
          toolUse("slow", "Probe", { ms: 300 }),
          toolUse("grep", "Bash", { command: "grep nomatch a.txt" }),
          toolUse("after", "Probe", { ms: 1 })
        ],
        { session, maxConcurrency: 2 }
      )
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual([undefined, undefined, undefined])
      expect(probe.log).toContain("end:slow")
      expect(probe.log).toContain("end:after")
    }).pipe(Effect.provide(testRuntime({ tools: [BashTool, fakeTool("Probe", { safe: true, probe })], cwd })))
  })
})
