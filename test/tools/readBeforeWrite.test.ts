/**
 * Read-before-write by model (Claude Code 2.1.332): older models must read a file before Edit or
 * Write change it; newer ones may change a file they could have read without asking. Through the
 * real pipeline and permission rules.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { PermissionMode } from "../../src/Permission.js"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import { Permissions } from "../../src/services/Permissions.js"
import { makeRule } from "../../src/PermissionRules.js"
import * as Settings from "../../src/services/Settings.js"
import { canonicalModel, mustReadFirst } from "../../src/tools/files/readBeforeWrite.js"
import { EditTool } from "../../src/tools/Edit.js"
import { ReadTool } from "../../src/tools/Read.js"
import { WriteTool } from "../../src/tools/Write.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

const NOT_READ = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"

describe("read-before-write by model", () => {
  it("knows Claude Code's older models by their canonical names", () => {
    expect(canonicalModel("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5")
    expect(canonicalModel("anthropic.claude-3-5-sonnet-20241022-v2:0")).toBe("claude-3-5-sonnet")
    expect(canonicalModel("claude-opus-4-1@20250805")).toBe("claude-opus-4-1")
    expect(canonicalModel("gpt-5")).toBeUndefined()
    expect([
      mustReadFirst("claude-sonnet-4-5-20250929"),
      mustReadFirst("claude-opus-4-6"),
      mustReadFirst(undefined),
      mustReadFirst("scripted")
    ]).toEqual([
      true,
      true,
      true,
      true
    ])
    expect([mustReadFirst("claude-opus-4-8"), mustReadFirst("claude-sonnet-5-5")]).toEqual([false, false])
  })

  const cwd = fs.realpathSync(tempDir("toolgate-rbw-"))
  const outside = fs.realpathSync(tempDir("toolgate-rbw-out-"))
  const runtime = testRuntime({
    cwd,
    tools: [EditTool, WriteTool, ReadTool],
    settings: Settings.layerStatic({
      cwd,
      rules: [makeRule(`Read(/${path.join(cwd, "secret.txt")})`, "deny", "cliArg", cwd)]
    })
  })

  const call = (name: string, input: unknown, model: string | undefined, mode: PermissionMode = "acceptEdits") =>
    Effect.gen(function*() {
      const pipeline = yield* CallPipeline
      const session = { ...testSession(cwd, mode), ...(model === undefined ? {} : { model }) }
      const outcome = yield* pipeline.run(yield* pipeline.prepare(toolUse("toolu_1", name, input), 0), { session })
      return outcome.result.content
    })
  const file = (name: string, dir = cwd) => {
    const target = path.join(dir, name)
    fs.writeFileSync(target, "alpha\nbeta\n")
    return target
  }
  const editAlpha = (target: string) => ({ file_path: target, old_string: "alpha", new_string: "ALPHA" })

  it.layer(runtime)((it) => {
    // Claude Code's Edit leaves out the file-state note (the model has not seen the file); Write keeps it.
    it.effect("a newer model edits or overwrites a file it has not read, when it could read it without asking", () =>
      Effect.gen(function*() {
        const edited = file("e1.txt")
        expect(yield* call("Edit", editAlpha(edited), "claude-opus-4-8")).toBe(
          `The file ${edited} has been updated successfully.`
        )
        const written = file("w1.txt")
        expect(yield* call("Write", { file_path: written, content: "new\n" }, "claude-sonnet-5-5")).toBe(
          `The file ${written} has been updated successfully. (file state is current in your context — no need to Read it back)`
        )
        expect(fs.readFileSync(written, "utf8")).toBe("new\n")
        const outsideFile = file("o.txt", outside)
        expect(yield* call("Edit", editAlpha(outsideFile), "claude-opus-4-8", "bypassPermissions")).toContain(
          "has been updated successfully"
        )
      }))

    it.effect("older models, calls without a model, a file it may not read freely, and a Write after a partial read: read first", () =>
      Effect.gen(function*() {
        expect(yield* call("Edit", editAlpha(file("e2.txt")), "claude-sonnet-4-5-20250929")).toBe(NOT_READ)
        expect(yield* call("Edit", editAlpha(file("e3.txt")), "claude-opus-4-6")).toBe(NOT_READ)
        expect(yield* call("Edit", editAlpha(file("e4.txt")), undefined)).toBe(NOT_READ)
        // a Read deny rule: the file tool refuses first, in Claude Code's words (never a relaxed write)
        expect(yield* call("Edit", editAlpha(file("secret.txt")), "claude-opus-4-8")).toBe(
          "<tool_use_error>File is covered by a Read deny rule in your permission settings and cannot be edited.</tool_use_error>"
        )
        expect(yield* call("Edit", editAlpha(file("o2.txt", outside)), "claude-opus-4-8")).toBe(NOT_READ)
        const partly = file("w2.txt")
        yield* call("Read", { file_path: partly, limit: 1 }, "claude-opus-4-8")
        expect(yield* call("Write", { file_path: partly, content: "x\n" }, "claude-opus-4-8")).toBe(NOT_READ)
        expect(fs.readFileSync(partly, "utf8")).toBe("alpha\nbeta\n")
      }))
  })

  // A replacement Permissions service that does not say which reads are free: every file counts as unread.
  it.effect("with a Permissions service that leaves readsWithoutAsking out, newer models read first too", () =>
    Effect.gen(function*() {
      expect(yield* call("Edit", editAlpha(file("r1.txt")), "claude-opus-4-8")).toBe(NOT_READ)
    }).pipe(
      Effect.provide(
        testRuntime({
          cwd,
          tools: [EditTool, WriteTool, ReadTool],
          permissions: Layer.succeed(Permissions, {
            decide: () => Effect.succeed(Permission.allow({ type: "default", detail: "mock" }))
          })
        })
      )
    ))
})
