/**
 * Not a test: an entry point the bundle test compiles with esbuild into one CommonJS file, like
 * the CLI, to prove that extensions (user modules, ajv) and WebFetch (turndown) load from a
 * bundle. It composes the runtime the way src/layers/Runtime.ts does, plus the Extensions layer
 * and this task's tools, runs the calls one by one (each with a runtime of its own, built with its
 * allowed tools), and prints their outcomes as a JSON array.
 *   node probe.cjs '{"cwd":…,"calls":[{"tool":…,"input":…,"allowedTools":[…]}],"userConfigDir":…,"toolgateDir":…}'
 */
import { Effect, Layer } from "effect"
import { Extensions, layer as extensionsLayer } from "../../../src/services/Extensions.js"
import * as Runtime from "../../../src/layers/Runtime.js"
import { newSession } from "../../../src/Session.js"
import { Scheduler } from "../../../src/services/Scheduler.js"
import { NotebookEditTool } from "../../../src/tools/NotebookEdit.js"
import { TodoWriteTool } from "../../../src/tools/TodoWrite.js"
import { WebFetchTool } from "../../../src/tools/WebFetch.js"
import { builtinTools } from "../../../src/tools/index.js"
import { makeSkillTool } from "../../../src/tools/Skill.js"

interface ProbeCall {
  readonly tool: string
  readonly input: unknown
  readonly allowedTools: ReadonlyArray<string>
}

interface ProbeArgs {
  readonly cwd: string
  readonly calls: ReadonlyArray<ProbeCall>
  readonly userConfigDir: string
  readonly toolgateDir: string
  readonly sessionDir: string
}

const args = JSON.parse(process.argv[2]!) as ProbeArgs

const runtimeFor = (call: ProbeCall) =>
  extensionsLayer({ toolgateDir: args.toolgateDir, reportWarnings: false, skillTool: makeSkillTool }).pipe(
    Layer.provideMerge(
      Runtime.layer({
        cwd: args.cwd,
        tools: [...builtinTools, WebFetchTool, TodoWriteTool, NotebookEditTool],
        allowedTools: call.allowedTools,
        trustProject: true,
        userConfigDir: args.userConfigDir,
        managedDir: `${args.userConfigDir}/managed`,
        home: args.userConfigDir
      })
    )
  )

const runOne = (call: ProbeCall) =>
  Effect.gen(function*() {
    const scheduler = yield* Scheduler
    const extensions = yield* Extensions
    const session = newSession({ cwd: args.cwd, permissionMode: "default", sessionDir: args.sessionDir })
    const run = yield* scheduler.runMessage([{
      type: "tool_use",
      id: "toolu_probe",
      name: call.tool,
      input: call.input
    }], { session })
    const outcome = run.outcomes[0]!
    return {
      content: outcome.result.content,
      is_error: outcome.result.is_error === true,
      newMessages: outcome.newMessages,
      warnings: extensions.loaded.warnings,
      skills: extensions.loaded.skills.map((s) => s.name),
      tools: extensions.loaded.tools.map((t) => t.name)
    }
  }).pipe(Effect.provide(runtimeFor(call)))

Effect.runPromise(Effect.forEach(args.calls, runOne)).then(
  (outcomes) => process.stdout.write(`${JSON.stringify(outcomes)}\n`),
  (error) => {
    process.stderr.write(`probe failed: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(2)
  }
)
