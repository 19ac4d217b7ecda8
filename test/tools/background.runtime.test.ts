/**
 * Background shells through the real runtime (registry, pipeline, permissions, scheduler), and
 * the end of the runtime's scope stopping every background process.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach } from "vitest"
import { contentText } from "../../src/Messages.js"
import { makeRule } from "../../src/PermissionRules.js"
import * as Approver from "../../src/services/Approver.js"
import * as CallPipeline from "../../src/services/CallPipeline.js"
import * as FileState from "../../src/services/FileState.js"
import * as Hooks from "../../src/services/Hooks.js"
import * as InputValidator from "../../src/services/InputValidator.js"
import * as Permissions from "../../src/services/Permissions.js"
import * as ResultStore from "../../src/services/ResultStore.js"
import * as Scheduler from "../../src/services/Scheduler.js"
import * as Settings from "../../src/services/Settings.js"
import * as ToolRegistry from "../../src/services/ToolRegistry.js"
import { BackgroundTasks } from "../../src/tools/background/BackgroundTasks.js"
import * as BackgroundTools from "../../src/tools/background/BackgroundTools.js"
import { BashTool } from "../../src/tools/Bash.js"
import { ReadTool } from "../../src/tools/Read.js"
import { makeSandbox, readPids, recordedInBackground, waitForRecords, type Sandbox } from "../fixtures/bash/harness.js"
import { isRecordAlive, type PidRecord } from "../support/pidRecords.js"
import { fileContains, taskIdOf, waitFor, waitUntil } from "../fixtures/background/harness.js"
import { toolUse } from "../support/runtime.js"
import { layerSharedShellAnalyzer } from "../support/shellAnalyzer.js"

const STUBBORN = path.resolve(__dirname, "../fixtures/background/stubborn.sh")

let box: Sandbox
beforeEach(() => {
  box = makeSandbox()
})
afterEach(() => box.cleanup())

/** test/support/runtime.ts's runtime, with the built-ins coming from the background layer. */
const runtime = (rules: ReadonlyArray<string>) => {
  const cwd = box.project
  const base = Layer.mergeAll(
    Settings.layerStatic({ cwd, rules: rules.map((raw) => makeRule(raw, "allow", "userSettings", cwd)) }),
    FileState.layer,
    InputValidator.layer,
    ResultStore.layer,
    BackgroundTools.layerBuiltins([BashTool, ReadTool], { killGraceMs: 200 }),
    Approver.layerDeny,
    Hooks.layerNone
  ).pipe(Layer.provideMerge(layerSharedShellAnalyzer))
  const stages = Layer.mergeAll(ToolRegistry.layer, Permissions.layer).pipe(Layer.provideMerge(base))
  return Scheduler.layer.pipe(Layer.provideMerge(CallPipeline.layer), Layer.provideMerge(stages))
}

const resultText = (run: Scheduler.MessageRun, index: number) => contentText(run.outcomes[index]!.result.content)

/** Runs `body` with the runtime built in a scope of its own, which is closed even when the body fails. */
const withRuntime = <A>(
  rules: ReadonlyArray<string>,
  body: (
    services: Context.Context<Layer.Layer.Success<ReturnType<typeof runtime>>>,
    scope: Scope.CloseableScope
  ) => Effect.Effect<A>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    return yield* Effect.flatMap(Layer.buildWithScope(runtime(rules), scope), (services) => body(services, scope)).pipe(
      Effect.ensuring(Scope.close(scope, Exit.void))
    )
  })

describe("background shells in a runtime", () => {
  it.live("the pool has the background Bash, TaskOutput and TaskStop; legacy names reach them; permissions apply as in the foreground", () =>
    withRuntime(["Bash(echo *)"], (services, scope) =>
      Effect.gen(function*() {
        const pool = yield* Context.get(services, ToolRegistry.ToolRegistry).pool
        expect(pool.tools.map((t) => t.name)).toEqual(["Bash", "Read", "TaskOutput", "TaskStop"])
        expect(pool.lookup("BashOutput")?.name).toBe("TaskOutput")
        expect(pool.lookup("KillShell")?.name).toBe("TaskStop")
        const scheduler = Context.get(services, Scheduler.Scheduler)
        const session = { ...box.session }

        // Not allowed by a rule, nothing can ask: denied, nothing started.
        const denied = yield* scheduler.runMessage([
          toolUse("t0", "Bash", { command: "touch made-it", run_in_background: true })
        ], { session })
        expect(denied.outcomes[0]!.result.is_error).toBe(true)
        expect(yield* Context.get(services, BackgroundTasks).list).toEqual([])
        expect(fs.existsSync(path.join(box.project, "made-it"))).toBe(false)

        const started = yield* scheduler.runMessage(
          [toolUse("t1", "Bash", {
            command: `echo started; ${waitFor(path.join(box.project, "go"))}; echo end`,
            run_in_background: true
          })],
          { session }
        )
        const id = taskIdOf(resultText(started, 0))
        fs.writeFileSync(path.join(box.project, "go"), "")
        // TaskOutput needs no permission rule; the legacy name BashOutput reaches it.
        const read = yield* scheduler.runMessage([toolUse("t2", "BashOutput", { task_id: id, timeout: 20_000 })], {
          session
        })
        expect(read.outcomes[0]!.result.is_error).toBeUndefined()
        expect(resultText(read, 0)).toContain("<status>completed</status>")
        expect(resultText(read, 0)).toContain("<output>\nstarted\nend\n</output>")
        const unknown = yield* scheduler.runMessage([toolUse("t3", "KillShell", { shell_id: "bmissing" })], { session })
        expect(resultText(unknown, 0)).toBe("<tool_use_error>No task found with ID: bmissing</tool_use_error>")
        yield* Scope.close(scope, Exit.void)
      })))

  it.live("closing the runtime's scope stops every background process, children included", () =>
    withRuntime(["Bash"], (services, scope) =>
      Effect.gen(function*() {
        const scheduler = Context.get(services, Scheduler.Scheduler)
        const pids = (name: string) => path.join(box.project, name)
        // One ignores SIGTERM, so the grace period and SIGKILL are needed too.
        const commands = [
          `${recordedInBackground("sleep 1000", `'${pids("a.pid")}'`)} ${
            waitForRecords(`'${pids("a.pid")}'`)
          } echo ready; wait`,
          `bash '${STUBBORN}' '${pids("b.pid")}'`
        ]
        const run = yield* scheduler.runMessage(
          commands.map((command, i) => toolUse(`t${i}`, "Bash", { command, run_in_background: true })),
          // acceptEdits: the commands write pid files in the project
          { session: { ...box.session, permissionMode: "acceptEdits" } }
        )
        const tasks = yield* Context.get(services, BackgroundTasks).list
        expect(tasks.map((t) => t.id).sort()).toEqual(
          [taskIdOf(resultText(run, 0)), taskIdOf(resultText(run, 1))].sort()
        )
        for (const task of tasks) yield* waitUntil(`${task.id} ready`, fileContains(task.outputFile, "ready"))
        const all: ReadonlyArray<PidRecord> = [
          ...tasks.map((t) => ({ pid: t.pid })),
          ...readPids(pids("a.pid")),
          ...readPids(pids("b.pid"))
        ]
        expect(all.every(isRecordAlive)).toBe(true)

        yield* Scope.close(scope, Exit.void)
        // No polling: when the scope has closed, nothing may be left.
        expect(all.filter(isRecordAlive)).toEqual([])
      })))
})
